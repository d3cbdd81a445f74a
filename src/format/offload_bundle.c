/*
 * offload_bundle: clang-offload-bundler's binary container and its CCOB
 * compression (upstream-spec section 8.5).  See offload/offload_bundle.h.
 *
 * The writer follows BinaryFileHandler::WriteHeader/WriteBundle; the id
 * rewriting follows OffloadTargetInfo of 19 and 22 (clang/lib/Driver/
 * OffloadBundler.cpp), checked against the installed bundlers by
 * test/unit/test_offload_bundle.c; compression follows CompressedOffloadBundle
 * and llvm/lib/Support/Compression.cpp.  The reader is stricter than
 * upstream's, which silently treats a malformed header as "no bundles".
 */
#include "offload/offload_bundle.h"
#include "offload/diag.h"
#include "offload/md5.h"
#include "offload/strvec.h"
#include "compression.h"
#include "format_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- ids: what each release's bundler writes for a -targets entry --------- */

enum { KNOWN_IN_19 = 1, KNOWN_IN_22 = 2, KNOWN_IN_BOTH = KNOWN_IN_19 | KNOWN_IN_22 };

/* clang::StringToOffloadArch of each release (clang/lib/Basic/Cuda.cpp in
 * 19, OffloadArch.cpp in 22): the names the installed bundlers keep, found by
 * trying every arch-like string of their libclang-cpp. */
static const struct offload_arch {
	const char *name;
	unsigned known_in;
} offload_archs[] = {
	{ "sm_20", KNOWN_IN_BOTH }, { "sm_21", KNOWN_IN_BOTH }, { "sm_30", KNOWN_IN_BOTH },
	{ "sm_32", KNOWN_IN_BOTH }, { "sm_35", KNOWN_IN_BOTH }, { "sm_37", KNOWN_IN_BOTH },
	{ "sm_50", KNOWN_IN_BOTH }, { "sm_52", KNOWN_IN_BOTH }, { "sm_53", KNOWN_IN_BOTH },
	{ "sm_60", KNOWN_IN_BOTH }, { "sm_61", KNOWN_IN_BOTH }, { "sm_62", KNOWN_IN_BOTH },
	{ "sm_70", KNOWN_IN_BOTH }, { "sm_72", KNOWN_IN_BOTH }, { "sm_75", KNOWN_IN_BOTH },
	{ "sm_80", KNOWN_IN_BOTH }, { "sm_86", KNOWN_IN_BOTH }, { "sm_87", KNOWN_IN_BOTH },
	{ "sm_88", KNOWN_IN_22 }, { "sm_89", KNOWN_IN_BOTH }, { "sm_90", KNOWN_IN_BOTH },
	{ "sm_90a", KNOWN_IN_BOTH }, { "sm_100", KNOWN_IN_22 }, { "sm_100a", KNOWN_IN_22 },
	{ "sm_101", KNOWN_IN_22 }, { "sm_101a", KNOWN_IN_22 }, { "sm_103", KNOWN_IN_22 },
	{ "sm_103a", KNOWN_IN_22 }, { "sm_110", KNOWN_IN_22 }, { "sm_110a", KNOWN_IN_22 },
	{ "sm_120", KNOWN_IN_22 }, { "sm_120a", KNOWN_IN_22 }, { "sm_121", KNOWN_IN_22 },
	{ "sm_121a", KNOWN_IN_22 },
	{ "gfx600", KNOWN_IN_BOTH }, { "gfx601", KNOWN_IN_BOTH }, { "gfx602", KNOWN_IN_BOTH },
	{ "gfx700", KNOWN_IN_BOTH }, { "gfx701", KNOWN_IN_BOTH }, { "gfx702", KNOWN_IN_BOTH },
	{ "gfx703", KNOWN_IN_BOTH }, { "gfx704", KNOWN_IN_BOTH }, { "gfx705", KNOWN_IN_BOTH },
	{ "gfx801", KNOWN_IN_BOTH }, { "gfx802", KNOWN_IN_BOTH }, { "gfx803", KNOWN_IN_BOTH },
	{ "gfx805", KNOWN_IN_BOTH }, { "gfx810", KNOWN_IN_BOTH },
	{ "gfx9-generic", KNOWN_IN_BOTH }, { "gfx900", KNOWN_IN_BOTH }, { "gfx902", KNOWN_IN_BOTH },
	{ "gfx904", KNOWN_IN_BOTH }, { "gfx906", KNOWN_IN_BOTH }, { "gfx908", KNOWN_IN_BOTH },
	{ "gfx909", KNOWN_IN_BOTH }, { "gfx90a", KNOWN_IN_BOTH }, { "gfx90c", KNOWN_IN_BOTH },
	{ "gfx9-4-generic", KNOWN_IN_BOTH }, { "gfx940", KNOWN_IN_19 }, { "gfx941", KNOWN_IN_19 },
	{ "gfx942", KNOWN_IN_BOTH }, { "gfx950", KNOWN_IN_22 },
	{ "gfx10-1-generic", KNOWN_IN_BOTH }, { "gfx1010", KNOWN_IN_BOTH },
	{ "gfx1011", KNOWN_IN_BOTH }, { "gfx1012", KNOWN_IN_BOTH }, { "gfx1013", KNOWN_IN_BOTH },
	{ "gfx10-3-generic", KNOWN_IN_BOTH }, { "gfx1030", KNOWN_IN_BOTH },
	{ "gfx1031", KNOWN_IN_BOTH }, { "gfx1032", KNOWN_IN_BOTH }, { "gfx1033", KNOWN_IN_BOTH },
	{ "gfx1034", KNOWN_IN_BOTH }, { "gfx1035", KNOWN_IN_BOTH }, { "gfx1036", KNOWN_IN_BOTH },
	{ "gfx11-generic", KNOWN_IN_BOTH }, { "gfx1100", KNOWN_IN_BOTH },
	{ "gfx1101", KNOWN_IN_BOTH }, { "gfx1102", KNOWN_IN_BOTH }, { "gfx1103", KNOWN_IN_BOTH },
	{ "gfx1150", KNOWN_IN_BOTH }, { "gfx1151", KNOWN_IN_BOTH }, { "gfx1152", KNOWN_IN_BOTH },
	{ "gfx1153", KNOWN_IN_22 },
	{ "gfx12-generic", KNOWN_IN_BOTH }, { "gfx1200", KNOWN_IN_BOTH },
	{ "gfx1201", KNOWN_IN_BOTH }, { "gfx1250", KNOWN_IN_22 }, { "gfx1251", KNOWN_IN_22 },
	{ "amdgcnspirv", KNOWN_IN_BOTH }, { "graniterapids", KNOWN_IN_22 },
	{ "bmg_g21", KNOWN_IN_22 }, { "generic", KNOWN_IN_BOTH },
};

