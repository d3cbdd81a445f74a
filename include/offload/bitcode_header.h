/*
 * bitcode_header: the outer layer of an LLVM bitcode file, checked before
 * any of it reaches LLVM's reader: the magic, and the wrapper header that
 * Darwin-style and some embedded bitcode carry in front
 * (0x0B17C0DE, version, offset, size, cputype; 20 bytes, little-endian).
 * What is inside (the IR) is the backend's to read.
 */
#ifndef OFFLOAD_BITCODE_HEADER_H
#define OFFLOAD_BITCODE_HEADER_H

#include <stddef.h>
#include <stdint.h>

/* Does data start like bitcode (raw magic or wrapper magic)? */
int ol_bitcode_magic(const uint8_t *data, size_t size);

/* 0 when data is raw bitcode or a wrapper whose bitcode lies inside data
 * and starts with the magic; else -1 with the reason in *why and the offset
 * of the bad field in *bad_offset (ol_format_fail). */
int ol_bitcode_header_check(const uint8_t *data, size_t size, const char **why,
			    uint64_t *bad_offset);

#endif
