/*
 * resolve: which archive members the link uses, and which device images
 * join the device link.
 *
 * Two passes, each run to completion:
 *
 * 1. The host link.  We replay what ld.lld does with the inputs, in
 *    command-line order: objects are loaded; an archive member's defined
 *    symbols become "lazy"; a strong undefined reference to a lazy symbol
 *    loads its member, whichever came first on the line; a weak undefined
 *    reference never loads a member; a shared library's definitions satisfy
 *    references (and replace lazy symbols), its strong undefined references
 *    load members like an object's.  Lazy symbols are remembered, so a
 *    library named before the objects still provides members: this is
 *    deliberately a superset of GNU ld's one-pass rule (lld's behaviour),
 *    and it makes --start-group/--end-group unnecessary.  A common symbol
 *    counts as a definition and no archive is searched to replace it (lld's
 *    default; GNU ld may load a member that defines it properly).  -u and
 *    --undefined are references made before the first input; -e/--entry and
 *    --require-defined references after the last, as lld orders them.
 *    -Bstatic/-Bdynamic only change which file -l finds: the scanner has
 *    done that already.
 *
 * 2. The device link.  Every image of a loaded object is selected and may
 *    start a group.  The groups are placed by the rule ol_group_images()
 *    follows too (group_plan.c), each with its own symbol table here.  An image of a member
 *    the host link did not load is then selected when it defines a symbol
 *    that some group it would join references (strongly) and nothing in that
 *    group defines; its symbols join those groups, and the scan repeats until
 *    nothing changes.  Such an image never starts a group: a member that only
 *    device code needs is linked for the targets that need it.  Its owner
 *    stays unloaded (obj->loaded means what the host linker does).
 *
 * A library named twice is one library: members are identified by (archive
 * file identity, member offset) and only the first mention's member objects
 * are ever loaded or selected, so no member's device code is linked twice.
 *
 * Symbols the device link gets elsewhere (device runtime libraries passed to
 * the device linker, libc for CPU targets) stay undefined here; they simply
 * load nothing.
 *
 * Offload kinds play no part: a loaded member's images are selected whatever
 * their kind.  A packaged device library (a raw OffloadBinary member, kind
 * "none" as a rule) has no host symbols, so only its device symbols, or
 * --whole-archive, can select it.
 *
 * Cost: when no archive carries device images, members cannot matter;
 * objects' images are selected and no symbol table is read (members are
 * then left unloaded, which nothing downstream can observe).  Otherwise every
 * input's host symbols are read, since any member may pull another; device
 * symbols are read only when some member has an image for a target that has
 * a group.  A clang -fopenmp line with libgcc.a and the device runtime
 * archive (about 550 members) resolves in under a millisecond.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "offload/cmdline.h"
#include "offload/diag.h"
#include "offload/group_plan.h"
#include "offload/hashtab.h"
#include "offload/inputs.h"
#include "offload/resolve.h"

/* ---- a string-keyed hash table of symbol states -------------------------------- */

enum host_state {
	HOST_NONE = 0,   /* never seen */
	HOST_UNDEFINED,  /* referenced, not defined */
	HOST_LAZY,       /* defined by a member not (yet) loaded */
	HOST_DEFINED,    /* defined by a loaded object (common included) */
	HOST_SHARED,     /* defined by a shared library */
};

enum { DEV_DEFINED = 1, DEV_UNDEFINED = 2 };

struct sym_slot {
	const char *name;
	uint8_t state;         /* enum host_state, or DEV_* bits */
	uint8_t weak_only;     /* host: every reference so far was weak */
	struct ol_object *lazy;
};

/* Symbols by name (offload/hashtab.h); zeroed is empty. */
struct sym_map {
	struct ol_hashtab table;
};

static int slot_named(const void *record, const void *name)
{
	return strcmp(((const struct sym_slot *)record)->name, name) == 0;
}

static struct sym_slot *sym_map_find(const struct sym_map *m, const char *name)
{
	return ol_hashtab_find(&m->table, ol_hash_string(name), slot_named, name);
}

/* The returned slot is valid until the next insertion. */
static struct sym_slot *sym_map_insert(struct sym_map *m, const char *name)
{
	struct sym_slot *s;
	int added;

