/*
 * files: how the cache writes a file (whole, or not at all: a temp file in
 * <dir>/tmp renamed into place) and what it does when a write fails (one
 * warning per cause and link; no more writes once the disk is full).
 */
#include "cache_impl.h"
#include "offload/diag.h"
#include "offload/tempfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Writes data under a temp name in <dir>/tmp, flushes it to the disk, and
 * renames it to `path`: other processes see the whole file or none.
 * Returns 0, or the errno of the first call that failed (the cleanup's
 * close and unlink must not replace it). */
int ol_cache_write_whole(struct ol_cache *c, const char *path, const void *head, size_t head_size,
			 const void *data, size_t size)
{
	char *tmp = ol_xasprintf("%s/%ld.XXXXXX", c->tmp, (long)getpid());
	int fd = mkostemp(tmp, O_CLOEXEC), err = 0;

	if (fd < 0) {
		err = errno;
		free(tmp);
		return err;
	}
	/* A link ended by a signal meanwhile removes it, as any temp file. */
	ol_temp_register(tmp);
	err = ol_write_all(fd, head, head_size);
	if (!err)
		err = ol_write_all(fd, data, size);
	if (!err && fsync(fd) < 0)
		err = errno;
	if (close(fd) < 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) < 0)
		err = errno;
	if (err)
		unlink(tmp);
	ol_temp_forget(tmp);
	free(tmp);
	return err;
}

int ol_cache_writable(const struct ol_cache *c)
{
	return !c->full;
}

void ol_cache_write_failed(struct ol_cache *c, const char *path, int err)
{
	char cause[OL_IO_CAUSE_SIZE];

	if (err == ENOSPC
#ifdef EDQUOT
	    || err == EDQUOT
#endif
	)
		c->full = 1;
	if (err == c->warned_errno)
		return;
	c->warned_errno = err;
	ol_warn("device-link cache: cannot store '%s': %s", path,
		ol_io_cause(err, "the cache", cause, sizeof(cause)));
}
