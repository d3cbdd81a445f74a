/* mapped_file: read-only mappings of inputs, kept until exit.  See offload/mapped_file.h. */
#include "offload/mapped_file.h"
#include "offload/arena.h"
#include "offload/diag.h"
#include "offload/hashtab.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Small inputs are read, not mapped.  A link line is mostly small objects
 * (a few KB) that need only their headers checked, and on the machines
 * measured an mmap costs about 5 us per file against under 1 us for a
 * read(2) of a page: for 200 objects that is 1 ms of a plain link's
 * budget.  Anything larger (archives, fat objects with real device code)
 * is mapped and never copied.
 */
#define READ_LIMIT (32 * 1024)

/*
 * The table: every record on a list, and two open-addressing indexes, by
 * path (naming a file again costs no system call) and by device and inode
 * (one file named two ways is mapped once).  Records and small files' bytes
 * live in the table's own arena.
 */
/* The records by path (each spelling that was looked up: a file named two
 * ways has two entries, one record) and by identity (offload/hashtab.h). */
struct by_path_entry {
	const char *path;
	struct ol_mapped_file *mf;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ol_arena table_arena;
static struct ol_mapped_file *mapped_files;
static struct ol_hashtab by_path = OL_HASHTAB_INIT(struct by_path_entry);
static struct ol_hashtab by_identity = OL_HASHTAB_INIT(struct ol_mapped_file *);

struct identity_key {
	unsigned long long dev, ino;
};

static uint64_t identity_hash(const struct identity_key *key)
{
	return ol_hash_bytes(ol_hash_bytes(OL_HASH_SEED, &key->dev, sizeof(key->dev)), &key->ino,
			     sizeof(key->ino));
}

static int path_is(const void *record, const void *path)
{
	return strcmp(((const struct by_path_entry *)record)->path, path) == 0;
}

static int identity_is(const void *record, const void *key)
{
	const struct ol_mapped_file *mf = *(struct ol_mapped_file *const *)record;
	const struct identity_key *k = key;

	return mf->dev == k->dev && mf->ino == k->ino;
}

static struct ol_mapped_file *find_path(const char *path)
{
	const struct by_path_entry *e = ol_hashtab_find(&by_path, ol_hash_string(path), path_is, path);

	return e ? e->mf : NULL;
}

static struct ol_mapped_file *find_identity(const struct stat *st)
{
	struct identity_key key = { (unsigned long long)st->st_dev, (unsigned long long)st->st_ino };
	struct ol_mapped_file *const *found =
		ol_hashtab_find(&by_identity, identity_hash(&key), identity_is, &key);