/* A piece of a string: the bundler works on StringRefs. */
struct span {
	const char *p;
	size_t len;
};

static struct span span_of(const char *s)
{
	return (struct span){ s, strlen(s) };
}

static int span_is(struct span s, const char *text)
{
	return s.len == strlen(text) && !memcmp(s.p, text, s.len);
}

/* Whether an arch table bit `known_in` lists `arch`.  19's table starts with
 * {UNUSED, ""}, so there the empty name counts as known; 22 checks for it. */
static int arch_in_table(unsigned known_in, struct span arch)
{
	if (arch.len == 0)
		return known_in == KNOWN_IN_19;
	for (size_t i = 0; i < sizeof(offload_archs) / sizeof(offload_archs[0]); i++)
		if ((offload_archs[i].known_in & known_in) && span_is(arch, offload_archs[i].name))
			return 1;
	return 0;
}

const char *ol_bundle_arch_name(size_t index)
{
	return index < sizeof(offload_archs) / sizeof(offload_archs[0]) ? offload_archs[index].name
									 : NULL;
}

/* StringRef::split(c): before and after the first c ("after" empty if none). */
static struct span split_first(struct span s, char c, struct span *rest)
{
	const char *at = memchr(s.p, c, s.len);

	if (!at) {
		*rest = (struct span){ s.p + s.len, 0 };
		return s;
	}
	*rest = (struct span){ at + 1, s.len - (size_t)(at - s.p) - 1 };
	return (struct span){ s.p, (size_t)(at - s.p) };
}

/* StringRef::rsplit(c): before and after the last c. */
static struct span split_last(struct span s, char c, struct span *tail)
{
	for (size_t i = s.len; i-- > 0;)
		if (s.p[i] == c) {
			*tail = (struct span){ s.p + i + 1, s.len - i - 1 };
			return (struct span){ s.p, i };
		}
	*tail = (struct span){ s.p + s.len, 0 };
	return s;
}

/* 19: llvm::Triple(arch, vendor, os, env).str() of a triple string, where
 * the environment is everything after the third '-'. */
