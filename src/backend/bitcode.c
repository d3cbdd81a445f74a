/*
 * bitcode: what a bitcode file carries, for input scanning and archive
 * resolution: its global symbols, the offloading sections embedded by
 * clang -fembed-offload-object, the producer's version and the offload
 * entries section its host code uses.
 *
 * The symbols come from the table the writer stored beside the module
 * (symbol_table.cpp) when it has one this LLVM reads; otherwise, and for
 * everything else, the module is loaded lazily (function bodies stay unread)
 * into a fresh context per call.
 */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>

#include "backend_impl.h"
#include "offload/entries_sections.h"

struct symbol_list {
	struct ol_bc_symbol *items;
	size_t count, capacity;
};

static void symbol_list_release(struct symbol_list *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->items[i].name);
	free(list->items);
	memset(list, 0, sizeof(*list));
}

static int is_weak_linkage(LLVMLinkage linkage)
{
	switch (linkage) {
	case LLVMLinkOnceAnyLinkage:
	case LLVMLinkOnceODRLinkage:
	case LLVMWeakAnyLinkage:
	case LLVMWeakODRLinkage:
	case LLVMExternalWeakLinkage:
	case LLVMCommonLinkage:
		return 1;
	default:
		return 0;
	}
}

static int append_symbol(struct symbol_list *list, const char *name, size_t len, int defined,
			 int weak, int hidden, int common)
{
	struct ol_bc_symbol *sym = ol_be_grow(list->items, &list->capacity, list->count,
					      sizeof(*sym), 32);

	if (!sym)
		return -1;
	list->items = sym;
	sym = &list->items[list->count];
	sym->name = ol_be_strndup(name, len);
	if (!sym->name)
		return -1;
	sym->defined = (unsigned char)defined;
	sym->weak = (unsigned char)weak;
	sym->hidden = (unsigned char)hidden;
	sym->common = (unsigned char)common;
	list->count++;
	return 0;
}

/* The symbols a linker sees, as irsymtab lists them: local symbols and
 * LLVM's own globals (llvm.used, llvm.global_ctors, intrinsics) are not
 * symbols of the object. */
static int add_symbol(struct symbol_list *list, LLVMValueRef gv)
{
	size_t len = 0;
	const char *name = LLVMGetValueName2(gv, &len);
	LLVMLinkage linkage = LLVMGetLinkage(gv);

	if (!name || len == 0)
		return 0;
	if (linkage == LLVMInternalLinkage || linkage == LLVMPrivateLinkage ||
	    linkage == LLVMAppendingLinkage)
		return 0;
	if (len >= 5 && memcmp(name, "llvm.", 5) == 0)
		return 0;
	/* available_externally bodies are copies for the optimizer only: the
	 * symbol is still undefined for the linker. */
	return append_symbol(list, name, len,
			     !LLVMIsDeclaration(gv) && linkage != LLVMAvailableExternallyLinkage,
			     is_weak_linkage(linkage), LLVMGetVisibility(gv) == LLVMHiddenVisibility,
			     linkage == LLVMCommonLinkage);
}

/* One symbol of the stored table (symbol_table.cpp). */
static int add_table_symbol(void *arg, const char *name, size_t len, int defined, int weak,
			    int hidden, int common)
{
	return append_symbol(arg, name, len, defined, weak, hidden, common);
}

/* Module::global_values() order: functions, variables, aliases, ifuncs. */
static int collect_symbols(LLVMModuleRef mod, struct symbol_list *list)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
		if (add_symbol(list, f))
			return -1;
	for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g))
		if (add_symbol(list, g))
			return -1;
	for (LLVMValueRef a = LLVMGetFirstGlobalAlias(mod); a; a = LLVMGetNextGlobalAlias(a))
		if (add_symbol(list, a))
			return -1;
	for (LLVMValueRef i = LLVMGetFirstGlobalIFunc(mod); i; i = LLVMGetNextGlobalIFunc(i))
		if (add_symbol(list, i))
			return -1;
	return 0;
}

/* Loads `data` lazily into `ctx`.  On success the module owns the memory
 * buffer (a view of `data`, no copy); on failure LLVM hands it back
 * (getOwningLazyBitcodeModule moves it only into a module). */
static LLVMModuleRef load_lazy(LLVMContextRef ctx, struct ol_be_diag *diag,
			       const uint8_t *data, size_t size, const char *name,
			       char **err)
{
	LLVMMemoryBufferRef buf;
	LLVMModuleRef mod = NULL;

	buf = LLVMCreateMemoryBufferWithMemoryRange((const char *)data, size,
						    name ? name : "", 0);
	if (!buf) {
		ol_be_fail(err, "%s: out of memory", name ? name : "bitcode");
		return NULL;
	}
	diag->module = name;
	if (LLVMGetBitcodeModuleInContext2(ctx, buf, &mod) || !mod) {
		LLVMDisposeMemoryBuffer(buf);
		ol_be_msg_fail(&diag->errors, err, "invalid bitcode");
		return NULL;
	}
	return mod;
}

