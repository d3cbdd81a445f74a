/*
 * Private to src/device: one partitioned LTO in progress (partitioned_lto.c
 * runs it; partition_products.c makes, finds and keeps each partition's
 * products).
 */
#ifndef OFFLOAD_PARTITION_RUN_H
#define OFFLOAD_PARTITION_RUN_H

#include "target_impl.h"
#include "offload/cache.h"
#include "offload/diag.h"

#include <stdatomic.h>

struct partition_run {
	struct ol_group *g;
	const struct ol_link_context *ctx;
	const struct ol_lto_settings *lto;
	const struct ol_lto_request *req;
	const struct ol_backend *be;
	struct ol_cache *cache;        /* NULL: no cache for this link */
	char *prefix;                  /* "<exe>.<triple>.<arch>" */
	atomic_size_t hits;
	atomic_size_t codegen_hits;
	/* The partitions, their products, each one's messages and status. */
	struct ol_buffer *parts;
	struct ol_buffer *keys;        /* what each partition's key is made of (split()) */
	struct ol_buffer *products;
	struct ol_buffer *remarks;     /* each partition's remarks (remark_records.h) */
	const char **paths;            /* a product's file when it was assembled here */
	double *ms;                    /* each partition's wall time, -1 from the cache */
	struct ol_diag_buffer *diags;
	int *status;
	char **invalid;                /* why a partition is not valid IR (status 2) */
	/* codegen_partitions: each partition's object, its remarks, its
	 * codegen's wall time (-1 from the cache). */
	struct ol_buffer *objects;
	struct ol_buffer *codegen_remarks;
	double *codegen_ms;
	/* Each partition's cache keys (with a cache), and whether its product
	 * and its object are at hand (from the cache or the distributor). */
	char (*product_keys)[OL_CACHE_KEY_HEX];
	char (*object_keys)[OL_CACHE_KEY_HEX];
	unsigned char *have_product, *have_object;
	unsigned char *looked_up;      /* the cache was asked once (look_up()) */
	/* Plan keys (partition_planned()): each partition's, when split()
	 * made one (else empty); whether it was not cut, its plan naming
	 * products at hand; the product key its plan named, which its
	 * bitcode's must equal (OFFLOAD_LINK_CHECK_PLANS). */
	char (*plan_keys)[OL_CACHE_KEY_HEX];
	unsigned char *planned;
	char (*plan_named)[OL_CACHE_KEY_HEX];
	int check_plans;
	size_t nplanned;
	atomic_size_t plan_mismatches;
	int lookup_only;               /* the pool looks the partitions up, builds none */
	size_t distributed;            /* how many the distributor built */
	size_t nparts;
};

/* "<exe>.<triple>.<arch>.part<p>" (malloc'd), the names of a partition's
 * files; a link of one partition names them as full LTO does. */
char *ol_partition_prefix(const struct partition_run *run, size_t p);
/* Whether split() put code in partition p. */
int ol_partition_has_code(const struct partition_run *run, size_t p);
/* split()'s questions (backend.h): before it cuts partition p, whether a
 * partition of this plan has its products at hand; once p's key is made,
 * whether its bitcode is wanted. */
int ol_partition_planned(void *arg, size_t p, const uint8_t plan[32]);
int ol_partition_wanted(void *arg, size_t p, const struct ol_buffer *key);
/* Every partition's product, on the link's pool, after the distributor
 * when there is one: 0, -1 (reported), or 2 when a partition is not valid
 * IR (nothing reported). */
int ol_partitions_make_products(struct partition_run *run);
/* The optimized partitions linked into one module for one codegen, its
 * output pushed on files. */
int ol_partitions_codegen_merged(struct partition_run *run, struct ol_buffer *products, size_t n,
				 struct strvec *files);

#endif
