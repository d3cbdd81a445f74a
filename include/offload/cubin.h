/*
 * cubin: what the header and the notes of a CUDA ELF image ("cubin") say
 * about its layout and about the tools that made it.  Pure functions over
 * (pointer, length); nothing is allocated, every string returned points into
 * the image.
 *
 * CUDA's ELF ABI version (e_ident[EI_ABIVERSION]) decides where e_flags keeps
 * the SM number: version 7 in the low byte (sm_90: 0x5a, 64-bit addressing in
 * 0x400), version 8, which the ptxas and nvlink of CUDA 13 write for every
 * GPU, in bits 8-15 (sm_90: 0x06005a04).  LLVM reads any version but 7 the
 * second way (ELFObjectFileBase::getNVPTXCPUName), and so do we.
 */
#ifndef OFFLOAD_CUBIN_H
#define OFFLOAD_CUBIN_H

#include <stddef.h>
#include <stdint.h>

enum {
	OL_CUDA_ELF_ABI_V1 = 7,   /* SM number in e_flags bits 0-7 */
	OL_CUDA_ELF_ABI_V2 = 8,   /* SM number in e_flags bits 8-15 */
};

struct ol_cubin_header {
	unsigned abi_version;     /* e_ident[EI_ABIVERSION] */
	unsigned sm;              /* 90 for sm_90 */
	int accelerated;          /* the "a" variants (sm_90a) */
	uint32_t flags;           /* e_flags as they are */
	uint16_t type;            /* ET_REL, ET_EXEC */
};

/* Reads the header of a 64-bit little-endian EM_CUDA ELF image.  Returns 0,
 * or -1 when the bytes are not one (nothing written then). */
int ol_cubin_read_header(const uint8_t *data, size_t size, struct ol_cubin_header *out);

/* A tool that wrote or linked the image, as recorded in its
 * .note.nv.tkinfo notes ("NVIDIA Corp", type 2000): name "nvlink" or
 * "ptxas", version "Cuda compilation tools, release 13.0, V13.0.88". */
struct ol_cubin_tool {
	const char *name;
	size_t name_len;
	const char *version;
	size_t version_len;
};

/* The tools recorded in the image's notes, in the order of the notes, at
 * most `max` of them written to `out`.  Returns how many the image records
 * (0 for an image without such notes or not a cubin); a note that does not
 * fit its section or whose strings are not terminated inside it is skipped. */
size_t ol_cubin_tools(const uint8_t *data, size_t size, struct ol_cubin_tool *out, size_t max);

/* The last part of a tool's version line, what follows its last ", "
 * ("V13.0.88"), or the whole line when it has none; its length in *len. */
const char *ol_cubin_tool_release(const struct ol_cubin_tool *tool, size_t *len);

#endif
