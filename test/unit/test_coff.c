/* format/coff.c: COFF objects built byte by byte (regular and /bigobj), long
 * section and symbol names, auxiliary records, and every way a header can
 * point outside the file. */
#include "offload/coff.h"
#include "check.h"

#include <string.h>

static uint8_t buf[4096];
static size_t len;

static void put16(size_t at, uint16_t v)
{
	buf[at] = (uint8_t)v;
	buf[at + 1] = (uint8_t)(v >> 8);
}

static void put32(size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		buf[at + i] = (uint8_t)(v >> (8 * i));
}

static int name_is(const char *name, size_t n, const char *want)
{
	return n == strlen(want) && memcmp(name, want, n) == 0;
}

/*
 * A regular x86-64 object: sections ".text" and "/4" (the long name
 * ".llvm.offloading" in the string table) whose 8 bytes are at 200;
 * symbols "main" (external, section 1, one aux record), a long-named
 * undefined external, a weak external and a common one.
 */
static void build_regular(const char *long_section_field)
{
	static const char strings[] = "\0\0\0\0.llvm.offloading\0a_very_long_symbol_name";
	size_t symtab = 300, nsyms = 5, strtab = symtab + nsyms * 18;

	memset(buf, 0, sizeof(buf));
	put16(0, 0x8664);
	put16(2, 2);
	put32(8, (uint32_t)symtab);
	put32(12, (uint32_t)nsyms);
	memcpy(buf + 20, ".text", 5);
	memcpy(buf + 60, long_section_field, strlen(long_section_field));
	put32(60 + 16, 8);
	put32(60 + 20, 200);
	memcpy(buf + 200, "\x10\xff\x10\xad" "abcd", 8);

	memcpy(buf + symtab, "main", 4);
	put16(symtab + 12, 1);
	buf[symtab + 16] = OL_COFF_SYM_CLASS_EXTERNAL;
	buf[symtab + 17] = 1;                        /* one aux record follows */
	put32(symtab + 2 * 18 + 4, 21);              /* long name: offset 21 */
	buf[symtab + 2 * 18 + 16] = OL_COFF_SYM_CLASS_EXTERNAL;
	memcpy(buf + symtab + 3 * 18, "weakone", 7);
	buf[symtab + 3 * 18 + 16] = OL_COFF_SYM_CLASS_WEAK_EXTERNAL;
	memcpy(buf + symtab + 4 * 18, "common", 6);
	put32(symtab + 4 * 18 + 8, 16);
	buf[symtab + 4 * 18 + 16] = OL_COFF_SYM_CLASS_EXTERNAL;

	memcpy(buf + strtab, strings, sizeof(strings));
	put32(strtab, (uint32_t)sizeof(strings));
	len = strtab + sizeof(strings);
}

static void test_regular(void)
{
	struct ol_coff c;
	struct ol_coff_section sec;
	struct ol_coff_symbol sym;
	const char *why = NULL;

	current_test = "regular";
	build_regular("/4");
	CHECK(ol_coff_is_object(buf, len));
	CHECK(ol_coff_open(buf, len, &c, &why) == 0);
	CHECK(c.machine == 0x8664 && !c.bigobj && c.nsections == 2 && c.nsymbols == 5);
	CHECK(ol_coff_section(&c, 0, &sec, &why) == 0 && name_is(sec.name, sec.name_len, ".text"));
	CHECK(ol_coff_section(&c, 1, &sec, &why) == 0);
	CHECK(name_is(sec.name, sec.name_len, ".llvm.offloading"));
	CHECK(sec.offset == 200 && sec.size == 8 && !memcmp(buf + sec.offset, "\x10\xff\x10\xad", 4));
	CHECK(ol_coff_section(&c, 2, &sec, &why) < 0);

	CHECK(ol_coff_symbol(&c, 0, &sym, &why) == 0);
	CHECK(name_is(sym.name, sym.name_len, "main") && sym.section == 1 && sym.aux_count == 1);
	CHECK(sym.storage_class == OL_COFF_SYM_CLASS_EXTERNAL);
	CHECK(ol_coff_symbol(&c, 2, &sym, &why) == 0);
	CHECK(name_is(sym.name, sym.name_len, "a_very_long_symbol_name") && sym.section == 0);
	CHECK(ol_coff_symbol(&c, 3, &sym, &why) == 0);
	CHECK(sym.storage_class == OL_COFF_SYM_CLASS_WEAK_EXTERNAL);
	CHECK(ol_coff_symbol(&c, 4, &sym, &why) == 0 && sym.value == 16 && sym.section == 0);
	CHECK(ol_coff_symbol(&c, 5, &sym, &why) < 0);

	/* The same name in base 64 ("//AAAAAE" = 4). */
	build_regular("//AAAAAE");
	CHECK(ol_coff_open(buf, len, &c, &why) == 0);
	CHECK(ol_coff_section(&c, 1, &sec, &why) == 0 &&
	      name_is(sec.name, sec.name_len, ".llvm.offloading"));
}