static int md_string_is(LLVMValueRef md, const char *want)
{
	unsigned len = 0;
	const char *s = LLVMGetMDString(md, &len);

	return s && len == strlen(want) && memcmp(s, want, len) == 0;
}

/* The bytes of `gv`'s initializer if it is an [N x i8] constant. */
static int constant_bytes(LLVMValueRef gv, struct ol_buffer *out)
{
	LLVMValueRef init = LLVMGetInitializer(gv);
	LLVMTypeRef type;
	const char *bytes;
	size_t len = 0;

	if (!init)
		return -1;
	type = LLVMTypeOf(init);
	if (LLVMGetTypeKind(type) != LLVMArrayTypeKind ||
	    LLVMGetTypeKind(LLVMGetElementType(type)) != LLVMIntegerTypeKind ||
	    LLVMGetIntTypeWidth(LLVMGetElementType(type)) != 8)
		return -1;
	if (LLVMIsAConstantAggregateZero(init)) {
		len = (size_t)LLVMGetArrayLength2(type);
		out->data = calloc(len ? len : 1, 1);
		if (!out->data)
			return -2;
		out->size = len;
		return 0;
	}
	if (!LLVMIsAConstantDataSequential(init) || !LLVMIsConstantString(init))
		return -1;
	bytes = LLVMGetAsString(init, &len);
	out->data = malloc(len ? len : 1);
	if (!out->data)
		return -2;
	memcpy(out->data, bytes, len);
	out->size = len;
	return 0;
}

/* The first two operands of a metadata node, or -1 if it has fewer. */
static int md_first_two_operands(LLVMValueRef node, LLVMValueRef ops[2])
{
	unsigned nops = LLVMGetMDNodeNumOperands(node);
	LLVMValueRef *all;

	if (nops < 2)
		return -1;
	/* The C API only copies out every operand at once. */
	all = calloc(nops, sizeof(*all));
	if (!all)
		return -2;
	LLVMGetMDNodeOperands(node, all);
	ops[0] = all[0];
	ops[1] = all[1];
	free(all);
	return 0;
}

/* The operands of named metadata `md_name`, calloc'd; *count 0 when there
 * are none (and NULL), NULL with *count > 0 when out of memory. */
static LLVMValueRef *named_metadata(LLVMModuleRef mod, const char *md_name, unsigned *count)
{
	LLVMValueRef *nodes;

	*count = LLVMGetNamedMetadataNumOperands(mod, md_name);
	if (*count == 0)
		return NULL;
	nodes = calloc(*count, sizeof(*nodes));
	if (nodes)
		LLVMGetNamedMetadataOperands(mod, md_name, nodes);
	return nodes;
}

/* !llvm.embedded.objects = !{!{ptr @llvm.embedded.object, !".llvm.offloading"}, ...}
 * as written by clang's -fembed-offload-object (embedBufferInModule). */
static int collect_offload_sections(LLVMModuleRef mod, const char *name,
				    struct ol_bc_info *out, char **err)
{
	unsigned count;
	LLVMValueRef *nodes = named_metadata(mod, "llvm.embedded.objects", &count);
	int rc = 0;

	if (count == 0)
		return 0;
	out->offload_sections = calloc(count, sizeof(*out->offload_sections));
	if (!nodes || !out->offload_sections) {
		free(nodes);
		return ol_be_fail(err, "out of memory");
	}
	for (unsigned i = 0; i < count && rc == 0; i++) {
		LLVMValueRef ops[2], gv;
		size_t gv_name_len = 0;
		int got = md_first_two_operands(nodes[i], ops);

		if (got == -2) {
			rc = ol_be_fail(err, "out of memory");
			break;
		}
		if (got < 0 || !ops[1] || !md_string_is(ops[1], ".llvm.offloading"))
			continue;
		gv = ops[0] ? LLVMIsAGlobalVariable(ops[0]) : NULL;
		if (!gv)
			continue;
		got = constant_bytes(gv, &out->offload_sections[out->noffload_sections]);
		if (got == -2)
			rc = ol_be_fail(err, "out of memory");
		else if (got < 0)
			rc = ol_be_fail(err, "%s: embedded object '%s' is not a byte array constant",
					name ? name : "bitcode", LLVMGetValueName2(gv, &gv_name_len));
		else
			out->noffload_sections++;
	}
	free(nodes);
	return rc;
}