static void add_triple_19(struct strbuf *sb, struct span triple)
{
	struct span rest, part;

	for (int i = 0; i < 3; i++) {
		part = split_first(triple, '-', &rest);
		strbuf_add(sb, part.p, part.len);
		strbuf_addch(sb, '-');
		triple = rest;
	}
	strbuf_add(sb, triple.p, triple.len);
}

/* 19: "<kind>-<triple>-<target id>", where the target id is kept only when
 * what follows the last '-' (before any ':') is a known arch, and is then
 * taken from the first occurrence of that arch in the whole string. */
static char *entry_id_19(const char *target, const char **why)
{
	struct span whole = span_of(target), features, before_features, arch, kind_triple;
	struct span kind, triple, target_id = { "", 0 };
	struct strbuf sb = STRBUF_INIT;

	(void)why;   /* 19 takes any string */
	before_features = split_first(whole, ':', &features);
	kind_triple = split_last(before_features, '-', &arch);
	if (arch_in_table(KNOWN_IN_19, arch)) {
		/* Target.substr(Target.find(arch)) */
		for (size_t i = 0; i + arch.len <= whole.len; i++)
			if (!memcmp(target + i, arch.p, arch.len)) {
				target_id = (struct span){ target + i, whole.len - i };
				break;
			}
	} else {
		kind_triple = before_features;
	}
	kind = split_first(kind_triple, '-', &triple);
	strbuf_add(&sb, kind.p, kind.len);
	strbuf_addch(&sb, '-');
	add_triple_19(&sb, triple);
	strbuf_addch(&sb, '-');
	strbuf_add(&sb, target_id.p, target_id.len);
	return strbuf_detach(&sb);
}

static void add_component(struct strbuf *sb, struct span part)
{
	if (part.len)
		strbuf_add(sb, part.p, part.len);
	else
		strbuf_addstr(sb, "unknown");   /* Triple::normalize fills empty components */
}

/* 22: split into at most six '-' components: kind, arch, vendor, os, env and
 * the target id (with features), kept only when its arch is known.  An
 * AMDHSA triple is written with three components and an empty environment
 * ("amdgcn-amd-amdhsa-"), any other with four. */
static char *entry_id_22(const char *target, const char **why)
{
	struct span parts[6], rest = span_of(target), arch, features;
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0;

	while (n < 5 && memchr(rest.p, '-', rest.len))
		parts[n++] = split_first(rest, '-', &rest);
	parts[n++] = rest;
	if (n < 5) {
		ol_format_fail(why, NULL, 0,
			       "'%s' is not '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>]', as "
			       "clang-offload-bundler 22 requires", target);
		return NULL;
	}
	strbuf_add(&sb, parts[0].p, parts[0].len);
	strbuf_addch(&sb, '-');
	for (int i = 1; i <= 3; i++) {
		add_component(&sb, parts[i]);
		strbuf_addch(&sb, '-');
	}
	/* llvm::Triple::parseOS matches a prefix; AMDHSA gets an empty environment. */
	if (parts[3].len < 6 || memcmp(parts[3].p, "amdhsa", 6))
		add_component(&sb, parts[4]);
	strbuf_addch(&sb, '-');
	arch = n == 6 ? split_first(parts[5], ':', &features) : (struct span){ "", 0 };
	if (arch_in_table(KNOWN_IN_22, arch))
		strbuf_add(&sb, parts[5].p, parts[5].len);
	return strbuf_detach(&sb);
}

static char *entry_id_16(const char *target, const char **why)
{
	(void)why;
	return ol_xstrdup(target);   /* written as given */
}

/* What differs between the bundlers of the releases, and the wrapper's
 * command for them (spec 4.5). */
static const struct bundler_release {
	int release;
	const char *host_target;   /* hard-coded in the wrapper, whatever the host */
	const char *device_kind;
	char *(*entry_id)(const char *target, const char **why);
	unsigned known_archs;      /* arch table bit; 0: ids are not rewritten */
	unsigned ccob_version;     /* what -compress writes; 0: no compression */
} bundler_releases[] = {
	{ 16, "host-x86_64-unknown-linux", "hipv4", entry_id_16, 0, 0 },
	{ 19, "host-x86_64-unknown-linux", "hip", entry_id_19, KNOWN_IN_19, 2 },
	{ 22, "host-x86_64-unknown-linux-gnu", "hip", entry_id_22, KNOWN_IN_22, 3 },
};

