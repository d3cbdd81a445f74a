/*
 * harness: what the fuzz harnesses share.  Each harness is one file with
 * LLVMFuzzerTestOneInput, built two ways: with libFuzzer (libfuzzer/, clang
 * -fsanitize=fuzzer) to search, and with replay.c in every build to run the
 * checked-in corpus under ctest.
 *
 * A harness runs the tool's own code on the bytes as the tool runs it on an
 * untrusted file, then touches every view the code handed back (strings to
 * their NUL, payloads to their last byte) the way later stages would, so a
 * view past the input is an ASan report here and not a crash in a link.
 */
#ifndef OL_FUZZ_HARNESS_H
#define OL_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

struct ol_offload_binary;
struct ol_device_image;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Messages go to a buffer that is dropped (a fuzzer reports millions of
 * errors); ol_fuzz_end() also frees the link arena and the mapped files so
 * that one input's memory is not the next one's leak. */
void ol_fuzz_begin(void);
void ol_fuzz_end(void);

/* Reads every byte of a view. */
void ol_fuzz_touch(const void *data, size_t size);
/* What the later stages read of an offload binary: its strings, the keys
 * they look up, the SYCL symbol list, the image bytes; a fatbinary image is
 * parsed as the NVPTX link checks it. */
void ol_fuzz_use_binary(const struct ol_offload_binary *bin);
/* The same for an image the scanner kept, plus its device symbols when the
 * payload is an ELF object (resolve reads them). */
void ol_fuzz_use_image(struct ol_device_image *img);

#endif
