/*
 * group_plan: which groups a device image joins (offload/group_plan.h).
 * Upstream 19 and 22 build a target's image list from its own ID and then
 * every compatible ID seen before it (CompatibleTargets starts with the
 * image's own); archive images extracted for device symbols are added only
 * to targets that already have inputs.  16 groups by exact ID.
 */
#include <stdlib.h>
#include <string.h>

#include "offload/diag.h"
#include "offload/group_plan.h"
#include "offload/target_id.h"

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

static int same_id(const struct ol_planned_group *g, const char *triple, const char *arch)
{
	return !strcmp(g->triple, triple) && !strcmp(g->arch, arch);
}

static int compatible(const struct ol_group_plan *p, const struct ol_planned_group *g,
		      const char *triple, const char *arch)
{
	return !p->exact && ol_target_ids_compatible(triple, arch, g->triple, g->arch);
}

size_t ol_group_plan_joins(const struct ol_group_plan *p, const char *triple, const char *arch,
			   size_t *joins)
{
	size_t n = 0;

	triple = str_or_empty(triple);
	arch = str_or_empty(arch);
	for (size_t g = 0; g < p->n; g++)
		if (same_id(&p->v[g], triple, arch) || compatible(p, &p->v[g], triple, arch))
			joins[n++] = g;
	return n;
}

size_t ol_group_plan_place(struct ol_group_plan *p, const char *triple, const char *arch,
			   int primary, size_t *joins)
{
	size_t before = p->n, n = 0, own = p->n;

	triple = str_or_empty(triple);
	arch = str_or_empty(arch);
	if (!primary) {
		n = ol_group_plan_joins(p, triple, arch, joins);
		if (n)
			return n;
	}
	for (size_t g = 0; g < before && own == before; g++)
		if (same_id(&p->v[g], triple, arch))
			own = g;
	if (own == before) {
		OL_GROW(p->v, p->n + 1, p->cap, 8);
		p->v[p->n++] = (struct ol_planned_group){ triple, arch };
	}
	joins[n++] = own;
	for (size_t g = 0; g < before; g++)
		if (g != own && compatible(p, &p->v[g], triple, arch))
			joins[n++] = g;
	return n;
}

void ol_group_plan_release(struct ol_group_plan *p)
{
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}
