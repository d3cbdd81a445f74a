/*
 * amdgpu_note: the code object metadata note of AMDGPU objects
 * (NT_AMDGPU_METADATA, owner "AMDGPU", a MessagePack map: amdhsa.version,
 * amdhsa.target, amdhsa.kernels, ...), for linking separately compiled
 * partitions into one code object with one note.  ld.lld keeps every input's
 * note; the note of the partitions' objects is merged here, their own notes
 * are marked SHF_EXCLUDE (which ld.lld drops outside -r), and one small
 * relocatable object holds the merged note.  Pure functions over (pointer,
 * length); output goes to a strbuf.
 */
#ifndef OFFLOAD_AMDGPU_NOTE_H
#define OFFLOAD_AMDGPU_NOTE_H

#include <stddef.h>
#include <stdint.h>

#include "offload/strvec.h"

enum {
	OL_EM_AMDGPU = 224,
	OL_NT_AMDGPU_METADATA = 32,
};

/* Where an object's metadata note is: its section (which holds that note
 * and no other), the offset of that section's header, and the note's
 * MessagePack description. */
struct ol_amdgpu_note {
	size_t section;           /* section index */
	uint64_t shdr_offset;     /* file offset of the section header */
	const uint8_t *desc;      /* points into the object */
	size_t desc_size;
};

/* Finds the NT_AMDGPU_METADATA note of a 64-bit little-endian AMDGPU ELF
 * object.  Returns 1 (found, *out filled), 0 (none), or -1 with *why: not
 * such an object, a malformed section or note, more than one metadata note,
 * or a metadata note sharing its section with another note. */
int ol_amdgpu_find_note(const uint8_t *obj, size_t size, struct ol_amdgpu_note *out,
			const char **why);

/* Sets SHF_EXCLUDE on the note's section, in place, so that a link drops it. */
void ol_amdgpu_exclude_note(uint8_t *obj, size_t size, const struct ol_amdgpu_note *note);

/* Merges n metadata maps into one, appended to out: the kernels of every
 * map, in order, in one amdhsa.kernels array; every other key once, its
 * value byte for byte the same in every map that has it.  The keys come in
 * the order they are first seen.  Returns the number of kernels, or -1 with
 * *why (malformed MessagePack, a top level that is not a map, keys that
 * disagree, one kernel name twice); out is then unchanged. */
long ol_amdgpu_metadata_merge(const uint8_t *const *descs, const size_t *sizes, size_t n,
			      struct strbuf *out, const char **why);

/* Appends to out a relocatable ELF object with one allocated SHT_NOTE
 * section ".note" (4-byte aligned) holding one NT_AMDGPU_METADATA note whose
 * description is desc; its ELF identification, machine and flags are those
 * of `like` (one of the objects it is linked with: ld.lld wants them to
 * agree).  Returns 0, or -1 with *why when `like` is not an AMDGPU object. */
int ol_amdgpu_note_object(const uint8_t *like, size_t like_size, const uint8_t *desc,
			  size_t desc_size, struct strbuf *out, const char **why);

/* Whether one object calls (or takes the address of) a function another
 * defines: an undefined symbol of objs[*user] that another object defines as
 * STT_FUNC, named in *name (pointing into that object).  Such a call is
 * compiled with guessed resources (LLVM reads a callee's registers and stack
 * only within its module).  Returns 1 or 0. */
int ol_amdgpu_calls_across(const uint8_t *const *objs, const size_t *sizes, size_t n,
			   const char **name, size_t *user);

/* Whether a kernel of the metadata may use a dynamic stack
 * (.uses_dynamic_stack true, or not said): a call through a pointer, to an
 * unknown function, recursion, whose registers LLVM takes from the functions
 * of the kernel's module only.  Returns 1 (its .name in *name, *name_len,
 * NULL when it has none), 0, or -1 when the metadata is malformed. */
long ol_amdgpu_dynamic_stack_kernel(const uint8_t *desc, size_t size, const uint8_t **name,
				    size_t *name_len);

/* MessagePack, as far as the note needs it.  The end of the value at
 * data[at] (at most `depth` containers deep), or 0 when it is malformed or
 * runs past size. */
size_t ol_msgpack_skip(const uint8_t *data, size_t size, size_t at, unsigned depth);
/* The string at data[at]: its bytes in *s and *len; returns the end, or 0
 * when it is not a string. */
size_t ol_msgpack_string(const uint8_t *data, size_t size, size_t at, const uint8_t **s,
			 size_t *len);
/* A container header at data[at] (map: pairs; array: elements): the count in
 * *count; returns where its contents start, or 0 when it is not one. */
size_t ol_msgpack_map(const uint8_t *data, size_t size, size_t at, uint32_t *count);
size_t ol_msgpack_array(const uint8_t *data, size_t size, size_t at, uint32_t *count);
/* Append a header or a string in the smallest encoding. */
void ol_msgpack_put_map(struct strbuf *out, uint32_t count);
void ol_msgpack_put_array(struct strbuf *out, uint32_t count);
void ol_msgpack_put_string(struct strbuf *out, const char *s, size_t len);

#endif