static const struct bundler_release *bundler_release(int release, const char **why)
{
	for (size_t i = 0; i < sizeof(bundler_releases) / sizeof(bundler_releases[0]); i++)
		if (bundler_releases[i].release == release)
			return &bundler_releases[i];
	if (why)
		ol_format_fail(why, NULL, 0, "unsupported release %d (16, 19 and 22 are)", release);
	return NULL;
}

char *ol_bundle_entry_id(int release, const char *target, const char **why)
{
	const struct bundler_release *r = bundler_release(release, why);

	return r ? r->entry_id(target, why) : NULL;
}

int ol_bundle_arch_known(int release, const char *arch)
{
	const struct bundler_release *r = bundler_release(release, NULL);

	return r && r->known_archs && arch_in_table(r->known_archs, span_of(arch));
}

const char *ol_hip_bundle_host_target(int release)
{
	const struct bundler_release *r = bundler_release(release, NULL);

	return r ? r->host_target : NULL;
}

const char *ol_hip_bundle_kind(int release)
{
	const struct bundler_release *r = bundler_release(release, NULL);

	return r ? r->device_kind : NULL;
}

/* ---- writer ------------------------------------------------------------ */

static uint64_t align_to(uint64_t value, uint64_t align)
{
	return (value + align - 1) / align * align;
}

uint8_t *ol_bundle_write(const struct ol_bundle_part *parts, size_t nparts, uint64_t align,
			 size_t *size_out)
{
	uint64_t header_size = OL_BUNDLE_HEADER_SIZE, total;
	uint64_t *offsets = ol_xcalloc(nparts ? nparts : 1, sizeof(*offsets));
	uint8_t *out, *p;

	if (align == 0)
		align = 1;
	for (size_t i = 0; i < nparts; i++)
		header_size += OL_BUNDLE_ENTRY_FIXED_SIZE + strlen(parts[i].id);
	/* Each payload starts at the next aligned offset after the previous one. */
	total = header_size;
	for (size_t i = 0; i < nparts; i++) {
		offsets[i] = align_to(total, align);
		total = offsets[i] + parts[i].size;
	}

	out = ol_xcalloc(1, (size_t)total);   /* the padding is zeros */
	memcpy(out, OL_BUNDLE_MAGIC, OL_BUNDLE_MAGIC_SIZE);
	ol_put64le(out + OL_BUNDLE_MAGIC_SIZE, nparts);
	p = out + OL_BUNDLE_HEADER_SIZE;
	for (size_t i = 0; i < nparts; i++) {
		size_t id_size = strlen(parts[i].id);

		ol_put64le(p, offsets[i]);
		ol_put64le(p + 8, parts[i].size);
		ol_put64le(p + 16, id_size);
		memcpy(p + OL_BUNDLE_ENTRY_FIXED_SIZE, parts[i].id, id_size);
		p += OL_BUNDLE_ENTRY_FIXED_SIZE + id_size;
		if (parts[i].size)
			memcpy(out + offsets[i], parts[i].data, (size_t)parts[i].size);
	}
	free(offsets);
	*size_out = (size_t)total;
	return out;
}

/* ---- CCOB --------------------------------------------------------------- */

enum {
	CCOB_VERSION = 4, CCOB_METHOD = 6, CCOB_SIZES = 8,
	CCOB_V1_HEADER_SIZE = 20, CCOB_V2_HEADER_SIZE = 24, CCOB_V3_HEADER_SIZE = 32,
};

/* Where each version keeps its fields (0: absent). */
static const struct ccob_layout {
	unsigned header_size;
	unsigned total_size_at, total_size_bytes;
	unsigned uncompressed_size_at, uncompressed_size_bytes;
	unsigned hash_at;
} ccob_layouts[] = {
	[1] = { CCOB_V1_HEADER_SIZE, 0, 0, 8, 4, 12 },
	[2] = { CCOB_V2_HEADER_SIZE, 8, 4, 12, 4, 16 },
	[3] = { CCOB_V3_HEADER_SIZE, 8, 8, 16, 8, 24 },
};

static const struct ccob_layout *ccob_layout(unsigned version)
{
	return version >= 1 && version <= 3 ? &ccob_layouts[version] : NULL;
}

static uint64_t get_le(const uint8_t *p, unsigned bytes)
{
	return bytes == 8 ? ol_get64le(p) : ol_get32le(p);
}

