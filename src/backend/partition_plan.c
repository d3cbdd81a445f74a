/*
 * partition_plan: a partition's plan key, a digest of what decides its
 * bitcode, made without cutting it (docs/design/partitioned-lto.md, "The
 * plan key").  A relink cuts only the partitions whose plan the caller has
 * not seen; cutting and writing every partition grew with the program.
 *
 * The plan of partition p: the merged module's text (plan_text.cpp), then,
 * in module order, each global p holds or names: its header's digest, what
 * p holds of it and whether p keeps it listed as used, for a body the
 * digest of the input module it came from (the caller's), whether that is
 * the first module, and its nvvm.annotations entries (the clone keeps those
 * of what it defines; the list names every kernel, whose names change with
 * their files), and the order of its uses among p's bodies (plan_text.cpp).
 * That is all the clone reads (partition_clone.c): the bodies are their
 * modules' bytes mapped to the globals named, their uses ordered as the
 * merged module has them, the rest is the header and the role.
 * Partition 0 is never planned: it gathers the appending arrays of every
 * module.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "offload/sha256.h"
#include "splitter.h"

enum header_state { HEADER_UNKNOWN, HEADER_MADE, HEADER_ATTACHED, HEADER_FAILED };

struct splitter_plan {
	uint8_t module[OL_SHA256_SIZE];
	struct ol_be_use_order *order;
	/* Per node, for the partition being planned: its place among what
	 * the partition holds, and among the bodies it holds; SIZE_MAX else. */
	size_t *rank, *body_rank;
	uint8_t (*headers)[OL_SHA256_SIZE];
	unsigned char *state;    /* enum header_state, per node */
	/* Per node: a digest of its nvvm.annotations entries, if it has any. */
	uint8_t (*annotations)[OL_SHA256_SIZE];
	unsigned char *annotated;
	const struct splitter *s;
};

/* One entry about gv: into its node's digest, chained after the ones
 * before it in the list. */
static void add_annotation(void *arg, LLVMValueRef gv, const char *text, size_t size)
{
	struct splitter_plan *plan = arg;
	size_t i = splitter_node_of(plan->s, gv);
	struct ol_sha256 h;

	if (i >= plan->s->nnodes)
		return;
	ol_sha256_init(&h);
	ol_sha256_update(&h, plan->annotations[i], OL_SHA256_SIZE);
	ol_sha256_update(&h, text, size);
	ol_sha256_final(&h, plan->annotations[i]);
	plan->annotated[i] = 1;
}

static size_t node_of(void *arg, LLVMValueRef gv)
{
	return splitter_node_of(arg, gv);
}

static size_t held_rank(void *arg, size_t node, int body)
{
	const struct splitter_plan *plan = arg;

	if (node >= plan->s->nnodes)
		return SIZE_MAX;
	return body ? plan->body_rank[node] : plan->rank[node];
}

/* The order of node i's uses among what the partition holds, into h:
 * 0, or 1 when it cannot be told. */
static int add_use_order(struct splitter_plan *plan, const struct node *node, struct ol_sha256 *h)
{
	char *text = NULL;
	size_t size = 0;
	int rc = ol_be_use_order_text(plan->order, node->gv, held_rank, plan, &text, &size);

	if (rc == 0) {
		ol_sha256_update(h, &size, sizeof(size));
		ol_sha256_update(h, text, size);
	}
	free(text);
	return rc != 0;
}

int splitter_plan_begin(struct splitter *s, const struct ol_lto_request *req)
{
	struct splitter_plan *plan;
	char *text = NULL;
	size_t size = 0;

	if (!req->partition_planned || !req->module_digests || s->npartitions < 2)
		return 0;
	if (ol_be_module_plan_text(s->mod, &text, &size) != 0)
		return 0;
	plan = calloc(1, sizeof(*plan));
	if (plan) {
		plan->headers = malloc(s->nnodes * sizeof(*plan->headers) + 1);
		plan->state = calloc(s->nnodes + 1, 1);
		plan->annotations = calloc(s->nnodes + 1, sizeof(*plan->annotations));
		plan->annotated = calloc(s->nnodes + 1, 1);
		plan->rank = malloc((s->nnodes + 1) * sizeof(*plan->rank));
		plan->body_rank = malloc((s->nnodes + 1) * sizeof(*plan->body_rank));
		plan->order = ol_be_use_order_new(node_of, s);
		plan->s = s;
	}
	if (plan && plan->rank && plan->body_rank)
		for (size_t i = 0; i <= s->nnodes; i++)
			plan->rank[i] = plan->body_rank[i] = SIZE_MAX;
	if (!plan || !plan->headers || !plan->state || !plan->annotations || !plan->annotated ||
	    !plan->rank || !plan->body_rank || !plan->order ||
	    ol_be_annotation_plan_texts(s->mod, add_annotation, plan) != 0) {
		splitter_plan_end(plan);
		free(text);
		return 0;
	}
	ol_sha256(text, size, plan->module);
	free(text);
	s->plan = plan;
	return 1;
}