	m->table.record_size = sizeof(struct sym_slot);
	s = ol_hashtab_insert(&m->table, ol_hash_string(name), slot_named, name, &added);
	if (added)
		s->name = name;
	return s;
}

static void sym_map_release(struct sym_map *m)
{
	ol_hashtab_release(&m->table);
}

/* ---- a set of pointers ------------------------------------------------------------ */

/* Zeroed is empty. */
struct ptr_set {
	struct ol_hashtab table;
};

static int same_pointer(const void *record, const void *p)
{
	return *(const void *const *)record == p;
}

/* Returns 1 if p was added, 0 if it was already there. */
static int ptr_set_add(struct ptr_set *set, const void *p)
{
	const void **slot;
	int added;

	set->table.record_size = sizeof(*slot);
	slot = ol_hashtab_insert(&set->table, ol_hash_pointer(p), same_pointer, p, &added);
	*slot = p;
	return added;
}

static void ptr_set_release(struct ptr_set *set)
{
	ol_hashtab_release(&set->table);
}

/* ---- inputs --------------------------------------------------------------------- */

static int is_loadable_input(enum ol_input_kind kind)
{
	return kind == OL_IN_OBJECT || kind == OL_IN_COFF || kind == OL_IN_BITCODE ||
	       kind == OL_IN_OFFLOAD_BINARY || kind == OL_IN_EXEC;
}

/* Kinds whose symbol table means something to the host linker. */
static int has_host_symbols(enum ol_input_kind kind)
{
	return kind == OL_IN_OBJECT || kind == OL_IN_COFF || kind == OL_IN_BITCODE ||
	       kind == OL_IN_SHARED || kind == OL_IN_EXEC;
}

static const struct ol_symtab *host_symbols(struct ol_object *obj)
{
	static const struct ol_symtab none;
	const struct ol_symtab *t;

	if (!obj || !has_host_symbols(obj->kind))
		return &none;
	t = ol_object_symbols(obj);
	return t ? t : &none;
}

static const struct ol_symtab *device_symbols(struct ol_device_image *img)
{
	static const struct ol_symtab none;
	const struct ol_symtab *t = ol_image_symbols(img);

	return t ? t : &none;
}

/* ---- the same archive named twice ------------------------------------------------- */

struct archive_identity {
	dev_t dev;
	ino_t ino;
	int have_stat;
};

static int same_archive(const struct ol_archive *a, const struct archive_identity *ia,
			const struct ol_archive *b, const struct archive_identity *ib)
{
	if (a == b)
		return 1;
	if (ia->have_stat && ib->have_stat)
		return ia->dev == ib->dev && ia->ino == ib->ino;
	return a->path && b->path && !strcmp(a->path, b->path);
}

/* The canonical member of `canon` with the same member offset as dup. */
static struct ol_object *matching_member(const struct ol_archive *canon, size_t index,
					 const struct ol_object *dup)
{
	if (index < canon->nmembers && canon->members[index]->member_offset == dup->member_offset)
		return canon->members[index];
	for (size_t i = 0; i < canon->nmembers; i++)
		if (canon->members[i]->member_offset == dup->member_offset)
			return canon->members[i];
	return NULL;
}

struct resolver {
	struct ol_inputs *in;
	const struct ol_cmdline *cl;
	/* Per input: the member objects to use for an archive (the first
	 * mention's objects), NULL for other inputs. */
	struct ol_object ***members;
	struct ol_object ***owned;     /* arrays to free */
	size_t nowned;

	struct sym_map host;
	struct ol_object **queue;      /* loaded, symbols not yet processed */
	size_t nqueue, queue_cap;
};