int ol_ccob_default_options(int release, struct ol_ccob_options *out)
{
	const struct bundler_release *r = bundler_release(release, NULL);

	if (!r || !r->ccob_version)
		return -1;
	/* zstd: LLVM 19 and 22 are built with it, and then prefer it. */
	out->version = r->ccob_version;
	out->method = OL_CCOB_ZSTD;
	out->level = OL_CCOB_LEVEL_DEFAULT;
	return 0;
}

/* The MD5 prefix as llvm::MD5::MD5Result::low(): a little-endian u64. */
static uint64_t truncated_md5(const uint8_t *data, size_t size)
{
	uint8_t digest[OL_MD5_SIZE];

	ol_md5(data, size, digest);
	return ol_get64le(digest);
}

uint8_t *ol_ccob_compress(const uint8_t *data, size_t size, const struct ol_ccob_options *options,
			  size_t *size_out, const char **why)
{
	const struct ol_compression_method *method = ol_compression_method(options->method);
	const struct ccob_layout *layout;
	uint8_t *stream, *out;
	size_t stream_size;
	uint64_t total;
	int level;

	if (options->version != 2 && options->version != 3) {
		ol_format_fail(why, NULL, 0,
			       "cannot write compressed bundle version %u (2 and 3 can be written)",
			       options->version);
		return NULL;
	}
	if (!method) {
		ol_format_fail(why, NULL, 0, "unknown compression method %u (0 zlib, 1 zstd)",
			       (unsigned)options->method);
		return NULL;
	}
	layout = ccob_layout(options->version);
	if (options->version == 2 && size > UINT32_MAX) {
		ol_format_fail(why, NULL, 0,
			       "a %zu-byte bundle is too large for compressed bundle version 2 (4 GiB)",
			       size);
		return NULL;
	}
	level = options->level == OL_CCOB_LEVEL_DEFAULT ? method->default_level : options->level;
	stream = method->compress(data, size, level, 1, &stream_size, why);
	if (!stream)
		return NULL;
	total = (uint64_t)layout->header_size + stream_size;
	if (options->version == 2 && total > UINT32_MAX) {
		free(stream);
		ol_format_fail(why, NULL, 0,
			       "the compressed bundle is too large for version 2 (4 GiB)");
		return NULL;
	}
	out = ol_xmalloc((size_t)total);
	memcpy(out, OL_CCOB_MAGIC, 4);
	ol_put16le(out + CCOB_VERSION, (uint16_t)options->version);
	ol_put16le(out + CCOB_METHOD, (uint16_t)options->method);
	ol_put_le(out + layout->total_size_at, total, (int)layout->total_size_bytes);
	ol_put_le(out + layout->uncompressed_size_at, size, (int)layout->uncompressed_size_bytes);
	ol_put64le(out + layout->hash_at, truncated_md5(data, size));
	memcpy(out + layout->header_size, stream, stream_size);
	free(stream);
	*size_out = (size_t)total;
	return out;
}

int ol_bundle_is_uncompressed(const uint8_t *data, size_t size)
{
	return size >= OL_BUNDLE_MAGIC_SIZE && !memcmp(data, OL_BUNDLE_MAGIC, OL_BUNDLE_MAGIC_SIZE);
}

int ol_bundle_is_compressed(const uint8_t *data, size_t size)
{
	return size >= 4 && !memcmp(data, OL_CCOB_MAGIC, 4);
}

