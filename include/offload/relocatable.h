/*
 * relocatable: the last stage of a relocatable link (-r) that carried device
 * code.  The host linker has merged the inputs and the registration object
 * into one object, which registers its linked images itself when the program
 * starts.  Whatever a later link would extract or register a second time is
 * taken out of it:
 *   - the inputs' ".llvm.offloading" sections (the device code just linked);
 *   - each entries section of the flavor (entries_sections.h), renamed with
 *     its __start_/__stop_ symbols to "<name>_<hex of the output's MD5 low
 *     word>", as upstream (spec 6.1): the wrapper of a later link brackets
 *     only its own entries, and two such objects in one link keep theirs
 *     apart.
 * The registration object's images are already in a section no wrapper reads
 * (OL_RELOCATABLE_IMAGES_SECTION, backend.h).
 *
 * llvm-objcopy makes the edit, as upstream does; it is looked up next to this
 * program, in LLVM's bin directory (OL_LLVM_BINDIR), then on $PATH.  It
 * writes a temp file beside the output, renamed over it at the end; until
 * then the linker's output counts as a temp file, so a failure (or a signal)
 * leaves no output.  Under --dry-run the command is only printed, with the
 * hash of no bytes, as upstream prints it.
 */
#ifndef OFFLOAD_RELOCATABLE_H
#define OFFLOAD_RELOCATABLE_H

#include "offload/cmdline.h"

/* Upstream refuses -r for COFF hosts (spec 6.1 item 3), after linking; this
 * says so before anything runs.  Returns 0, or -1 after reporting. */
int ol_relocatable_check(const struct ol_cmdline *cl);

/* Edits cl->output in place, atomically.  Returns 0, or 1 after reporting. */
int ol_relocatable_finish(const struct ol_cmdline *cl, enum ol_flavor flavor);

#endif