void splitter_plan_end(struct splitter_plan *plan)
{
	if (!plan)
		return;
	free(plan->headers);
	free(plan->state);
	free(plan->annotations);
	free(plan->annotated);
	free(plan->rank);
	free(plan->body_rank);
	if (plan->order)
		ol_be_use_order_free(plan->order);
	free(plan);
}

/* Node i's header digest, made once: NULL when it cannot be had, *attached
 * when the global carries metadata. */
static const uint8_t *header_of(struct splitter_plan *plan, const struct node *node, size_t i,
				int *attached)
{
	if (plan->state[i] == HEADER_UNKNOWN) {
		char *text = NULL;
		size_t size = 0;
		int rc = ol_be_global_plan_text(node->gv, &text, &size);

		if (rc < 0) {
			plan->state[i] = HEADER_FAILED;
		} else {
			ol_sha256(text, size, plan->headers[i]);
			plan->state[i] = rc ? HEADER_ATTACHED : HEADER_MADE;
		}
		free(text);
	}
	*attached = plan->state[i] == HEADER_ATTACHED;
	return plan->state[i] == HEADER_FAILED ? NULL : plan->headers[i];
}

static int by_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* The held nodes in node order, as the clone has them, and each one's
 * place among them (and among the bodies) for the use order. */
static void rank_held(struct splitter *s)
{
	size_t bodies = 0;

	qsort(s->held, s->nheld, sizeof(*s->held), by_index);
	for (size_t k = 0; k < s->nheld; k++) {
		s->plan->rank[s->held[k]] = k;
		if (holds_body(s->presence[s->held[k]]))
			s->plan->body_rank[s->held[k]] = bodies++;
	}
}

static void unrank_held(struct splitter *s)
{
	for (size_t k = 0; k < s->nheld; k++)
		s->plan->rank[s->held[k]] = s->plan->body_rank[s->held[k]] = SIZE_MAX;
}

/* Node i as partition p holds it, into h: 0, or 1 when the plan cannot
 * vouch for it. */
static int plan_node(struct splitter_plan *plan, const struct splitter *s,
		     const struct ol_lto_request *req, size_t i, struct ol_sha256 *h)
{
	const struct node *node = &s->nodes[i];
	unsigned char role[2] = { s->presence[i], s->keep[i] };
	const uint8_t *header;
	int attached;

	header = header_of(plan, node, i, &attached);
	/* Metadata a clone copies onto a declaration: not in the text. */
	if (!header || (attached && !holds_body(s->presence[i])))
		return 1;
	ol_sha256_update(h, header, OL_SHA256_SIZE);
	ol_sha256_update(h, role, sizeof(role));
	if (holds_body(s->presence[i]) && !node->is_alias) {
		/* The first module's bodies keep the use order its bytes give;
		 * the IR linker sets every operand of the others anew. */
		unsigned char first;

		if (node->unit >= req->nmodules)
			return 1;
		first = node->unit == 0;
		ol_sha256_update(h, req->module_digests[node->unit], OL_SHA256_SIZE);
		ol_sha256_update(h, &first, 1);
	}
	if (holds_body(s->presence[i]) && plan->annotated[i])
		ol_sha256_update(h, plan->annotations[i], OL_SHA256_SIZE);
	if (s->presence[i] == VIA_ALIASEE) {
		header = header_of(plan, &s->nodes[node->aliasee], node->aliasee, &attached);
		if (!header)
			return 1;
		ol_sha256_update(h, header, OL_SHA256_SIZE);
	}
	return add_use_order(plan, node, h);
}

int splitter_plan_partition(struct splitter *s, const struct ol_lto_request *req, unsigned p,
			    uint8_t digest[OL_SHA256_SIZE])
{
	static const char version[] = "offload-link partition plan 2";
	struct splitter_plan *plan = s->plan;
	struct ol_sha256 h;
	int rc = 0;

	if (!plan || p == 0)
		return 1;
	ol_sha256_init(&h);
	ol_sha256_update(&h, version, sizeof(version));
	ol_sha256_update(&h, plan->module, sizeof(plan->module));
	rank_held(s);
	for (size_t k = 0; k < s->nheld && rc == 0; k++)
		rc = plan_node(plan, s, req, s->held[k], &h);
	unrank_held(s);
	if (rc)
		return 1;
	ol_sha256_final(&h, digest);
	return 0;
}