int ol_ccob_parse_header(const uint8_t *data, size_t size, struct ol_ccob_header *out,
			 const char **why, uint64_t *bad_offset)
{
	const struct ccob_layout *layout;
	unsigned version, method;

	memset(out, 0, sizeof(*out));
	if (!ol_bundle_is_compressed(data, size))
		return ol_format_fail(why, bad_offset, 0,
				      "not a compressed offload bundle (bad magic)");
	if (size < CCOB_SIZES)
		return ol_format_fail(why, bad_offset, CCOB_VERSION,
				      "truncated compressed offload bundle header (%zu of at least "
				      "%d bytes)", size, CCOB_V1_HEADER_SIZE);
	version = ol_get16le(data + CCOB_VERSION);
	method = ol_get16le(data + CCOB_METHOD);
	layout = ccob_layout(version);
	if (!layout)
		return ol_format_fail(why, bad_offset, CCOB_VERSION,
				      "unknown compressed offload bundle version %u (1, 2 and 3 "
				      "are known)", version);
	if (size < layout->header_size)
		return ol_format_fail(why, bad_offset, CCOB_SIZES,
				      "truncated compressed offload bundle header (%zu of %u "
				      "bytes for version %u)", size, layout->header_size, version);
	if (!ol_compression_method(method))
		return ol_format_fail(why, bad_offset, CCOB_METHOD,
				      "unknown compression method %u (0 zlib, 1 zstd)", method);
	out->version = version;
	out->method = (enum ol_ccob_method)method;
	out->header_size = layout->header_size;
	out->uncompressed_size = get_le(data + layout->uncompressed_size_at,
					layout->uncompressed_size_bytes);
	out->hash = ol_get64le(data + layout->hash_at);
	if (!layout->total_size_at) {
		out->total_size = size;   /* v1: the stream runs to the end */
		return 0;
	}
	out->total_size = get_le(data + layout->total_size_at, layout->total_size_bytes);
	if (out->total_size < layout->header_size)
		return ol_format_fail(why, bad_offset, layout->total_size_at,
				      "compressed bundle size %" PRIu64 " is smaller than its "
				      "%u-byte header", out->total_size, layout->header_size);
	if (out->total_size > size)
		return ol_format_fail(why, bad_offset, layout->total_size_at,
				      "compressed bundle size %" PRIu64 " exceeds the %zu bytes "
				      "available", out->total_size, size);
	return 0;
}

uint8_t *ol_ccob_decompress(const uint8_t *data, size_t size, size_t *size_out,
			    struct ol_ccob_header *header_out, const char **why,
			    uint64_t *bad_offset)
{
	struct ol_ccob_header header;
	const struct ccob_layout *layout;
	const struct ol_compression_method *method;
	size_t stream_size, produced = 0, at = 0;
	uint64_t hash;
	uint8_t *out;

	if (ol_ccob_parse_header(data, size, &header, why, bad_offset) < 0)
		return NULL;
	layout = ccob_layout(header.version);
	method = ol_compression_method(header.method);
	stream_size = (size_t)header.total_size - header.header_size;
	if (header.uncompressed_size > (uint64_t)stream_size * method->max_ratio ||
	    header.uncompressed_size >= SIZE_MAX) {
		ol_format_fail(why, bad_offset, layout->uncompressed_size_at,
			       "uncompressed size %" PRIu64 " is more than a %zu-byte %s stream "
			       "can hold", header.uncompressed_size, stream_size, method->name);
		return NULL;
	}
	out = ol_xmalloc((size_t)header.uncompressed_size + 1);
	if (method->decompress(data + header.header_size, stream_size, out,
			       (size_t)header.uncompressed_size + 1, &produced, why, &at) < 0) {
		*bad_offset = header.header_size + at;
		free(out);
		return NULL;
	}
	if (produced != header.uncompressed_size) {
		if (produced > header.uncompressed_size)
			ol_format_fail(why, bad_offset, layout->uncompressed_size_at,
				       "the %s stream decompresses to more than the declared %" PRIu64
				       " bytes", method->name, header.uncompressed_size);
		else
			ol_format_fail(why, bad_offset, layout->uncompressed_size_at,
				       "the %s stream decompresses to %zu bytes, not the declared %"
				       PRIu64, method->name, produced, header.uncompressed_size);
		free(out);
		return NULL;
	}
	hash = truncated_md5(out, produced);
	if (hash != header.hash) {
		ol_format_fail(why, bad_offset, layout->hash_at,
			       "hash mismatch: the header says 0x%016" PRIx64 ", the decompressed "
			       "bundle hashes to 0x%016" PRIx64, header.hash, hash);
		free(out);
		return NULL;
	}
	if (header_out)
		*header_out = header;
	*size_out = produced;
	return out;
}

/* ---- reader ------------------------------------------------------------ */

enum { ENTRY_OFFSET = 0, ENTRY_SIZE = 8, ENTRY_ID_SIZE = 16 };

/* Where entry i's fields are in the header: kept while parsing, for messages. */
static uint64_t entry_field(const struct ol_bundle *b, size_t i)
{
	return (uint64_t)((const uint8_t *)b->entries[i].id - b->data) - OL_BUNDLE_ENTRY_FIXED_SIZE;
}

