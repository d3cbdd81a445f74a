/*
 * device_args: which --device-linker= and --device-compiler= values apply
 * to a device link, with each release's rule (upstream's getLinkerArgs).
 */
#include "offload/cmdline.h"
#include "driver_internal.h"

#include <ctype.h>
#include <string.h>

/* Whether the first component of a triple names an architecture that
 * llvm::Triple knows (Triple::parseArch), which is how 22 tells
 * "<triple>=<value>" from "-option=value". */
static int triple_has_known_arch(const char *triple, size_t len)
{
	static const char *const arches[] = {
		"i386", "i486", "i586", "i686", "i786", "i886", "i986", "amd64", "x86_64",
		"x86_64h", "powerpc", "powerpcspe", "ppc", "ppc32", "powerpcle", "ppcle", "ppc32le",
		"powerpc64", "ppu", "ppc64", "powerpc64le", "ppc64le", "xscale", "xscaleeb",
		"aarch64", "aarch64_be", "aarch64_32", "arc", "arm64", "arm64_32", "arm64e",
		"arm64ec", "arm", "armeb", "thumb", "thumbeb", "avr", "m68k", "msp430", "mips",
		"mipseb", "mipsallegrex", "mipsisa32r6", "mipsr6", "mipsel", "mipsallegrexel",
		"mipsisa32r6el", "mipsr6el", "mips64", "mips64eb", "mipsn32", "mipsisa64r6",
		"mips64r6", "mipsn32r6", "mips64el", "mipsn32el", "mipsisa64r6el", "mips64r6el",
		"mipsn32r6el", "r600", "amdgcn", "riscv32", "riscv64", "riscv32be", "riscv64be",
		"hexagon", "s390x", "systemz", "sparc", "sparcel", "sparcv9", "sparc64", "tce",
		"tcele", "xcore", "nvptx", "nvptx64", "le32", "le64", "amdil", "amdil64", "hsail",
		"hsail64", "spir", "spir64", "lanai", "renderscript32", "renderscript64", "shave",
		"ve", "wasm32", "wasm64", "csky", "loongarch32", "loongarch64", "dxil", "xtensa",
		"bpf", "bpfel", "bpfeb", NULL,
	};
	/* Families whose names carry a version: "spirv64v1.2", "dxilv1.6". */
	static const char *const versioned_families[] = { "spirv", "kalimba", "dxilv1.", NULL };
	/* ARM sub-architectures ("armv7a", "thumbv8m.main"): a digit follows. */
	static const char *const arm_families[] = { "armv", "armebv", "thumbv", "thumbebv", NULL };
	const char *dash = memchr(triple, '-', len);
	size_t alen = dash ? (size_t)(dash - triple) : len;

	for (const char *const *p = arches; *p; p++)
		if (strlen(*p) == alen && strncmp(triple, *p, alen) == 0)
			return 1;
	for (const char *const *p = versioned_families; *p; p++)
		if (alen >= strlen(*p) && strncmp(triple, *p, strlen(*p)) == 0)
			return 1;
	for (const char *const *p = arm_families; *p; p++) {
		size_t plen = strlen(*p);

		if (alen > plen && strncmp(triple, *p, plen) == 0 &&
		    isdigit((unsigned char)triple[plen]))
			return 1;
	}
	return 0;
}

/*
 * getLinkerArgs' rule for --device-linker= / --device-compiler= values
 * (spec 4.2).  The value splits at its first '=' into T and V:
 *   16, 19: no V -> the whole value; T equal to the group triple -> V;
 *           any other T -> dropped (so "--device-linker=k=v" is lost).
 *   22:     T not a triple (unknown arch) -> the whole value; else as 16/19.
 * AUTO uses 22's rule.
 */
/* One value under that rule: pushes what applies to `triple`, if anything. */
static void push_device_arg(const char *arg, const char *triple, enum ol_flavor flavor,
			    struct strvec *out)
{
	const char *eq = strchr(arg, '=');
	size_t tlen = eq ? (size_t)(eq - arg) : strlen(arg);
	const char *value = eq ? eq + 1 : "";

