/*
 * wrap: build the registration module for one offload kind and compile it
 * for the host, in process, as upstream's wrapAndCompile does (spec 4.6):
 * module "offload.wrapper.module" with the host triple, printed (for
 * --print-wrapped-module) and saved (--save-temps) before the data layout is
 * set, then compiled by a PIC target machine with no CPU or features.
 */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitWriter.h>

#include "backend_impl.h"

static int build_module(LLVMModuleRef mod, const struct ol_wrap_request *req, char **err)
{
	switch (req->kind) {
	case OL_WRAP_OPENMP:
		return ol_be_wrap_openmp(mod, req, err);
	case OL_WRAP_CUDA:
	case OL_WRAP_HIP:
		return ol_be_wrap_cuda_hip(mod, req, err);
	case OL_WRAP_SYCL:
		return ol_be_wrap_sycl(mod, req, err);
	}
	return ol_be_fail(err, "unknown offload kind %d for the wrapper", (int)req->kind);
}

static int compile(LLVMModuleRef mod, const char *triple, struct ol_be_diag *diag,
		   struct ol_buffer *obj, char **err)
{
	LLVMTargetMachineRef tm;
	LLVMTargetDataRef layout;
	int rc;

	tm = ol_be_target_machine(triple, "", "", LLVMCodeGenLevelDefault, err);
	if (!tm)
		return -1;
	layout = LLVMCreateTargetDataLayout(tm);
	LLVMSetModuleDataLayout(mod, layout);
	LLVMDisposeTargetData(layout);
	if (ol_be_object_format(triple) == OL_BE_ELF)
		ol_be_lower_structors(mod);
	rc = ol_be_emit(tm, mod, LLVMObjectFile, obj, err);
	LLVMDisposeTargetMachine(tm);
	if (rc == 0 && diag->nerrors) {
		free(obj->data);
		obj->data = NULL;
		obj->size = 0;
		rc = ol_be_msg_fail(&diag->errors, err, "failed to execute host backend");
	}
	return rc;
}

int ol_be_wrap(const struct ol_wrap_request *req, struct ol_buffer *obj,
	       char **ir_text, char **err)
{
	struct ol_be_diag diag;
	LLVMContextRef ctx;
	LLVMModuleRef mod;
	char *default_triple = NULL;
	const char *triple;
	int rc = -1;

	if (obj) {
		obj->data = NULL;
		obj->size = 0;
	}
	if (ir_text)
		*ir_text = NULL;
	if (!req || (req->nimages && (!req->images || !req->sizes)))
		return ol_be_fail(err, "wrapper request without images");
	if (req->flavor == OL_WRAP_FLAVOR_LEGACY && req->kind != OL_WRAP_OPENMP)
		return ol_be_fail(err, "the clang-offload-wrapper layout exists for OpenMP only");
	if (req->flavor != 16 && req->flavor != 19 && req->flavor != 22 &&
	    req->flavor != OL_WRAP_FLAVOR_LEGACY)
		return ol_be_fail(err, "unknown wrapper flavor %d (14, 16, 19 or 22)", req->flavor);
	triple = req->host_triple;
	if (!triple || !*triple) {
		default_triple = LLVMGetDefaultTargetTriple();
		triple = default_triple;
	}

	ctx = ol_be_context_create(&diag);
	/* clang-offload-wrapper named its module differently. */
	mod = LLVMModuleCreateWithNameInContext(req->flavor == OL_WRAP_FLAVOR_LEGACY
						? "offload.wrapper.object"
						: "offload.wrapper.module", ctx);
	LLVMSetTarget(mod, triple);
	if (build_module(mod, req, err))
		goto out;
	if (req->want_ir && ir_text) {
		*ir_text = ol_be_take_message(LLVMPrintModuleToString(mod));
		if (!*ir_text) {
			ol_be_fail(err, "out of memory");
			goto out;
		}
	}
	if (req->save_bc_path && LLVMWriteBitcodeToFile(mod, req->save_bc_path)) {
		ol_be_fail(err, "cannot write '%s'", req->save_bc_path);
		goto out;
	}
	/* Bitcode as upstream's wrapper tools write it: without a data layout. */
	if (obj && req->emit_bitcode) {
		if (ol_be_write_bitcode(mod, obj, err))
			goto out;
	} else if (obj && compile(mod, triple, &diag, obj, err)) {
		goto out;
	}
	rc = 0;
out:
	if (rc && ir_text) {
		free(*ir_text);
		*ir_text = NULL;
	}
	LLVMDisposeModule(mod);
	ol_be_msg_release(&diag.errors);
	LLVMContextDispose(ctx);
	LLVMDisposeMessage(default_triple);
	return rc;
}