static int by_offset(const void *a, const void *b)
{
	const struct ol_bundle_entry *x = *(const struct ol_bundle_entry *const *)a;
	const struct ol_bundle_entry *y = *(const struct ol_bundle_entry *const *)b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int by_id(const void *a, const void *b)
{
	const struct ol_bundle_entry *x = *(const struct ol_bundle_entry *const *)a;
	const struct ol_bundle_entry *y = *(const struct ol_bundle_entry *const *)b;
	int c;

	if (x->id_size != y->id_size)
		return x->id_size < y->id_size ? -1 : 1;
	c = memcmp(x->id, y->id, x->id_size);
	if (c)
		return c;
	return x < y ? -1 : x > y;
}

/* Ids repeated, then non-empty payloads overlapping: both found by sorting,
 * so a header of many entries costs n log n. */
static int check_distinct(const struct ol_bundle *b, const char **why, uint64_t *bad_offset)
{
	const struct ol_bundle_entry **order = ol_xcalloc(b->nentries ? b->nentries : 1,
							  sizeof(*order));
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < b->nentries; i++)
		order[i] = &b->entries[i];
	qsort(order, b->nentries, sizeof(*order), by_id);
	for (size_t i = 1; i < b->nentries && !rc; i++)
		if (order[i - 1]->id_size == order[i]->id_size &&
		    !memcmp(order[i - 1]->id, order[i]->id, order[i]->id_size)) {
			size_t first = (size_t)(order[i - 1] - b->entries);
			size_t again = (size_t)(order[i] - b->entries);

			rc = ol_format_fail(why, bad_offset,
					    entry_field(b, again) + OL_BUNDLE_ENTRY_FIXED_SIZE,
					    "entry %zu repeats the id '%.*s' of entry %zu", again,
					    (int)(order[i]->id_size < 64 ? order[i]->id_size : 64),
					    order[i]->id, first);
		}
	for (size_t i = 0; i < b->nentries; i++)
		if (b->entries[i].size)
			order[n++] = &b->entries[i];
	qsort(order, n, sizeof(*order), by_offset);
	for (size_t i = 1; i < n && !rc; i++)
		if (order[i]->offset < order[i - 1]->offset + order[i - 1]->size) {
			size_t earlier = (size_t)(order[i - 1] - b->entries);
			size_t later = (size_t)(order[i] - b->entries);

			rc = ol_format_fail(why, bad_offset, entry_field(b, later) + ENTRY_OFFSET,
					    "entry %zu payload [0x%" PRIx64 ", 0x%" PRIx64
					    ") overlaps entry %zu payload [0x%" PRIx64 ", 0x%" PRIx64 ")",
					    later, order[i]->offset, order[i]->offset + order[i]->size,
					    earlier, order[i - 1]->offset,
					    order[i - 1]->offset + order[i - 1]->size);
		}
	free(order);
	return rc;
}

int ol_bundle_parse(const uint8_t *data, size_t size, struct ol_bundle *out, const char **why,
		    uint64_t *bad_offset)
{
	uint64_t count, at = OL_BUNDLE_HEADER_SIZE;

	memset(out, 0, sizeof(*out));
	if (!ol_bundle_is_uncompressed(data, size))
		return ol_format_fail(why, bad_offset, 0, "not an offload bundle (bad magic)");
	if (size < OL_BUNDLE_HEADER_SIZE)
		return ol_format_fail(why, bad_offset, OL_BUNDLE_MAGIC_SIZE,
				      "truncated offload bundle header (%zu of %d bytes)", size,
				      OL_BUNDLE_HEADER_SIZE);
	count = ol_get64le(data + OL_BUNDLE_MAGIC_SIZE);
	/* Each entry takes at least its fixed fields and a one-byte id. */
	if (count > (size - OL_BUNDLE_HEADER_SIZE) / (OL_BUNDLE_ENTRY_FIXED_SIZE + 1))
		return ol_format_fail(why, bad_offset, OL_BUNDLE_MAGIC_SIZE,
				      "entry count %" PRIu64 " cannot fit in a bundle of %zu bytes",
				      count, size);
	out->data = data;
	out->size = size;
	out->nentries = (size_t)count;
	out->entries = ol_xcalloc(count ? (size_t)count : 1, sizeof(*out->entries));
	for (size_t i = 0; i < out->nentries; i++) {
		struct ol_bundle_entry *e = &out->entries[i];
		uint64_t id_size;

		if (size - at < OL_BUNDLE_ENTRY_FIXED_SIZE) {
			ol_format_fail(why, bad_offset, at,
				       "truncated entry %zu (%" PRIu64 " of %d bytes before its id)", i,
				       size - at, OL_BUNDLE_ENTRY_FIXED_SIZE);
			goto fail;
		}
		e->offset = ol_get64le(data + at + ENTRY_OFFSET);
		e->size = ol_get64le(data + at + ENTRY_SIZE);
		id_size = ol_get64le(data + at + ENTRY_ID_SIZE);
		if (id_size == 0) {
			ol_format_fail(why, bad_offset, at + ENTRY_ID_SIZE, "entry %zu has an empty id", i);
			goto fail;
		}
		if (id_size > size - at - OL_BUNDLE_ENTRY_FIXED_SIZE) {
			ol_format_fail(why, bad_offset, at + ENTRY_ID_SIZE,
				       "entry %zu id of %" PRIu64 " bytes runs past the end of the "
				       "bundle (%zu bytes)", i, id_size, size);
			goto fail;
		}
		e->id = (const char *)data + at + OL_BUNDLE_ENTRY_FIXED_SIZE;
		e->id_size = (size_t)id_size;
		at += OL_BUNDLE_ENTRY_FIXED_SIZE + id_size;
	}
	out->header_size = at;
	for (size_t i = 0; i < out->nentries; i++) {
		struct ol_bundle_entry *e = &out->entries[i];

		if (e->offset > size || e->size > size - e->offset) {
			ol_format_fail(why, bad_offset, entry_field(out, i) + ENTRY_OFFSET,
				       "entry %zu payload (offset 0x%" PRIx64 ", size %" PRIu64
				       ") is outside the bundle of %zu bytes", i, e->offset, e->size, size);
			goto fail;
		}
		if (e->offset < at) {
			ol_format_fail(why, bad_offset, entry_field(out, i) + ENTRY_OFFSET,
				       "entry %zu payload (offset 0x%" PRIx64 ") starts inside the "
				       "header, which ends at 0x%" PRIx64, i, e->offset, at);
			goto fail;
		}
		e->data = data + e->offset;
	}
	if (check_distinct(out, why, bad_offset) < 0)
		goto fail;
	return 0;
fail:
	ol_bundle_release(out);
	return -1;
}