static void map_duplicate_archives(struct resolver *r)
{
	struct ol_inputs *in = r->in;
	struct archive_identity *ids = ol_xcalloc(in->n ? in->n : 1, sizeof(*ids));

	r->members = ol_xcalloc(in->n ? in->n : 1, sizeof(*r->members));
	r->owned = ol_xcalloc(in->n ? in->n : 1, sizeof(*r->owned));
	for (size_t i = 0; i < in->n; i++) {
		struct ol_archive *ar = in->v[i].archive;
		struct stat st;

		if (in->v[i].kind != OL_IN_ARCHIVE || !ar)
			continue;
		if (ar->path && stat(ar->path, &st) == 0) {
			ids[i].dev = st.st_dev;
			ids[i].ino = st.st_ino;
			ids[i].have_stat = 1;
		}
		r->members[i] = ar->members;
		for (size_t j = 0; j < i; j++) {
			struct ol_archive *first = in->v[j].archive;
			struct ol_object **mapped;

			if (in->v[j].kind != OL_IN_ARCHIVE || !first ||
			    !same_archive(first, &ids[j], ar, &ids[i]))
				continue;
			if (first == ar) {
				r->members[i] = r->members[j];
				break;
			}
			/* Two records of one file: use the first one's members,
			 * matched by offset; a member without a match (the file
			 * changed between two reads) stays its own. */
			mapped = ol_xcalloc(ar->nmembers ? ar->nmembers : 1, sizeof(*mapped));
			for (size_t k = 0; k < ar->nmembers; k++) {
				struct ol_object *m = matching_member(first, k, ar->members[k]);
				mapped[k] = m ? m : ar->members[k];
			}
			r->members[i] = mapped;
			r->owned[r->nowned++] = mapped;
			break;
		}
	}
	free(ids);
}

/* ---- pass 1: the host link -------------------------------------------------------- */

static void load(struct resolver *r, struct ol_object *obj)
{
	if (obj->loaded)
		return;
	obj->loaded = 1;
	OL_GROW(r->queue, r->nqueue + 1, r->queue_cap, 64);
	r->queue[r->nqueue++] = obj;
}

/* A reference (from an object, a shared library or the command line). */
static void reference(struct resolver *r, const char *name, int weak)
{
	struct sym_slot *s = sym_map_insert(&r->host, name);

	switch (s->state) {
	case HOST_NONE:
		s->state = HOST_UNDEFINED;
		s->weak_only = (uint8_t)weak;
		break;
	case HOST_UNDEFINED:
		s->weak_only &= (uint8_t)weak;
		break;
	case HOST_LAZY:
		if (!weak)
			load(r, s->lazy);
		break;
	default:
		break;
	}
}

static void process_loaded(struct resolver *r, struct ol_object *obj)
{
	const struct ol_symtab *t = host_symbols(obj);

	for (size_t i = 0; i < t->n; i++) {
		const struct ol_symbol *sym = &t->v[i];
		if (!sym->name || !*sym->name)
			continue;
		if (sym->defined)
			sym_map_insert(&r->host, sym->name)->state = HOST_DEFINED;
		else
			reference(r, sym->name, sym->weak);
	}
}

static void drain(struct resolver *r)
{
	while (r->nqueue)
		process_loaded(r, r->queue[--r->nqueue]);
}

static void add_shared(struct resolver *r, struct ol_object *dso)
{
	const struct ol_symtab *t = host_symbols(dso);

	for (size_t i = 0; i < t->n; i++) {
		const struct ol_symbol *sym = &t->v[i];
		if (!sym->name || !*sym->name)
			continue;
		if (sym->defined) {
			struct sym_slot *s = sym_map_insert(&r->host, sym->name);
			if (s->state != HOST_DEFINED)
				s->state = HOST_SHARED;
		} else {
			reference(r, sym->name, sym->weak);
		}
	}
	drain(r);
}

/* An archive member the host link has not loaded: its definitions become
 * lazy, or it is loaded at once if one of them is wanted already. */
static void add_lazy(struct resolver *r, struct ol_object *m)
{
	const struct ol_symtab *t = host_symbols(m);

	for (size_t i = 0; i < t->n; i++) {
		const struct ol_symbol *sym = &t->v[i];
		struct sym_slot *s;

		if (!sym->defined || !sym->name || !*sym->name)
			continue;
		s = sym_map_insert(&r->host, sym->name);
		if (s->state == HOST_NONE || (s->state == HOST_UNDEFINED && s->weak_only)) {
			s->state = HOST_LAZY;
			s->lazy = m;
		} else if (s->state == HOST_UNDEFINED) {
			load(r, m);
			drain(r);
			return;
		}
	}
}

