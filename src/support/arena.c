/* arena: bump allocator for link-lifetime data.  See offload/arena.h. */
#include "offload/arena.h"
#include "offload/diag.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK_SIZE (64 * 1024)

struct ol_arena_block {
	struct ol_arena_block *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

struct ol_arena ol_link_arena;

void *ol_arena_alloc(struct ol_arena *a, size_t size)
{
	struct ol_arena_block *b = a->head;
	size_t need = (size + 15) & ~(size_t)15;
	void *p;

	if (!b || b->cap - b->used < need) {
		size_t cap = need > ARENA_BLOCK_SIZE / 4 ? need : ARENA_BLOCK_SIZE;
		b = ol_xmalloc(sizeof(*b) + cap);
		b->cap = cap;
		b->used = 0;
		if (cap == need && a->head) {
			/* A large one-off: keep the current block for small allocations. */
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
	}
	p = b->data + b->used;
	b->used += need;
	memset(p, 0, size);
	return p;
}

char *ol_arena_strndup(struct ol_arena *a, const char *s, size_t n)
{
	char *p = ol_arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *ol_arena_strdup(struct ol_arena *a, const char *s)
{
	return ol_arena_strndup(a, s, strlen(s));
}

char *ol_arena_printf(struct ol_arena *a, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		OL_BUG("bad format");
	p = ol_arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void ol_arena_release(struct ol_arena *a)
{
	struct ol_arena_block *b = a->head;
	while (b) {
		struct ol_arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
}
