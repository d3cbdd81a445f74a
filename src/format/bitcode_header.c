/* bitcode_header: the magic and wrapper header of bitcode.  See offload/bitcode_header.h. */
#include "offload/bitcode_header.h"
#include "format_internal.h"

#include <inttypes.h>
#include <string.h>

enum {
	WRAPPER_OFFSET = 8, WRAPPER_SIZE = 12, WRAPPER_HEADER_SIZE = 20,
};

static int raw_magic(const uint8_t *data, size_t size)
{
	return size >= 4 && !memcmp(data, "BC\xc0\xde", 4);
}

static int wrapper_magic(const uint8_t *data, size_t size)
{
	return size >= 4 && !memcmp(data, "\xde\xc0\x17\x0b", 4);
}

int ol_bitcode_magic(const uint8_t *data, size_t size)
{
	return raw_magic(data, size) || wrapper_magic(data, size);
}

int ol_bitcode_header_check(const uint8_t *data, size_t size, const char **why,
			    uint64_t *bad_offset)
{
	uint64_t offset, length;

	if (raw_magic(data, size))
		return 0;
	if (!wrapper_magic(data, size))
		return ol_format_fail(why, bad_offset, 0, "not LLVM bitcode (bad magic)");
	if (size < WRAPPER_HEADER_SIZE)
		return ol_format_fail(why, bad_offset, 0,
				      "truncated bitcode wrapper header (%zu of %d bytes)", size,
				      WRAPPER_HEADER_SIZE);
	offset = ol_get32le(data + WRAPPER_OFFSET);
	length = ol_get32le(data + WRAPPER_SIZE);
	if (offset > size || length > size - offset)
		return ol_format_fail(why, bad_offset, WRAPPER_OFFSET,
				      "bitcode (offset 0x%" PRIx64 ", size %" PRIu64
				      ") is outside the wrapper of %zu bytes", offset, length, size);
	if (!raw_magic(data + offset, (size_t)length))
		return ol_format_fail(why, bad_offset, offset,
				      "the bitcode wrapper holds no bitcode (bad magic)");
	return 0;
}
