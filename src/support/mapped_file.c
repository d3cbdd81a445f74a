/* mapped_file: read-only mappings of inputs, kept until exit.  See offload/mapped_file.h. */
#include "offload/mapped_file.h"
#include "offload/arena.h"
#include "offload/diag.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static struct ol_mapped_file *mapped_files;

struct ol_mapped_file *ol_map_file(const char *path)
{
	struct ol_mapped_file *mf;
	struct stat st;
	void *data = NULL;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		int saved = errno;
		close(fd);
		errno = saved;
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return NULL;
	}
	for (mf = mapped_files; mf; mf = mf->next) {
		if (mf->dev == (unsigned long long)st.st_dev && mf->ino == (unsigned long long)st.st_ino) {
			close(fd);
			return mf;
		}
	}
	if (st.st_size > 0) {
		data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (data == MAP_FAILED) {
			int saved = errno;
			close(fd);
			errno = saved;
			return NULL;
		}
	}
	close(fd);
	mf = ol_arena_alloc(&ol_link_arena, sizeof(*mf));
	mf->path = ol_arena_strdup(&ol_link_arena, path);
	mf->data = data;
	mf->size = (size_t)st.st_size;
	mf->dev = (unsigned long long)st.st_dev;
	mf->ino = (unsigned long long)st.st_ino;
	mf->next = mapped_files;
	mapped_files = mf;
	return mf;
}

void ol_mapped_release_all(void)
{
	for (struct ol_mapped_file *mf = mapped_files; mf; mf = mf->next) {
		if (mf->data)
			munmap((void *)mf->data, mf->size);
		mf->data = NULL;
	}
	mapped_files = NULL;
}