void ol_bundle_release(struct ol_bundle *bundle)
{
	free(bundle->entries);
	memset(bundle, 0, sizeof(*bundle));
}

const struct ol_bundle_entry *ol_bundle_find(const struct ol_bundle *bundle, const char *id)
{
	size_t len = strlen(id);

	for (size_t i = 0; i < bundle->nentries; i++)
		if (bundle->entries[i].id_size == len && !memcmp(bundle->entries[i].id, id, len))
			return &bundle->entries[i];
	return NULL;
}

/* ---- the HIP bundle ----------------------------------------------------- */

uint8_t *ol_hip_bundle_write(int release, const struct ol_hip_image *images, size_t nimages,
			     const struct ol_ccob_options *compress, size_t *size_out,
			     const char **why)
{
	const struct bundler_release *r = bundler_release(release, why);
	struct ol_bundle_part *parts;
	uint8_t *bundle = NULL, *compressed;
	size_t size, nparts = 0;

	if (!r)
		return NULL;
	if (compress && !r->ccob_version) {
		ol_format_fail(why, NULL, 0, "clang-offload-bundler %d cannot compress", release);
		return NULL;
	}
	parts = ol_xcalloc(nimages + 1, sizeof(*parts));
	/* The host input is /dev/null: an empty payload. */
	parts[nparts++].id = r->entry_id(r->host_target, why);
	for (size_t i = 0; i < nimages; i++) {
		struct strbuf target = STRBUF_INIT;
		char *id;

		strbuf_addf(&target, "%s-%s--%s", r->device_kind, images[i].triple,
			    images[i].target_id);
		id = r->entry_id(target.buf, why);
		strbuf_release(&target);
		if (!id)
			goto out;
		parts[nparts] = (struct ol_bundle_part){ id, images[i].data, images[i].size };
		for (size_t j = 1; j < nparts; j++)
			if (!strcmp(parts[j].id, id)) {
				ol_format_fail(why, NULL, 0,
					       "images %zu and %zu both become bundle entry '%s'",
					       j - 1, i, id);
				nparts++;
				goto out;
			}
		nparts++;
	}
	bundle = ol_bundle_write(parts, nparts, OL_HIP_BUNDLE_ALIGN, &size);
	if (compress) {
		compressed = ol_ccob_compress(bundle, size, compress, &size, why);
		free(bundle);
		bundle = compressed;
	}
	if (bundle)
		*size_out = size;
out:
	for (size_t i = 0; i < nparts; i++)
		free((char *)parts[i].id);
	free(parts);
	return bundle;
}