/* "Debian clang version 19.1.7 (...)" -> 19. */
static int clang_major_of(LLVMModuleRef mod)
{
	static const char marker[] = "clang version ";
	unsigned count;
	LLVMValueRef *nodes = named_metadata(mod, "llvm.ident", &count);
	int major = 0;

	if (!nodes)
		return 0;
	for (unsigned i = 0; i < count && major == 0; i++) {
		LLVMValueRef op;
		const char *s, *at;
		unsigned len = 0;
		char text[256];

		if (LLVMGetMDNodeNumOperands(nodes[i]) != 1)
			continue;
		LLVMGetMDNodeOperands(nodes[i], &op);
		s = op ? LLVMGetMDString(op, &len) : NULL;
		if (!s)
			continue;
		/* MDStrings are not NUL-terminated. */
		if (len >= sizeof(text))
			len = sizeof(text) - 1;
		memcpy(text, s, len);
		text[len] = '\0';
		at = strstr(text, marker);
		if (!at)
			continue;
		at += sizeof(marker) - 1;
		while (*at >= '0' && *at <= '9' && major < 10000)
			major = major * 10 + (*at++ - '0');
	}
	free(nodes);
	return major;
}

/* Which offload entry layout the host code was compiled for (inputs.h):
 * 16 for the 32-byte entries in <lang>_offloading_entries (16 and 19),
 * 22 for the 56-byte entries in llvm_offload_entries. */
static int entries_abi_of(LLVMModuleRef mod)
{
	for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g)) {
		const char *section = LLVMGetSection(g);

		int layout = section ? ol_entries_layout_of(section) : 0;

		if (layout)
			return layout;
	}
	return 0;
}

void ol_be_bitcode_info_free(struct ol_bc_info *info)
{
	if (info)
		ol_bc_info_release(info);
}

/* A lazily loaded module and its symbols, for both readers below: NULL
 * with *err set on failure (list left empty). */
static LLVMModuleRef load_with_symbols(LLVMContextRef ctx, struct ol_be_diag *diag,
				       const uint8_t *data, size_t size, const char *name,
				       struct symbol_list *list, char **err)
{
	LLVMModuleRef mod = load_lazy(ctx, diag, data, size, name, err);

	if (mod && collect_symbols(mod, list)) {
		symbol_list_release(list);
		ol_be_fail(err, "out of memory");
		LLVMDisposeModule(mod);
		mod = NULL;
	}
	return mod;
}

static void release_module(LLVMContextRef ctx, struct ol_be_diag *diag, LLVMModuleRef mod)
{
	if (mod)
		LLVMDisposeModule(mod);
	ol_be_msg_release(&diag->errors);
	LLVMContextDispose(ctx);
}

int ol_be_bitcode_info(const uint8_t *data, size_t size, const char *name,
		       struct ol_bc_info *out, char **err)
{
	struct ol_be_diag diag;
	LLVMContextRef ctx = ol_be_context_create(&diag);
	struct symbol_list list = {0};
	LLVMModuleRef mod;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	mod = load_with_symbols(ctx, &diag, data, size, name, &list, err);
	if (mod) {
		out->symbols = list.items;
		out->nsymbols = list.count;
		if (collect_offload_sections(mod, name, out, err)) {
			ol_be_bitcode_info_free(out);
		} else {
			out->clang_major = clang_major_of(mod);
			out->entries_abi = entries_abi_of(mod);
			rc = 0;
		}
	}
	release_module(ctx, &diag, mod);
	return rc;
}

int ol_be_bitcode_symbols(const uint8_t *data, size_t size, const char *name,
			  struct ol_bc_symbol **syms, size_t *nsyms, char **err)
{
	struct ol_be_diag diag;
	LLVMContextRef ctx;
	struct symbol_list list = {0};
	LLVMModuleRef mod;
	int rc;

	/* The stored symbol table when the file has one this LLVM reads. */
	rc = ol_be_symbol_table_read(data, size, add_table_symbol, &list);
	if (rc <= 0) {
		if (rc < 0) {
			symbol_list_release(&list);
			ol_be_fail(err, "out of memory");
		}
		*syms = list.items;
		*nsyms = list.count;
		return rc;
	}
	symbol_list_release(&list);
	ctx = ol_be_context_create(&diag);
	mod = load_with_symbols(ctx, &diag, data, size, name, &list, err);
	rc = mod ? 0 : -1;

	*syms = list.items;   /* empty on failure */
	*nsyms = list.count;
	release_module(ctx, &diag, mod);
	return rc;
}