static void test_damaged(void)
{
	struct ol_coff c;
	struct ol_coff_section sec;
	struct ol_coff_symbol sym;
	const char *why = NULL;

	current_test = "damaged";
	build_regular("/4");
	CHECK(ol_coff_open(buf, 70, &c, &why) < 0 && strstr(why, "section table"));
	CHECK(ol_coff_open(buf, 300, &c, &why) < 0 && strstr(why, "symbol table"));

	build_regular("/4");
	put32(60 + 20, (uint32_t)len - 4);           /* section bytes past the end */
	CHECK(ol_coff_open(buf, len, &c, &why) == 0);
	CHECK(ol_coff_section(&c, 1, &sec, &why) < 0 && strstr(why, "past the end"));

	build_regular("/999");                       /* name offset past the strings */
	CHECK(ol_coff_open(buf, len, &c, &why) == 0);
	CHECK(ol_coff_section(&c, 1, &sec, &why) < 0 && strstr(why, "string table"));
	build_regular("/x");
	CHECK(ol_coff_open(buf, len, &c, &why) == 0);
	CHECK(ol_coff_section(&c, 1, &sec, &why) < 0 && strstr(why, "invalid COFF section name"));

	build_regular("/4");
	buf[len - 1] = 'A';                          /* unterminated last string */
	CHECK(ol_coff_open(buf, len, &c, &why) == 0);
	CHECK(ol_coff_symbol(&c, 2, &sym, &why) < 0 && strstr(why, "not terminated"));

	build_regular("/4");
	put32(300 + 5 * 18, 100000);                 /* string table size past the end */
	CHECK(ol_coff_open(buf, len, &c, &why) < 0 && strstr(why, "string table"));

	current_test = "not objects";
	memset(buf, 0, sizeof(buf));
	CHECK(!ol_coff_is_object(buf, 64));          /* machine 0 */
	put16(0, 0x8664);
	CHECK(!ol_coff_is_object(buf, 19));          /* shorter than the header */
	CHECK(!ol_coff_is_object((const uint8_t *)"MZ\x90\0", 4));
	memset(buf, 0, 64);                          /* an import library header */
	put16(2, 0xffff);
	put16(6, 0x8664);
	CHECK(!ol_coff_is_object(buf, 64));
}

static void test_bigobj(void)
{
	static const uint8_t class_id[16] = {
		0xc7, 0xa1, 0xba, 0xd1, 0xee, 0xba, 0xa9, 0x4b,
		0xaf, 0x20, 0xfa, 0xf6, 0x6a, 0xa4, 0xdc, 0xb8,
	};
	struct ol_coff c;
	struct ol_coff_section sec;
	struct ol_coff_symbol sym;
	const char *why = NULL;
	size_t symtab = 200;

	current_test = "bigobj";
	memset(buf, 0, sizeof(buf));
	put16(2, 0xffff);
	put16(4, 2);
	put16(6, 0xaa64);
	memcpy(buf + 12, class_id, sizeof(class_id));
	put32(44, 1);
	put32(48, (uint32_t)symtab);
	put32(52, 1);
	memcpy(buf + 56, ".llvm.offloading", 8);     /* 8 bytes, no terminator */
	memcpy(buf + symtab, "kernel", 6);
	put32(symtab + 12, 70000);                   /* a section number past 16 bits */
	buf[symtab + 18] = OL_COFF_SYM_CLASS_EXTERNAL;
	put32(symtab + 20, 4);                       /* empty string table */
	len = symtab + 24;

	CHECK(ol_coff_is_object(buf, len));
	CHECK(ol_coff_open(buf, len, &c, &why) == 0 && c.bigobj && c.machine == 0xaa64);
	CHECK(ol_coff_section(&c, 0, &sec, &why) == 0 && name_is(sec.name, sec.name_len, ".llvm.of"));
	CHECK(ol_coff_symbol(&c, 0, &sym, &why) == 0 && name_is(sym.name, sym.name_len, "kernel"));
	CHECK(sym.section == 70000 && sym.storage_class == OL_COFF_SYM_CLASS_EXTERNAL);
}

int main(void)
{
	test_regular();
	test_damaged();
	test_bigobj();
	return failures != 0;
}
