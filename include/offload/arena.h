/*
 * arena: bump allocation for everything that lives as long as the link
 * (input records, names, symbol tables).  Nothing allocated here is freed on
 * its own; ol_arena_release() frees it all at once.  Not thread safe: worker
 * threads use their own arena or malloc.
 */
#ifndef OFFLOAD_ARENA_H
#define OFFLOAD_ARENA_H

#include <stddef.h>

struct ol_arena_block;
struct ol_arena {
	struct ol_arena_block *head;
};

void *ol_arena_alloc(struct ol_arena *a, size_t size);          /* zeroed, 16-aligned */
char *ol_arena_strdup(struct ol_arena *a, const char *s);
char *ol_arena_strndup(struct ol_arena *a, const char *s, size_t n);
char *ol_arena_printf(struct ol_arena *a, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
void ol_arena_release(struct ol_arena *a);

/* The link's arena, valid from main() start to exit. */
extern struct ol_arena ol_link_arena;

#endif
