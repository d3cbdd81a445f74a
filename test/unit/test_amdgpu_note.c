/* amdgpu_note: MessagePack skipping and writing, the merge of metadata maps
 * (kernels concatenated, other keys equal, a kernel twice refused), the note
 * object written and found again, SHF_EXCLUDE set, the dynamic-stack check. */
#include "offload/amdgpu_note.h"
#include "check.h"

#include <elf.h>

static void map_of(struct strbuf *b, const char *target, const char *kernel, int dynamic)
{
	ol_msgpack_put_map(b, 3);
	ol_msgpack_put_string(b, "amdhsa.target", 13);
	ol_msgpack_put_string(b, target, strlen(target));
	ol_msgpack_put_string(b, "amdhsa.kernels", 14);
	ol_msgpack_put_array(b, 1);
	ol_msgpack_put_map(b, 2);
	ol_msgpack_put_string(b, ".name", 5);
	ol_msgpack_put_string(b, kernel, strlen(kernel));
	ol_msgpack_put_string(b, ".uses_dynamic_stack", 19);
	strbuf_addch(b, dynamic ? 0xc3 : 0xc2);
	ol_msgpack_put_string(b, "amdhsa.version", 14);
	ol_msgpack_put_array(b, 2);
	strbuf_addch(b, 1);
	strbuf_addch(b, 2);
}

int main(void)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT, m = STRBUF_INIT;
	struct strbuf obj = STRBUF_INIT, obj2 = STRBUF_INIT;
	const uint8_t *descs[2], *name;
	size_t sizes[2], len;
	const char *why;
	uint32_t n;
	struct ol_amdgpu_note note;
	uint8_t like[sizeof(Elf64_Ehdr)] = { 0x7f, 'E', 'L', 'F', ELFCLASS64, ELFDATA2LSB, 1, 64, 3 };

	current_test = "merge";
	map_of(&a, "amdgcn-amd-amdhsa--gfx90a", "ka", 0);
	map_of(&b, "amdgcn-amd-amdhsa--gfx90a", "kb", 0);
	CHECK(ol_msgpack_skip((uint8_t *)a.buf, a.len, 0, 8) == a.len);
	CHECK(ol_msgpack_skip((uint8_t *)a.buf, a.len - 1, 0, 8) == 0);
	descs[0] = (uint8_t *)a.buf, sizes[0] = a.len;
	descs[1] = (uint8_t *)b.buf, sizes[1] = b.len;
	CHECK(ol_amdgpu_metadata_merge(descs, sizes, 2, &m, &why) == 2);
	CHECK(ol_msgpack_map((uint8_t *)m.buf, m.len, 0, &n) == 1 && n == 3);
	CHECK(memmem(m.buf, m.len, "ka", 2) && memmem(m.buf, m.len, "kb", 2));
	CHECK(ol_amdgpu_dynamic_stack_kernel((uint8_t *)m.buf, m.len, &name, &len) == 0);
	descs[1] = (uint8_t *)a.buf;
	strbuf_release(&c);
	CHECK(ol_amdgpu_metadata_merge(descs, sizes, 2, &c, &why) == -1 && strstr(why, "two"));
	CHECK(c.len == 0);
	map_of(&c, "amdgcn-amd-amdhsa--gfx942", "kc", 1);
	descs[1] = (uint8_t *)c.buf, sizes[1] = c.len;
	struct strbuf d = STRBUF_INIT;
	CHECK(ol_amdgpu_metadata_merge(descs, sizes, 2, &d, &why) == -1 && strstr(why, "differ"));
	CHECK(ol_amdgpu_dynamic_stack_kernel((uint8_t *)c.buf, c.len, &name, &len) == 1 &&
	      len == 2 && memcmp(name, "kc", 2) == 0);

	current_test = "object";
	like[offsetof(Elf64_Ehdr, e_machine)] = OL_EM_AMDGPU;
	like[offsetof(Elf64_Ehdr, e_flags)] = 0x3f;
	CHECK(ol_amdgpu_note_object(like, sizeof(like), (uint8_t *)m.buf, m.len, &obj, &why) == 0);
	CHECK(ol_amdgpu_find_note((uint8_t *)obj.buf, obj.len, &note, &why) == 1);
	CHECK(note.desc_size == m.len && memcmp(note.desc, m.buf, m.len) == 0);
	CHECK(((uint8_t *)obj.buf)[offsetof(Elf64_Ehdr, e_flags)] == 0x3f);
	CHECK((uint8_t)obj.buf[EI_OSABI] == 64 && (uint8_t)obj.buf[EI_ABIVERSION] == 3);
	ol_amdgpu_exclude_note((uint8_t *)obj.buf, obj.len, &note);
	CHECK(((uint8_t *)obj.buf)[note.shdr_offset + offsetof(Elf64_Shdr, sh_flags) + 3] == 0x80);
	CHECK(ol_amdgpu_note_object((uint8_t *)"nope", 4, (uint8_t *)m.buf, m.len, &obj2, &why) == -1);
	CHECK(ol_amdgpu_find_note((uint8_t *)obj.buf, 40, &note, &why) == -1);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&c);
	strbuf_release(&d);
	strbuf_release(&m);
	strbuf_release(&obj);
	strbuf_release(&obj2);
	return failures != 0;
}
