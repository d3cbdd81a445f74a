/*
 * lto_budget: an in-process LTO step within the link's memory budget
 * (include/offload/memory_budget.h): its estimate taken before it starts,
 * given back when it ends.  Used by the whole-group LTO (device_lto.c) and
 * the partitions' (partition_products.c).
 */
#include "target_impl.h"
#include "offload/memory_budget.h"

/*
 * What an in-process LTO step holds at its peak, for the memory budget
 * (memory_budget.h): LLVM's context and code generator, plus a multiple of
 * the bitcode for the modules in memory and what the optimizer builds over
 * them.  Full LTO of bench (g)'s 100 units for gfx942 (2.4 MiB of bitcode)
 * peaked at 393 MiB, about 130 times; the Attributor's share grows faster
 * than the program (docs/performance.md, "Cost against program size").  An
 * estimate that errs high makes steps wait, one that errs low lets them
 * overlap.
 */
#define LTO_MEMORY_BASE (64ull << 20)
#define LTO_MEMORY_PER_BITCODE_BYTE 100ull

uint64_t ol_lto_memory_estimate(uint64_t bitcode_bytes)
{
	return LTO_MEMORY_BASE + LTO_MEMORY_PER_BITCODE_BYTE * bitcode_bytes;
}

static uint64_t request_bytes(const struct ol_lto_request *req)
{
	uint64_t n = 0;

	for (size_t i = 0; i < req->nmodules; i++)
		n += req->sizes[i];
	for (size_t i = 0; i < req->nbuiltins; i++)
		n += req->builtin_sizes[i];
	return n;
}

int ol_lto_within_budget(const struct ol_backend *be, const struct ol_lto_request *req,
			 struct ol_buffer *out, struct ol_buffer *remarks, char **err)
{
	uint64_t held = ol_memory_budget_take(ol_lto_memory_estimate(request_bytes(req)));
	int rc = be->lto(req, out, remarks, err);

	ol_memory_budget_give(held);
	return rc;
}
