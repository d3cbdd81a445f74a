/*
 * ar_writer: archives it writes read back through the scanner's archive
 * walker with every member's name and bytes, short and long names, odd
 * and even sizes, and an empty member.
 */
#include "check.h"
#include "offload/ar_writer.h"
#include "offload/arena.h"
#include "offload/strvec.h"
#include "input/scan_internal.h"

#include <string.h>

struct seen {
	const struct ol_ar_entry *want;
	size_t n, next;
};

static void check_member(void *ctx, const struct ol_ar_member *m)
{
	struct seen *s = ctx;

	CHECK(s->next < s->n);
	if (s->next >= s->n)
		return;
	CHECK(strcmp(m->name, s->want[s->next].name) == 0);
	CHECK(m->size == s->want[s->next].size);
	CHECK(m->size == 0 || memcmp(m->data, s->want[s->next].data, m->size) == 0);
	s->next++;
}

static void test_round_trip(void)
{
	static const uint8_t odd[] = "abc";                   /* 4 bytes with the NUL */
	static const uint8_t even[] = { 1, 2, 3, 4, 5, 6, 7 };  /* 7: padded */
	const struct ol_ar_entry members[] = {
		{ "short.o", odd, sizeof(odd) },
		{ "a-rather-long-member-name-0.o", even, sizeof(even) },
		{ "empty.o", odd, 0 },
		{ "another-long-member-name-12.o", odd, 3 },
		{ "exactly15chars.", even, 2 },
	};
	struct strbuf ar = STRBUF_INIT;
	struct seen seen = { members, sizeof(members) / sizeof(members[0]), 0 };

	current_test = "round trip";
	ol_ar_write(members, seen.n, &ar);
	CHECK(ar.len >= 8 && memcmp(ar.buf, "!<arch>\n", 8) == 0);
	CHECK(ar.len % 2 == 0);
	CHECK(ol_archive_walk("test.a", (const uint8_t *)ar.buf, ar.len, check_member, &seen) == 0);
	CHECK(seen.next == seen.n);
	strbuf_release(&ar);
}

static void test_empty(void)
{
	struct strbuf ar = STRBUF_INIT;
	struct seen seen = { NULL, 0, 0 };

	current_test = "empty archive";
	ol_ar_write(NULL, 0, &ar);
	CHECK(ar.len == 8);
	CHECK(ol_archive_walk("empty.a", (const uint8_t *)ar.buf, ar.len, check_member, &seen) == 0);
	strbuf_release(&ar);
}

int main(void)
{
	test_round_trip();
	test_empty();
	ol_arena_release(&ol_link_arena);
	return failures != 0;
}