	if (flavor != OL_FLAVOR_16 && flavor != OL_FLAVOR_19 && !triple_has_known_arch(arg, tlen))
		strvec_push(out, arg);
	else if (!*value)
		strvec_pushf(out, "%.*s", (int)tlen, arg);
	else if (triple && strlen(triple) == tlen && strncmp(arg, triple, tlen) == 0)
		strvec_push(out, value);
}

void ol_cmdline_device_args(const struct ol_cmdline *cl, const struct strvec *raw,
			    const char *triple, enum ol_flavor flavor, struct strvec *out)
{
	(void)cl;
	for (size_t i = 0; i < raw->nr; i++)
		push_device_arg(raw->v[i], triple, flavor, out);
}

int ol_is_records_flag(const char *arg)
{
	return !strcmp(arg, "-fsave-optimization-record") ||
	       !strcmp(arg, "-fsave-optimization-record=yaml");
}

int ol_is_remark_arg(const char *arg)
{
	static const char *const clang_prefixes[] = {
		"-Rpass=", "-Rpass-missed=", "-Rpass-analysis=", "-foptimization-record-file=",
	};
	const char *llvm = arg;

	while (*llvm == '-')
		llvm++;
	if (ol_starts_with(llvm, "pass-remarks"))
		return 1;
	if (ol_is_records_flag(arg))
		return 1;
	for (size_t i = 0; i < sizeof(clang_prefixes) / sizeof(clang_prefixes[0]); i++)
		if (ol_starts_with(arg, clang_prefixes[i]))
			return 1;
	return 0;
}

/* "-mllvm" among an option's values waits for the value it introduces:
 * the pair is keyed unless that value only asks for remarks. */
struct held_mllvm {
	enum ol_opt_id id;
	int held;
};

static void push_key_value(struct strvec *out, struct held_mllvm *h, enum ol_opt_id id,
			   const char *name, const char *value)
{
	if (h->held && h->id == id) {
		h->held = 0;
		if (!ol_is_remark_arg(value)) {
			strvec_pushf(out, "%s-mllvm", name);
			strvec_pushf(out, "%s%s", name, value);
		}
		return;
	}
	if (!strcmp(value, "-mllvm") && !h->held) {
		h->held = 1;
		h->id = id;
		return;
	}
	if (!ol_is_remark_arg(value))
		strvec_pushf(out, "%s%s", name, value);
}

void ol_cmdline_key_args(const struct ol_cmdline *cl, const char *triple, enum ol_flavor flavor,
			 struct strvec *out)
{
	struct strvec applies = STRVEC_INIT;
	struct held_mllvm held[2] = { { OPT_device_linker, 0 }, { OPT_device_compiler, 0 } };

	for (size_t i = 0; i < cl->nargs; i++) {
		const struct ol_arg *a = &cl->args[i];
		const char *name = a->id < OL_NOPTS ? ol_opts[a->id].name : "";
		const char *value = a->value ? a->value : "";

		switch (ol_option_key_role(a->id)) {
		case OL_KEY_KEYED:
			/* LLVM's remark options ask for remarks and change no
			 * code: the remarks' own key takes them. */
			if ((a->id == OPT_mllvm || a->id == OPT_offload_opt) &&
			    ol_is_remark_arg(value))
				break;
			strvec_pushf(out, "%s%s", name, value);
			break;
		case OL_KEY_KEYED_PER_TRIPLE:
			push_device_arg(value, triple, flavor, &applies);
			for (size_t k = 0; k < applies.nr; k++)
				push_key_value(out, &held[a->id == OPT_device_compiler], a->id, name,
					       applies.v[k]);
			strvec_release(&applies);
			break;
		case OL_KEY_KEYED_DECODED: /* job_key.c keys the setting */
		case OL_KEY_REMARKS:       /* remarks.c keys them with the remarks */
		case OL_KEY_UNKEYED:
		case OL_KEY_HOST_INPUT:
		case OL_KEY_FAMILY:        /* the family's identify keys it */
			break;
		}
	}
	for (size_t k = 0; k < 2; k++)
		if (held[k].held)
			strvec_pushf(out, "%s-mllvm", ol_opts[held[k].id].name);
}