	return found ? *found : NULL;
}

/* Index `mf` under `path` too (another spelling maps to the same record),
 * unless that spelling is there already (both threads may get here). */
static void index_path(struct ol_mapped_file *mf, const char *path)
{
	int added;
	struct by_path_entry *e = ol_hashtab_insert(&by_path, ol_hash_string(path), path_is, path,
						    &added);

	if (!added)
		return;
	e->path = ol_arena_strdup(&table_arena, path);
	e->mf = mf;
}

/* The file's bytes: read into the arena when small, else mapped. */

/* size bytes from the start of fd; -1 with errno set (EIO when the file
 * shrank under us). */
static int read_fully(int fd, void *buf, size_t size)
{
	for (size_t done = 0; done < size;) {
		ssize_t n = pread(fd, (char *)buf + done, size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

static const void *load(int fd, size_t size, int *mapped)
{
	void *data;

	*mapped = size > READ_LIMIT;
	if (*mapped) {
		data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
		return data == MAP_FAILED ? NULL : data;
	}
	pthread_mutex_lock(&table_lock);
	data = ol_arena_alloc(&table_arena, size);
	pthread_mutex_unlock(&table_lock);
	return read_fully(fd, (void *)data, size) < 0 ? NULL : data;
}

int ol_not_regular_errno(unsigned mode)
{
	return S_ISDIR(mode) ? EISDIR : S_ISFIFO(mode) || S_ISSOCK(mode) ? ESPIPE : EINVAL;
}

int ol_error_not_readable_to_end(const char *path, const char *what)
{
	/* Reading one would wait for a writer, perhaps forever (the host
	 * linker too, for an input). */
	return ol_error("'%s' is a FIFO or socket, not a file: a %s must be readable to its end",
			path, what);
}

struct ol_mapped_file *ol_map_file_reported(const char *path, const char *what)
{
	struct ol_mapped_file *mf = ol_map_file(path);

	if (!mf) {
		if (errno == ESPIPE)
			ol_error_not_readable_to_end(path, what);
		else
			ol_error("cannot open '%s': %s", path, strerror(errno));
	}
	return mf;
}

struct ol_mapped_file *ol_map_file(const char *path)
{
	struct ol_mapped_file *mf;
	const void *data = NULL;
	struct stat st;
	int fd, mapped = 0;

	pthread_mutex_lock(&table_lock);
	mf = find_path(path);
	pthread_mutex_unlock(&table_lock);
	if (mf)
		return mf;
	/* O_NONBLOCK: opening a FIFO with no writer would wait forever; only
	 * regular files are taken (below), and for them it changes nothing. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
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
		errno = ol_not_regular_errno(st.st_mode);
		return NULL;
	}
	pthread_mutex_lock(&table_lock);
	mf = find_identity(&st);
	if (mf)
		index_path(mf, path);
	pthread_mutex_unlock(&table_lock);
	if (mf) {
		close(fd);
		return mf;
	}
	if (st.st_size > 0 && !(data = load(fd, (size_t)st.st_size, &mapped))) {
		int saved = errno;
		close(fd);
		errno = saved;
		return NULL;
	}
	close(fd);
	pthread_mutex_lock(&table_lock);
	mf = find_identity(&st);   /* the read-ahead thread may have been quicker */
	if (mf) {
		index_path(mf, path);
	} else {
		mf = ol_arena_alloc(&table_arena, sizeof(*mf));
		mf->path = ol_arena_strdup(&table_arena, path);
		mf->data = data;
		mf->size = (size_t)st.st_size;
		mf->mapped = mapped;
		mf->dev = (unsigned long long)st.st_dev;
		mf->ino = (unsigned long long)st.st_ino;
		mf->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		mf->next = mapped_files;
		mapped_files = mf;
		struct identity_key key = { mf->dev, mf->ino };
		int added;

		*(struct ol_mapped_file **)ol_hashtab_insert(&by_identity, identity_hash(&key),
							     identity_is, &key, &added) = mf;
		index_path(mf, path);
		data = NULL;
	}
	pthread_mutex_unlock(&table_lock);
	if (data && mapped)
		munmap((void *)data, (size_t)st.st_size);
	return mf;
}

static struct {
	const char *const *paths;
	size_t n;
	pthread_t thread;
	int running;
} ahead;

static void *read_ahead(void *unused)
{
	(void)unused;
	for (size_t i = ahead.n; i-- > 0;) {
		int done;

		pthread_mutex_lock(&table_lock);
		done = find_path(ahead.paths[i]) != NULL;
		pthread_mutex_unlock(&table_lock);
		if (done)
			break;
		ol_map_file(ahead.paths[i]);
	}
	return NULL;
}

void ol_map_files_ahead(const char *const *paths, size_t n)
{
	if (ahead.running || n < 32)
		return;
	ahead.paths = paths;
	ahead.n = n;
	ahead.running = pthread_create(&ahead.thread, NULL, read_ahead, NULL) == 0;
}

void ol_map_files_ahead_finish(void)
{
	if (ahead.running)
		pthread_join(ahead.thread, NULL);
	ahead.running = 0;
}

void ol_mapped_drop_pages(void)
{
	pthread_mutex_lock(&table_lock);
	for (struct ol_mapped_file *mf = mapped_files; mf; mf = mf->next)
		if (mf->mapped && mf->data)
			madvise((void *)mf->data, mf->size, MADV_DONTNEED);
	pthread_mutex_unlock(&table_lock);
}

void ol_mapped_totals(size_t *files, uint64_t *bytes)
{
	*files = 0;
	*bytes = 0;
	for (struct ol_mapped_file *mf = mapped_files; mf; mf = mf->next) {
		(*files)++;
		*bytes += mf->size;
	}
}

void ol_mapped_release_all(void)
{
	for (struct ol_mapped_file *mf = mapped_files; mf; mf = mf->next) {
		if (mf->data && mf->mapped)
			munmap((void *)mf->data, mf->size);
		mf->data = NULL;
	}
	mapped_files = NULL;
	ol_hashtab_release(&by_path);
	ol_hashtab_release(&by_identity);
	ol_arena_release(&table_arena);
}

int ol_read_open_file(int fd, uint8_t **data, size_t *size)
{
	struct stat st;
	uint8_t *buf;

	*data = NULL;
	*size = 0;
	if (fstat(fd, &st) < 0)
		return -1;
	buf = ol_xmalloc((size_t)st.st_size + 1);
	if (read_fully(fd, buf, (size_t)st.st_size) < 0) {
		free(buf);
		return -1;
	}
	buf[st.st_size] = '\0';
	*data = buf;
	*size = (size_t)st.st_size;
	return 0;
}

int ol_read_whole_file(const char *path, uint8_t **data, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	*data = NULL;
	*size = 0;
	if (fd < 0)
		return -1;
	rc = ol_read_open_file(fd, data, size);
	close(fd);
	if (rc == 0 && *size == 0) {
		free(*data);   /* callers take NULL for "nothing written" */
		*data = NULL;
	}
	return rc;
}
