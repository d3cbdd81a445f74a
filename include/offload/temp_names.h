/*
 * temp_names: what the user has in place of our temp files.
 *
 * A device linker, ptxas or the host linker that fails names the files it
 * was given: device images we wrote to "$TMPDIR/k-x86_64-...-Ab12Cd.o",
 * removed when the link ends.  Each such file is described when written
 * ("libk.a(k2.o) [x86_64-unknown-linux-gnu generic image,
 * .llvm.offloading+0x0]"), and the tool's output is rewritten with the
 * descriptions before it is shown (spawn.c).  Under --save-temps the files
 * stay, so their names are left as they are.
 *
 * Thread safe: device links write and run on worker threads.
 */
#ifndef OFFLOAD_TEMP_NAMES_H
#define OFFLOAD_TEMP_NAMES_H

#include <stddef.h>

#include "offload/diag.h"

/* Off under --save-temps (the temp files are kept for the user). */
void ol_temp_names_enable(int on);
/* Show `path` as the description printf makes (escaped: it carries input
 * bytes).  Nothing when disabled or path is NULL. */
void ol_temp_name_describe(const char *path, const char *fmt, ...) OL_PRINTF(2, 3);
/* `text` with every described path replaced by its description: a malloc'd
 * copy (*out_len bytes, NUL-terminated), or NULL when nothing matched. */
char *ol_temp_names_rewrite(const char *text, size_t len, size_t *out_len);

#endif