/* The value of an ld option that names a symbol, or NULL: "-u sym",
 * "--undefined=sym", "--undefined sym" (and the one-dash spellings ld also
 * accepts).  Joined "-usym" is accepted unless it starts "-un", the prefix of
 * ld's long options -undefined..., -unique and -unresolved-symbols. */
static const char *symbol_option(const struct ol_cmdline *cl, size_t *i, const char *const *names,
				 int joined_short)
{
	const struct ol_arg *a = &cl->args[*i];
	const char *w = a->raw;

	if (!w || w[0] != '-')
		return NULL;
	for (const char *const *n = names; *n; n++) {
		size_t len = strlen(*n);
		const char *body = w[1] == '-' ? w + 2 : w + 1;

		if (strncmp(body, *n, len))
			continue;
		if (body[len] == '=')
			return body + len + 1;
		if (body[len] == '\0') {
			if (a->value)
				return a->value;
			if (*i + 1 < cl->nargs) {
				++*i;
				return cl->args[*i].raw;
			}
			return NULL;
		}
	}
	if (joined_short && w[1] == joined_short) {
		if (w[2] == '\0') {
			if (a->value)
				return a->value;
			if (*i + 1 < cl->nargs) {
				++*i;
				return cl->args[*i].raw;
			}
			return NULL;
		}
		if (joined_short == 'u' && w[2] != 'n')
			return w + 2;
	}
	return NULL;
}

/* Symbols the command line itself references: early (-u) or late (-e,
 * --require-defined). */
static void command_line_references(struct resolver *r, int late)
{
	static const char *const early_names[] = { "undefined", NULL };
	static const char *const late_names[] = { "entry", "require-defined", NULL };
	const struct ol_cmdline *cl = r->cl;

	if (!cl)
		return;
	for (size_t i = 0; i < cl->nargs; i++) {
		const char *name = late ? symbol_option(cl, &i, late_names, 'e')
					: symbol_option(cl, &i, early_names, 'u');
		if (name && *name)
			reference(r, name, 0);
	}
	drain(r);
}

static void host_link(struct resolver *r)
{
	struct ol_inputs *in = r->in;

	command_line_references(r, 0);
	for (size_t i = 0; i < in->n; i++) {
		struct ol_input *input = &in->v[i];

		if (is_loadable_input(input->kind) && input->object) {
			load(r, input->object);
			drain(r);
		} else if (input->kind == OL_IN_SHARED && input->object) {
			add_shared(r, input->object);
		} else if (input->kind == OL_IN_ARCHIVE && input->archive) {
			struct ol_object **members = r->members[i];
			for (size_t k = 0; k < input->archive->nmembers; k++) {
				if (members[k]->loaded)
					continue;
				if (input->whole_archive) {
					load(r, members[k]);
					drain(r);
				} else {
					add_lazy(r, members[k]);
				}
			}
		}
	}
	command_line_references(r, 1);
}

/* ---- pass 2: the device link ------------------------------------------------------ */

/* A group as resolve sees it: the device symbols its images define and
 * the ones they need, numbered as the plan numbers the groups. */
struct dev_group {
	struct sym_map ns;
};

/* A primary image's place in a group, its symbols added only once some
 * member could be needed: most links read no device symbol table. */
struct membership {
	struct ol_device_image *img;
	size_t group;
};

/* An image of a member the host link left out, and the groups it would
 * join were it selected. */
struct candidate {
	struct ol_device_image *img;
	size_t *joins, njoins;
};

struct device_link {
	struct ol_group_plan plan;
	struct dev_group *groups;
	size_t groups_cap;
	struct membership *members;
	size_t nmembers, members_cap;
	struct candidate *cand;
	size_t ncand, cand_cap;
};

static void add_to_group(struct dev_group *g, struct ol_device_image *img)
{
	const struct ol_symtab *t = device_symbols(img);

	for (size_t i = 0; i < t->n; i++) {
		const struct ol_symbol *sym = &t->v[i];
		if (!sym->name || !*sym->name)
			continue;
		if (sym->defined)
			sym_map_insert(&g->ns, sym->name)->state |= DEV_DEFINED;
		else if (!sym->weak)
			sym_map_insert(&g->ns, sym->name)->state |= DEV_UNDEFINED;
	}
}

