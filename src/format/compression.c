/*
 * compression: zlib and zstd as llvm::compression uses them.  See
 * compression.h.
 */
#include "compression.h"
#include "offload/diag.h"
#include "format_internal.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

/* zstd::compress: long-distance matching as asked (the bundler asks for
 * it), the level, ZSTD_compress2 into a ZSTD_compressBound buffer. */
static uint8_t *zstd_compress(const uint8_t *data, size_t size, int level, int long_distance,
			      size_t *size_out, const char **why)
{
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	size_t bound = ZSTD_compressBound(size), n;
	uint8_t *out;

	if (!cctx)
		ol_fatal("out of memory");
	if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_enableLongDistanceMatching, long_distance)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level))) {
		ZSTD_freeCCtx(cctx);
		ol_format_fail(why, NULL, 0, "zstd rejected compression level %d", level);
		return NULL;
	}
	out = ol_xmalloc(bound ? bound : 1);
	n = ZSTD_compress2(cctx, out, bound, data, size);
	ZSTD_freeCCtx(cctx);
	if (ZSTD_isError(n)) {
		free(out);
		ol_format_fail(why, NULL, 0, "zstd compression failed: %s", ZSTD_getErrorName(n));
		return NULL;
	}
	*size_out = n;
	return out;
}

static int zstd_decompress(const uint8_t *stream, size_t stream_size, uint8_t *out,
			   size_t capacity, size_t *produced, const char **why, size_t *at)
{
	size_t n = ZSTD_decompress(out, capacity, stream, stream_size);

	if (ZSTD_isError(n)) {
		if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall) {
			*produced = capacity;   /* more than declared */
			return 0;
		}
		*at = 0;
		return ol_format_fail(why, NULL, 0, "corrupt zstd stream: %s", ZSTD_getErrorName(n));
	}
	*produced = n;
	return 0;
}

/* zlib::compress: compress2 with the level into a compressBound buffer. */
static uint8_t *zlib_compress(const uint8_t *data, size_t size, int level, int long_distance,
			      size_t *size_out, const char **why)
{
	uLongf n = compressBound((uLong)size);
	uint8_t *out = ol_xmalloc(n);
	int rc = compress2(out, &n, data, (uLong)size, level);

	(void)long_distance;   /* a zstd setting */
	if (rc != Z_OK) {
		free(out);
		if (rc == Z_MEM_ERROR)
			ol_fatal("out of memory");
		ol_format_fail(why, NULL, 0, "zlib rejected compression level %d (0 to 9, or -1)",
			       level);
		return NULL;
	}
	*size_out = n;
	return out;
}

static int zlib_decompress(const uint8_t *stream, size_t stream_size, uint8_t *out,
			   size_t capacity, size_t *produced, const char **why, size_t *at)
{
	const size_t chunk = (size_t)1 << 30;   /* avail_in/avail_out are uInt */
	z_stream zs;
	int rc;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		ol_fatal("out of memory");
	zs.next_in = (Bytef *)(uintptr_t)stream;
	zs.next_out = out;
	do {
		size_t in_left = stream_size - (size_t)zs.total_in;
		size_t out_left = capacity - (size_t)zs.total_out;

		zs.avail_in = (uInt)(in_left < chunk ? in_left : chunk);
		zs.avail_out = (uInt)(out_left < chunk ? out_left : chunk);
		rc = inflate(&zs, Z_NO_FLUSH);
		if (rc == Z_BUF_ERROR && zs.total_out == capacity)
			break;   /* more than declared */
		if (rc == Z_BUF_ERROR && zs.total_in == stream_size) {
			*at = stream_size;
			inflateEnd(&zs);
			return ol_format_fail(why, NULL, 0, "truncated zlib stream");
		}
		if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR) {
			*at = (size_t)zs.total_in;
			ol_format_fail(why, NULL, 0, "corrupt zlib stream: %s",
				       zs.msg ? zs.msg : "needs a dictionary");
			inflateEnd(&zs);
			return -1;
		}
		if (rc == Z_MEM_ERROR)
			ol_fatal("out of memory");
	} while (rc != Z_STREAM_END);
	*produced = (size_t)zs.total_out;
	if (rc == Z_STREAM_END && zs.total_in != stream_size) {
		*at = (size_t)zs.total_in;
		ol_format_fail(why, NULL, 0, "%zu bytes follow the end of the zlib stream",
			       stream_size - (size_t)zs.total_in);
		inflateEnd(&zs);
		return -1;
	}
	inflateEnd(&zs);
	return 0;
}

static const struct ol_compression_method methods[] = {
	[OL_COMPRESS_ZLIB] = { "zlib", 6, 1032, zlib_compress, zlib_decompress },
	[OL_COMPRESS_ZSTD] = { "zstd", 3, 32768, zstd_compress, zstd_decompress },
};

const struct ol_compression_method *ol_compression_method(unsigned method)
{
	return method < sizeof(methods) / sizeof(methods[0]) ? &methods[method] : NULL;
}

enum ol_compression_format ol_compression_sniff(const uint8_t *stream, size_t size)
{
	static const uint8_t zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

	return size >= 4 && memcmp(stream, zstd_magic, 4) == 0 ? OL_COMPRESS_ZSTD
							      : OL_COMPRESS_ZLIB;
}
