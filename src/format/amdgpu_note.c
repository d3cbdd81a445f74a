/*
 * amdgpu_note: the code object metadata note of AMDGPU objects: found,
 * merged, excluded from a link, written as an object of its own
 * (include/offload/amdgpu_note.h).
 */
#include "offload/amdgpu_note.h"
#include "format_internal.h"

#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#ifndef SHF_EXCLUDE
#define SHF_EXCLUDE 0x80000000u
#endif

enum { MAX_DEPTH = 64 };

static const char amdgpu_owner[] = "AMDGPU";  /* namesz 7 */

static uint64_t align4(uint64_t n) { return (n + 3) & ~(uint64_t)3; }

/* --- MessagePack ------------------------------------------------------- */

static uint64_t get_be(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

static void put_be(struct strbuf *out, uint8_t tag, uint64_t v, int bytes)
{
	uint8_t b[9];

	b[0] = tag;
	for (int i = 0; i < bytes; i++)
		b[1 + i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
	strbuf_add(out, b, (size_t)bytes + 1);
}

/* The value at `at`: its kind ('s' string, 'm' map, 'a' array, 'o' other),
 * where its contents start, their length in bytes (scalars, strings) or
 * their count (containers).  Returns 0 when it runs past size. */
static int head(const uint8_t *d, size_t size, size_t at, char *kind, size_t *start,
		uint64_t *n)
{
	uint8_t t;
	int lenbytes = 0;

	if (at >= size)
		return 0;
	t = d[at];
	*kind = 'o';
	*n = 0;
	if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3) {
		*start = at + 1;
		return 1;
	}
	if ((t & 0xe0) == 0xa0) {
		*kind = 's';
		*n = t & 0x1f;
		*start = at + 1;
		return *start + *n <= size;
	}
	if ((t & 0xf0) == 0x90 || (t & 0xf0) == 0x80) {
		*kind = (t & 0xf0) == 0x90 ? 'a' : 'm';
		*n = t & 0x0f;
		*start = at + 1;
		return 1;
	}
	switch (t) {
	case 0xcc: case 0xd0: *n = 1; break;
	case 0xcd: case 0xd1: *n = 2; break;
	case 0xca: case 0xce: case 0xd2: *n = 4; break;
	case 0xcb: case 0xcf: case 0xd3: *n = 8; break;
	case 0xd4: *n = 2; break;   /* fixext: type byte + data */
	case 0xd5: *n = 3; break;
	case 0xd6: *n = 5; break;
	case 0xd7: *n = 9; break;
	case 0xd8: *n = 17; break;
	case 0xd9: case 0xc4: lenbytes = 1; break;
	case 0xda: case 0xc5: lenbytes = 2; break;
	case 0xdb: case 0xc6: lenbytes = 4; break;
	case 0xc7: case 0xc8: case 0xc9:   /* ext: length, type, data */
		lenbytes = t == 0xc7 ? 1 : t == 0xc8 ? 2 : 4;
		if (at + 1 + (size_t)lenbytes > size)
			return 0;
		*n = get_be(d + at + 1, lenbytes) + 1;
		*start = at + 1 + (size_t)lenbytes;
		return *start <= size && *n <= size - *start;
	case 0xdc: case 0xdd: case 0xde: case 0xdf: {
		int b = t == 0xdc || t == 0xde ? 2 : 4;

		if (at + 1 + (size_t)b > size)
			return 0;
		*kind = t <= 0xdd ? 'a' : 'm';
		*n = get_be(d + at + 1, b);
		*start = at + 1 + (size_t)b;
		return 1;
	}
	default:
		return 0;   /* 0xc1: never used */
	}
	if (lenbytes) {
		if (at + 1 + (size_t)lenbytes > size)
			return 0;
		*n = get_be(d + at + 1, lenbytes);
		*start = at + 1 + (size_t)lenbytes;
		if (t == 0xd9 || t == 0xda || t == 0xdb)
			*kind = 's';
	} else {
		*start = at + 1;
	}
	return *start <= size && *n <= size - *start;
}

size_t ol_msgpack_skip(const uint8_t *d, size_t size, size_t at, unsigned depth)
{
	char kind;
	size_t start;
	uint64_t n;

	if (!head(d, size, at, &kind, &start, &n))
		return 0;
	if (kind != 'a' && kind != 'm')
		return start + (size_t)n;
	if (!depth)
		return 0;
	if (kind == 'm')
		n *= 2;
	for (uint64_t i = 0; i < n; i++) {
		start = ol_msgpack_skip(d, size, start, depth - 1);
		if (!start)
			return 0;
	}
	return start;
}

size_t ol_msgpack_string(const uint8_t *d, size_t size, size_t at, const uint8_t **s, size_t *len)
{
	char kind;
	size_t start;
	uint64_t n;

	if (!head(d, size, at, &kind, &start, &n) || kind != 's')
		return 0;
	*s = d + start;
	*len = (size_t)n;
	return start + (size_t)n;
}

static size_t container(const uint8_t *d, size_t size, size_t at, uint32_t *count, char want)
{
	char kind;
	size_t start;
	uint64_t n;

	if (!head(d, size, at, &kind, &start, &n) || kind != want)
		return 0;
	*count = (uint32_t)n;
	return start;
}

size_t ol_msgpack_map(const uint8_t *d, size_t size, size_t at, uint32_t *count)
{
	return container(d, size, at, count, 'm');
}

size_t ol_msgpack_array(const uint8_t *d, size_t size, size_t at, uint32_t *count)
{
	return container(d, size, at, count, 'a');
}

/* A map's or an array's header: the fix form below 16 entries, else the
 * 16- or 32-bit one, whose tags follow the fix form's (0x80: 0xde, 0xdf;
 * 0x90: 0xdc, 0xdd). */
static void put_container(struct strbuf *out, uint8_t fix, uint8_t tag16, uint32_t count)
{
	if (count < 16)
		strbuf_addch(out, fix | (int)count);
	else if (count <= 0xffff)
		put_be(out, tag16, count, 2);
	else
		put_be(out, (uint8_t)(tag16 + 1), count, 4);
}

void ol_msgpack_put_map(struct strbuf *out, uint32_t count)
{
	put_container(out, 0x80, 0xde, count);
}

void ol_msgpack_put_array(struct strbuf *out, uint32_t count)
{
	put_container(out, 0x90, 0xdc, count);
}

void ol_msgpack_put_string(struct strbuf *out, const char *s, size_t len)
{
	if (len < 32)
		strbuf_addch(out, 0xa0 | (int)len);
	else if (len <= 0xff)
		put_be(out, 0xd9, len, 1);
	else if (len <= 0xffff)
		put_be(out, 0xda, len, 2);
	else
		put_be(out, 0xdb, len, 4);
	strbuf_add(out, s, len);
}

/* --- merging ----------------------------------------------------------- */

/* One key of the merged map: the key's bytes, and the first value's. */
struct entry {
	const uint8_t *key, *value;
	size_t key_size, value_size;
	const char *name;     /* key string */
	size_t name_len;
};

static int is_key(const struct entry *e, const char *name)
{
	return e->name_len == strlen(name) && memcmp(e->name, name, e->name_len) == 0;
}

/* A kernel's ".name" (NULL, 0 when it has none). */
static void kernel_name(const uint8_t *d, size_t size, size_t at, const uint8_t **name,
			size_t *len)
{
	uint32_t n;
	size_t p = ol_msgpack_map(d, size, at, &n);

	*name = NULL;
	*len = 0;
	for (uint32_t i = 0; p && i < n; i++) {
		const uint8_t *k;
		size_t klen, v = ol_msgpack_string(d, size, p, &k, &klen);

		if (v && klen == 5 && memcmp(k, ".name", 5) == 0) {
			ol_msgpack_string(d, size, v, name, len);
			return;
		}
		p = v ? ol_msgpack_skip(d, size, v, MAX_DEPTH) : 0;
	}
}

enum { MAX_KEYS = 64, MAX_KERNELS = 1 << 16 };

struct kernel {
	const uint8_t *bytes, *name;
	size_t size, name_len;
};

long ol_amdgpu_metadata_merge(const uint8_t *const *descs, const size_t *sizes, size_t n,
			      struct strbuf *out, const char **why)
{
	struct entry keys[MAX_KEYS];
	size_t nkeys = 0, nkernels = 0, cap = 64;
	struct kernel *kernels = malloc(cap * sizeof(*kernels));
	long rc = -1;

	if (!kernels)
		return ol_format_fail(why, NULL, 0, "out of memory");
	for (size_t m = 0; m < n; m++) {
		const uint8_t *d = descs[m];
		size_t size = sizes[m], p;
		uint32_t count;

		p = ol_msgpack_map(d, size, 0, &count);
		if (!p || ol_msgpack_skip(d, size, 0, MAX_DEPTH) != size) {
			ol_format_fail(why, NULL, m, "metadata %zu is not one MessagePack map", m);
			goto out;
		}
		for (uint32_t i = 0; i < count; i++) {
			struct entry e;
			size_t v = ol_msgpack_string(d, size, p, (const uint8_t **)&e.name, &e.name_len);
			size_t end = v ? ol_msgpack_skip(d, size, v, MAX_DEPTH) : 0;
			size_t k;

			if (!end) {
				ol_format_fail(why, NULL, m, "metadata %zu has a key that is not a string",
					       m);
				goto out;
			}
			e.key = d + p;
			e.key_size = v - p;
			e.value = d + v;
			e.value_size = end - v;
			p = end;
			if (is_key(&e, "amdhsa.kernels")) {
				uint32_t nk;
				size_t q = ol_msgpack_array(d, size, v, &nk);

				if (!q) {
					ol_format_fail(why, NULL, m,
						       "amdhsa.kernels of metadata %zu is not an array", m);
					goto out;
				}
				for (uint32_t j = 0; j < nk; j++) {
					size_t qe = ol_msgpack_skip(d, size, q, MAX_DEPTH);
					struct kernel kn = { d + q, NULL, qe - q, 0 };

					kernel_name(d, size, q, &kn.name, &kn.name_len);
					for (size_t x = 0; kn.name && x < nkernels; x++)
						if (kernels[x].name_len == kn.name_len &&
						    memcmp(kernels[x].name, kn.name, kn.name_len) == 0) {
							ol_format_fail(why, NULL, m,
								       "kernel '%.*s' is in two partitions",
								       (int)kn.name_len, kn.name);
							goto out;
						}
					if (nkernels == cap) {
						struct kernel *more;

						cap *= 2;
						more = cap > MAX_KERNELS ? NULL
							: realloc(kernels, cap * sizeof(*kernels));
						if (!more) {
							ol_format_fail(why, NULL, m, "too many kernels");
							goto out;
						}
						kernels = more;
					}
					kernels[nkernels++] = kn;
					q = qe;
				}
			}
			for (k = 0; k < nkeys; k++)
				if (keys[k].name_len == e.name_len &&
				    memcmp(keys[k].name, e.name, e.name_len) == 0)
					break;
			if (k < nkeys) {
				if (!is_key(&e, "amdhsa.kernels") &&
				    (keys[k].value_size != e.value_size ||
				     memcmp(keys[k].value, e.value, e.value_size) != 0)) {
					ol_format_fail(why, NULL, m, "the partitions' '%.*s' differ",
						       (int)e.name_len, e.name);
					goto out;
				}
				continue;
			}
			if (nkeys == MAX_KEYS) {
				ol_format_fail(why, NULL, m, "too many metadata keys");
				goto out;
			}
			keys[nkeys++] = e;
		}
	}
	ol_msgpack_put_map(out, (uint32_t)nkeys);
	for (size_t k = 0; k < nkeys; k++) {
		strbuf_add(out, keys[k].key, keys[k].key_size);
		if (!is_key(&keys[k], "amdhsa.kernels")) {
			strbuf_add(out, keys[k].value, keys[k].value_size);
			continue;
		}
		ol_msgpack_put_array(out, (uint32_t)nkernels);
		for (size_t x = 0; x < nkernels; x++)
			strbuf_add(out, kernels[x].bytes, kernels[x].size);
	}
	rc = (long)nkernels;
out:
	free(kernels);
	return rc;
}

/* --- the ELF side ------------------------------------------------------ */

static int is_amdgpu_object(const uint8_t *obj, size_t size)
{
	return obj && size >= sizeof(Elf64_Ehdr) && memcmp(obj, ELFMAG, SELFMAG) == 0 &&
	       obj[EI_CLASS] == ELFCLASS64 && obj[EI_DATA] == ELFDATA2LSB &&
	       ol_get16le(obj + offsetof(Elf64_Ehdr, e_machine)) == OL_EM_AMDGPU;
}

int ol_amdgpu_find_note(const uint8_t *obj, size_t size, struct ol_amdgpu_note *out,
			const char **why)
{
	uint64_t shoff, shentsize, shnum;
	int found = 0;

	if (!is_amdgpu_object(obj, size))
		return ol_format_fail(why, NULL, 0, "not a 64-bit AMDGPU ELF object");
	shoff = ol_get64le(obj + offsetof(Elf64_Ehdr, e_shoff));
	shentsize = ol_get16le(obj + offsetof(Elf64_Ehdr, e_shentsize));
	shnum = ol_get16le(obj + offsetof(Elf64_Ehdr, e_shnum));
	if (shnum && (shentsize < sizeof(Elf64_Shdr) || shoff > size ||
		      shnum > (size - shoff) / shentsize))
		return ol_format_fail(why, NULL, offsetof(Elf64_Ehdr, e_shoff),
				      "section headers past the end");
	for (uint64_t i = 0; i < shnum; i++) {
		const uint8_t *sh = obj + shoff + i * shentsize;
		uint64_t off = ol_get64le(sh + offsetof(Elf64_Shdr, sh_offset));
		uint64_t len = ol_get64le(sh + offsetof(Elf64_Shdr, sh_size));
		uint64_t at = 0;
		int notes = 0, ours = 0;

		if (ol_get32le(sh + offsetof(Elf64_Shdr, sh_type)) != SHT_NOTE)
			continue;
		if (off > size || len > size - off)
			return ol_format_fail(why, NULL, shoff + i * shentsize,
					      "note section %" PRIu64 " past the end", i);
		while (at + 12 <= len) {
			const uint8_t *n = obj + off + at;
			uint64_t namesz = ol_get32le(n), descsz = ol_get32le(n + 4);
			uint32_t type = ol_get32le(n + 8);
			uint64_t desc_at = at + 12 + align4(namesz);

			if (desc_at > len || descsz > len - desc_at)
				return ol_format_fail(why, NULL, off + at,
						      "note past the end of its section");
			notes++;
			if (type == OL_NT_AMDGPU_METADATA && namesz == sizeof(amdgpu_owner) &&
			    memcmp(n + 12, amdgpu_owner, sizeof(amdgpu_owner)) == 0) {
				if (found)
					return ol_format_fail(why, NULL, off + at,
							      "two metadata notes");
				found = ours = 1;
				out->section = (size_t)i;
				out->shdr_offset = shoff + i * shentsize;
				out->desc = obj + off + desc_at;
				out->desc_size = (size_t)descsz;
			}
			at = desc_at + align4(descsz);
		}
		if (ours && notes > 1)
			return ol_format_fail(why, NULL, off,
					      "the metadata note shares its section with other notes");
	}
	return found;
}

void ol_amdgpu_exclude_note(uint8_t *obj, size_t size, const struct ol_amdgpu_note *note)
{
	uint8_t *flags = obj + note->shdr_offset + offsetof(Elf64_Shdr, sh_flags);

	if (note->shdr_offset + sizeof(Elf64_Shdr) <= size)
		ol_put64le(flags, ol_get64le(flags) | SHF_EXCLUDE);
}

int ol_amdgpu_note_object(const uint8_t *like, size_t like_size, const uint8_t *desc,
			  size_t desc_size, struct strbuf *out, const char **why)
{
	static const char shstrtab[] = "\0.note\0.shstrtab";  /* 17 bytes with the last NUL */
	uint8_t eh[sizeof(Elf64_Ehdr)], sh[3][sizeof(Elf64_Shdr)], nh[12];
	uint64_t note_at = sizeof(Elf64_Ehdr);
	uint64_t note_size = 12 + align4(sizeof(amdgpu_owner)) + align4(desc_size);
	uint64_t strtab_at = note_at + note_size;
	uint64_t shoff = (strtab_at + sizeof(shstrtab) + 7) & ~(uint64_t)7;
	static const uint8_t zeros[8];

	if (!is_amdgpu_object(like, like_size))
		return ol_format_fail(why, NULL, 0, "not a 64-bit AMDGPU ELF object");
	memset(eh, 0, sizeof(eh));
	memcpy(eh, like, EI_NIDENT);
	ol_put16le(eh + offsetof(Elf64_Ehdr, e_type), ET_REL);
	ol_put16le(eh + offsetof(Elf64_Ehdr, e_machine), OL_EM_AMDGPU);
	ol_put32le(eh + offsetof(Elf64_Ehdr, e_version), EV_CURRENT);
	ol_put64le(eh + offsetof(Elf64_Ehdr, e_shoff), shoff);
	ol_put32le(eh + offsetof(Elf64_Ehdr, e_flags),
		   ol_get32le(like + offsetof(Elf64_Ehdr, e_flags)));
	ol_put16le(eh + offsetof(Elf64_Ehdr, e_ehsize), sizeof(Elf64_Ehdr));
	ol_put16le(eh + offsetof(Elf64_Ehdr, e_shentsize), sizeof(Elf64_Shdr));
	ol_put16le(eh + offsetof(Elf64_Ehdr, e_shnum), 3);
	ol_put16le(eh + offsetof(Elf64_Ehdr, e_shstrndx), 2);

	memset(sh, 0, sizeof(sh));
	ol_put32le(sh[1] + offsetof(Elf64_Shdr, sh_name), 1);
	ol_put32le(sh[1] + offsetof(Elf64_Shdr, sh_type), SHT_NOTE);
	ol_put64le(sh[1] + offsetof(Elf64_Shdr, sh_flags), SHF_ALLOC);
	ol_put64le(sh[1] + offsetof(Elf64_Shdr, sh_offset), note_at);
	ol_put64le(sh[1] + offsetof(Elf64_Shdr, sh_size), note_size);
	ol_put64le(sh[1] + offsetof(Elf64_Shdr, sh_addralign), 4);
	ol_put32le(sh[2] + offsetof(Elf64_Shdr, sh_name), 7);
	ol_put32le(sh[2] + offsetof(Elf64_Shdr, sh_type), SHT_STRTAB);
	ol_put64le(sh[2] + offsetof(Elf64_Shdr, sh_offset), strtab_at);
	ol_put64le(sh[2] + offsetof(Elf64_Shdr, sh_size), sizeof(shstrtab));
	ol_put64le(sh[2] + offsetof(Elf64_Shdr, sh_addralign), 1);

	ol_put32le(nh, sizeof(amdgpu_owner));
	ol_put32le(nh + 4, (uint32_t)desc_size);
	ol_put32le(nh + 8, OL_NT_AMDGPU_METADATA);

	strbuf_add(out, eh, sizeof(eh));
	strbuf_add(out, nh, sizeof(nh));
	strbuf_add(out, amdgpu_owner, sizeof(amdgpu_owner));
	strbuf_add(out, zeros, align4(sizeof(amdgpu_owner)) - sizeof(amdgpu_owner));
	strbuf_add(out, desc, desc_size);
	strbuf_add(out, zeros, align4(desc_size) - desc_size);
	strbuf_add(out, shstrtab, sizeof(shstrtab));
	strbuf_add(out, zeros, shoff - strtab_at - sizeof(shstrtab));
	strbuf_add(out, sh, sizeof(sh));
	return 0;
}

/* --- what keeps partitions' objects from being compiled apart ---------- */

/* The symbol table of an object: its entries and string table, or 0. */
static int symtab(const uint8_t *obj, size_t size, const uint8_t **syms, uint64_t *nsyms,
		  const char **strs, uint64_t *strs_size)
{
	uint64_t shoff, shentsize, shnum;

	if (!is_amdgpu_object(obj, size))
		return 0;
	shoff = ol_get64le(obj + offsetof(Elf64_Ehdr, e_shoff));
	shentsize = ol_get16le(obj + offsetof(Elf64_Ehdr, e_shentsize));
	shnum = ol_get16le(obj + offsetof(Elf64_Ehdr, e_shnum));
	if (!shnum || shentsize < sizeof(Elf64_Shdr) || shoff > size ||
	    shnum > (size - shoff) / shentsize)
		return 0;
	for (uint64_t i = 0; i < shnum; i++) {
		const uint8_t *sh = obj + shoff + i * shentsize, *st;
		uint64_t off = ol_get64le(sh + offsetof(Elf64_Shdr, sh_offset));
		uint64_t len = ol_get64le(sh + offsetof(Elf64_Shdr, sh_size));
		uint64_t link = ol_get32le(sh + offsetof(Elf64_Shdr, sh_link)), soff, slen;

		if (ol_get32le(sh + offsetof(Elf64_Shdr, sh_type)) != SHT_SYMTAB)
			continue;
		if (off > size || len > size - off || link >= shnum)
			return 0;
		st = obj + shoff + link * shentsize;
		soff = ol_get64le(st + offsetof(Elf64_Shdr, sh_offset));
		slen = ol_get64le(st + offsetof(Elf64_Shdr, sh_size));
		if (soff > size || slen > size - soff || !slen || obj[soff + slen - 1] != 0)
			return 0;
		*syms = obj + off;
		*nsyms = len / sizeof(Elf64_Sym);
		*strs = (const char *)obj + soff;
		*strs_size = slen;
		return 1;
	}
	return 0;
}

static const char *sym_name(const uint8_t *sym, const char *strs, uint64_t strs_size)
{
	uint32_t name = ol_get32le(sym + offsetof(Elf64_Sym, st_name));

	return name < strs_size ? strs + name : "";
}

int ol_amdgpu_calls_across(const uint8_t *const *objs, const size_t *sizes, size_t n,
			   const char **name, size_t *user)
{
	for (size_t a = 0; a < n; a++) {
		const uint8_t *syms;
		uint64_t nsyms, slen;
		const char *strs;

		if (!symtab(objs[a], sizes[a], &syms, &nsyms, &strs, &slen))
			continue;
		for (uint64_t i = 1; i < nsyms; i++) {
			const uint8_t *s = syms + i * sizeof(Elf64_Sym);
			const char *undef = sym_name(s, strs, slen);

			if (ol_get16le(s + offsetof(Elf64_Sym, st_shndx)) != SHN_UNDEF || !*undef)
				continue;
			for (size_t b = 0; b < n; b++) {
				const uint8_t *dsyms;
				uint64_t dn, dlen;
				const char *dstrs;

				if (b == a || !symtab(objs[b], sizes[b], &dsyms, &dn, &dstrs, &dlen))
					continue;
				for (uint64_t j = 1; j < dn; j++) {
					const uint8_t *d = dsyms + j * sizeof(Elf64_Sym);

					if (ELF64_ST_TYPE(d[offsetof(Elf64_Sym, st_info)]) == STT_FUNC &&
					    ol_get16le(d + offsetof(Elf64_Sym, st_shndx)) != SHN_UNDEF &&
					    strcmp(sym_name(d, dstrs, dlen), undef) == 0) {
						*name = undef;
						*user = a;
						return 1;
					}
				}
			}
		}
	}
	return 0;
}

long ol_amdgpu_dynamic_stack_kernel(const uint8_t *desc, size_t size, const uint8_t **name,
				    size_t *name_len)
{
	uint32_t count, nk;
	size_t p = ol_msgpack_map(desc, size, 0, &count);

	for (uint32_t i = 0; p && i < count; i++) {
		const uint8_t *k;
		size_t klen, v = ol_msgpack_string(desc, size, p, &k, &klen);

		if (!v)
			return -1;
		if (klen != 14 || memcmp(k, "amdhsa.kernels", 14) != 0) {
			p = ol_msgpack_skip(desc, size, v, MAX_DEPTH);
			continue;
		}
		p = ol_msgpack_array(desc, size, v, &nk);
		for (uint32_t j = 0; p && j < nk; j++) {
			uint32_t nf;
			size_t f = ol_msgpack_map(desc, size, p, &nf);
			int dynamic = 1;

			for (uint32_t x = 0; f && x < nf; x++) {
				const uint8_t *fk;
				size_t fklen, fv = ol_msgpack_string(desc, size, f, &fk, &fklen);

				if (!fv)
					return -1;
				if (fklen == 19 && memcmp(fk, ".uses_dynamic_stack", 19) == 0)
					dynamic = fv < size && desc[fv] != 0xc2;  /* not false */
				f = ol_msgpack_skip(desc, size, fv, MAX_DEPTH);
			}
			if (!f)
				return -1;
			if (dynamic) {
				kernel_name(desc, size, p, name, name_len);
				return 1;
			}
			p = ol_msgpack_skip(desc, size, p, MAX_DEPTH);
		}
		return p ? 0 : -1;
	}
	return p ? 0 : -1;
}