/* An image that may start a group, placed by the plan as ol_group_images()
 * will place it. */
static void add_primary(struct device_link *d, struct ol_device_image *img)
{
	size_t ngroups = d->plan.n;
	size_t *joins = ol_xcalloc(ngroups + 1, sizeof(*joins));
	size_t njoins = ol_group_plan_place(&d->plan, img->bin.triple, img->bin.arch, 1, joins);

	if (d->plan.n > ngroups) {
		OL_GROW(d->groups, d->plan.n, d->groups_cap, 8);
		memset(&d->groups[ngroups], 0, (d->plan.n - ngroups) * sizeof(*d->groups));
	}
	for (size_t k = 0; k < njoins; k++) {
		OL_GROW(d->members, d->nmembers + 1, d->members_cap, 64);
		d->members[d->nmembers++] = (struct membership){ img, joins[k] };
	}
	free(joins);
}

/* An image of a left-out member becomes a candidate when some group would
 * take it.  The groups are all known by then. */
static void add_candidate(struct device_link *d, struct ol_device_image *img)
{
	size_t *joins = ol_xcalloc(d->plan.n + 1, sizeof(*joins));
	size_t njoins = ol_group_plan_joins(&d->plan, img->bin.triple, img->bin.arch, joins);

	if (!njoins) {
		free(joins);
		return;
	}
	OL_GROW(d->cand, d->ncand + 1, d->cand_cap, 64);
	d->cand[d->ncand++] = (struct candidate){ img, joins, njoins };
}

/* Does the candidate define a symbol that a group it would join still
 * needs? */
static int needed(const struct device_link *d, const struct candidate *c)
{
	const struct ol_symtab *syms = device_symbols(c->img);

	for (size_t i = 0; i < syms->n; i++) {
		const struct ol_symbol *sym = &syms->v[i];
		if (!sym->defined || !sym->name || !*sym->name)
			continue;
		for (size_t k = 0; k < c->njoins; k++) {
			const struct sym_slot *s = sym_map_find(&d->groups[c->joins[k]].ns, sym->name);
			if (s && s->state == DEV_UNDEFINED)
				return 1;
		}
	}
	return 0;
}

static void device_link(struct resolver *r)
{
	struct ol_inputs *in = r->in;
	/* 16 groups by exact target ID (main() has decided the release). */
	struct device_link d = { .plan = { .exact = r->cl && r->cl->flavor == OL_FLAVOR_16 } };
	struct ol_linked_image *order;
	size_t norder;
	struct ptr_set seen = { 0 };
	int changed;

	/* Images of loaded objects, grouped as ol_group_images() will. */
	for (size_t i = 0; i < in->n; i++) {
		struct ol_input *input = &in->v[i];
		if (is_loadable_input(input->kind) && input->object)
			for (size_t k = 0; k < input->object->nimages; k++)
				input->object->images[k].selected = 1;
		if (input->kind == OL_IN_ARCHIVE && input->archive)
			for (size_t m = 0; m < input->archive->nmembers; m++) {
				struct ol_object *obj = r->members[i][m];
				if (obj->loaded)
					for (size_t k = 0; k < obj->nimages; k++)
						obj->images[k].selected = 1;
			}
	}
	order = ol_resolve_link_order(in, &norder);
	for (size_t i = 0; i < norder; i++)
		add_primary(&d, order[i].image);
	free(order);

	/* Candidates: images of the members the host link left out, each
	 * member once, for targets that have a group. */
	for (size_t i = 0; i < in->n && d.plan.n; i++) {
		struct ol_input *input = &in->v[i];
		if (input->kind != OL_IN_ARCHIVE || !input->archive || !input->archive->has_offloading)
			continue;
		for (size_t m = 0; m < input->archive->nmembers; m++) {
			struct ol_object *obj = r->members[i][m];
			if (obj->loaded || !obj->nimages || !ptr_set_add(&seen, obj))
				continue;
			for (size_t k = 0; k < obj->nimages; k++)
				add_candidate(&d, &obj->images[k]);
		}
	}

	if (d.ncand)
		for (size_t i = 0; i < d.nmembers; i++)
			add_to_group(&d.groups[d.members[i].group], d.members[i].img);
	do {
		changed = 0;
		for (size_t i = 0; i < d.ncand;) {
			struct candidate *c = &d.cand[i];
			if (!needed(&d, c)) {
				i++;
				continue;
			}
			c->img->selected = 1;
			for (size_t k = 0; k < c->njoins; k++)
				add_to_group(&d.groups[c->joins[k]], c->img);
			free(c->joins);
			*c = d.cand[--d.ncand];
			changed = 1;
		}
	} while (changed);

	for (size_t i = 0; i < d.ncand; i++)
		free(d.cand[i].joins);
	free(d.cand);
	ptr_set_release(&seen);
	for (size_t g = 0; g < d.plan.n; g++)
		sym_map_release(&d.groups[g].ns);
	free(d.groups);
	free(d.members);
	ol_group_plan_release(&d.plan);
}

/* ---- entry points -------------------------------------------------------------------- */

static int any_archive_offloading(const struct ol_inputs *in)
{
	for (size_t i = 0; i < in->n; i++)
		if (in->v[i].kind == OL_IN_ARCHIVE && in->v[i].archive &&
		    in->v[i].archive->has_offloading)
			return 1;
	return 0;
}

int ol_resolve(struct ol_inputs *in, const struct ol_cmdline *cl)
{
	struct resolver r = { 0 };
	int errors = ol_error_count();

	if (!any_archive_offloading(in)) {
		for (size_t i = 0; i < in->n; i++) {
			struct ol_object *obj = in->v[i].object;
			if (!is_loadable_input(in->v[i].kind) || !obj)
				continue;
			obj->loaded = 1;
			for (size_t k = 0; k < obj->nimages; k++)
				obj->images[k].selected = 1;
		}
		return 0;
	}

	r.in = in;
	r.cl = cl;
	map_duplicate_archives(&r);
	host_link(&r);
	device_link(&r);

	sym_map_release(&r.host);
	free(r.queue);
	for (size_t i = 0; i < r.nowned; i++)
		free(r.owned[i]);
	free(r.owned);
	free(r.members);
	/* Reading symbol tables may have reported bad inputs. */
	return ol_error_count() > errors ? -1 : 0;
}

struct order_builder {
	struct ol_linked_image *v;
	size_t n, cap;
	struct ptr_set seen;
};

static void order_add_object(struct order_builder *b, struct ol_object *obj, int pass)
{
	for (size_t k = 0; k < obj->nimages; k++) {
		struct ol_device_image *img = &obj->images[k];
		int primary = obj->loaded != 0;

		/* pass 0 takes primaries only, pass 1 the rest. */
		if (!img->selected || primary != (pass == 0) || !ptr_set_add(&b->seen, img))
			continue;
		OL_GROW(b->v, b->n + 1, b->cap, 64);
		b->v[b->n++] = (struct ol_linked_image){ img, primary };
	}
}

struct ol_linked_image *ol_resolve_link_order(const struct ol_inputs *in, size_t *n)
{
	struct order_builder b = { 0 };

	/* Non-archive inputs and --whole-archive members, in line order. */
	for (size_t i = 0; i < in->n; i++) {
		const struct ol_input *input = &in->v[i];
		if (is_loadable_input(input->kind) && input->object)
			order_add_object(&b, input->object, 0);
		else if (input->kind == OL_IN_ARCHIVE && input->archive && input->whole_archive)
			for (size_t m = 0; m < input->archive->nmembers; m++)
				order_add_object(&b, input->archive->members[m], 0);
	}
	/* The other loaded members, then the device-only ones. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < in->n; i++) {
			const struct ol_input *input = &in->v[i];
			if (input->kind != OL_IN_ARCHIVE || !input->archive)
				continue;
			for (size_t m = 0; m < input->archive->nmembers; m++)
				order_add_object(&b, input->archive->members[m], pass);
		}
	ptr_set_release(&b.seen);
	*n = b.n;
	return b.v;
}
