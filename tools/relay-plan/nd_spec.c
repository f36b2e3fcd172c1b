/* nd_spec.c — parsing relay-plan's N-D layout specs (the grammar: plan.h):
 *
 *   nd:SHAPE:mesh=MESH[@RANKS][:place=P,P,..][:order=C|F][:pad=AxBx..]
 *
 * The fields are read into an nd_spec (every array the description
 * points to lives there), checked where relay_nd_layout_create could not
 * tell what went wrong or would read past what was given (a split list of
 * the wrong length, a rank list of the wrong count), and handed to
 * relay_nd_layout_create, which checks the rest.  Every error is one line
 * naming the field at fault. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "plan.h"

enum { ND_MAX_FIELDS = 8, ND_MAX_MESH_RANKS = 1 << 24 };

/* The keys after SHAPE, each given at most once. */
enum { KEY_MESH, KEY_PLACE, KEY_ORDER, KEY_PAD, NKEYS };
static const char *const key_names[NKEYS] = {"mesh", "place", "order", "pad"};

typedef struct {
    int ndims, mesh_ndims;
    int64_t shape[RELAY_ND_MAX_DIMS], padded[RELAY_ND_MAX_DIMS];
    int mesh_shape[RELAY_ND_MAX_MESH];
    int64_t mesh_size;
    int *ranks;                                /* mesh_size entries */
    relay_placement place[RELAY_ND_MAX_MESH];
    int64_t *splits[RELAY_ND_MAX_MESH];        /* split points, or NULL */
    relay_order order;
    const char *value[NKEYS];                  /* the keys' values as given, or NULL */
    int64_t nranks;                            /* mesh ranks lie below */
} nd_spec;

static void nd_spec_free(nd_spec *s)
{
    free(s->ranks);
    for (int m = 0; m < RELAY_ND_MAX_MESH; m++) free(s->splits[m]);
}

/* "AxBx.." (sep x) into 1 .. max integers in [min, max_value]. */
static int parse_list(char *text, char sep, const char *what, int max, int64_t min, int64_t max_value, int64_t *out,
                      int *count, cli_error *e)
{
    char *fields[RELAY_ND_MAX_DIMS + 1];
    int n = spec_split_fields(text, sep, fields, max);
    if (n < 0) return cli_fail(e, CLI_USAGE, "%s has more than %d entries", what, max);
    for (int i = 0; i < n; i++)
        if (cli_parse_int(fields[i], what, min, max_value, &out[i], e)) return e->status;
    *count = n;
    return CLI_OK;
}

/* ---- mesh=MESH[@RANKS] ---------------------------------------------------- */

/* A rank of the list: one of the plan's. */
static int parse_rank(const char *text, int64_t nranks, int64_t *out, cli_error *e)
{
    if (cli_parse_int(text, "mesh ranks", 0, INT_MAX, out, e)) return e->status;
    if (*out >= nranks)
        return cli_fail(e, CLI_USAGE, "mesh ranks: rank %lld is outside the plan's %lld ranks (--ranks)", (long long)*out, (long long)nranks);
    return CLI_OK;
}

/* One item of a rank list, "A" or "A-B", into [*lo, *hi]. */
static int parse_rank_range(char *item, int64_t nranks, int64_t *lo, int64_t *hi, cli_error *e)
{
    char *dash = strchr(item, '-');
    if (dash == item) return cli_fail(e, CLI_USAGE, "mesh ranks: '%s' is not a rank or a range A-B", item);
    if (dash) *dash = '\0';
    if (parse_rank(item, nranks, lo, e)) return e->status;
    *hi = *lo;
    if (dash && parse_rank(dash + 1, nranks, hi, e)) return e->status;
    if (*hi < *lo) return cli_fail(e, CLI_USAGE, "mesh ranks: the range %lld-%lld runs backwards", (long long)*lo, (long long)*hi);
    return CLI_OK;
}

/* The ranks of the mesh in mesh order: exactly mesh_size of them, each
 * below the plan's rank count (checked before anything is allocated for
 * them, so a range cannot ask for more than the mesh holds). */
static int parse_ranks(char *text, nd_spec *s, cli_error *e)
{
    int64_t n = 0;
    for (char *item = text, *next; item; item = next) {
        next = strchr(item, ',');
        if (next) *next++ = '\0';
        int64_t lo, hi;
        if (parse_rank_range(item, s->nranks, &lo, &hi, e)) return e->status;
        if (hi - lo + 1 > s->mesh_size - n)
            return cli_fail(e, CLI_USAGE, "mesh ranks: the list holds more than the mesh's %lld ranks", (long long)s->mesh_size);
        for (int64_t r = lo; r <= hi; r++) s->ranks[n++] = (int)r;
    }
    if (n != s->mesh_size)
        return cli_fail(e, CLI_USAGE, "mesh ranks: the list holds %lld ranks; the mesh has %lld", (long long)n, (long long)s->mesh_size);
    return CLI_OK;
}

static int parse_mesh(char *text, nd_spec *s, cli_error *e)
{
    char *at = strchr(text, '@');
    if (at) *at = '\0';
    int64_t sizes[RELAY_ND_MAX_MESH];
    if (parse_list(text, 'x', "mesh", RELAY_ND_MAX_MESH, 1, ND_MAX_MESH_RANKS, sizes, &s->mesh_ndims, e)) return e->status;
    s->mesh_size = 1;
    for (int m = 0; m < s->mesh_ndims; m++) {
        s->mesh_shape[m] = (int)sizes[m];
        s->mesh_size *= sizes[m];
        if (s->mesh_size > ND_MAX_MESH_RANKS) return cli_fail(e, CLI_USAGE, "mesh: more than 2^24 ranks");
    }
    if (!(s->ranks = malloc((size_t)s->mesh_size * sizeof *s->ranks))) return cli_fail(e, CLI_FAILED, "out of memory");
    if (at) return parse_ranks(at + 1, s, e);
    if (s->mesh_size > s->nranks)
        return cli_fail(e, CLI_USAGE, "mesh: %lld ranks, more than the plan's %lld (--ranks)", (long long)s->mesh_size,
                        (long long)s->nranks);
    for (int64_t i = 0; i < s->mesh_size; i++) s->ranks[i] = (int)i;
    return CLI_OK;
}

/* ---- place=P,P,.. ---------------------------------------------------------- */

/* "<s0>|<s1>|..|<sp>": the p+1 split points of mesh dimension m. */
static int parse_splits(char *text, nd_spec *s, int m, const char *item, cli_error *e)
{
    int64_t p = s->mesh_shape[m], n = 1;
    for (const char *c = text; *c; c++) n += *c == '|';
    if (n != p + 1)
        return cli_fail(e, CLI_USAGE, "place '%s': %lld split points; mesh dimension %d of size %lld needs %lld (0 to the extent)", item,
                        (long long)n, m, (long long)p, (long long)(p + 1));
    if (!(s->splits[m] = malloc((size_t)n * sizeof *s->splits[m]))) return cli_fail(e, CLI_FAILED, "out of memory");
    for (int64_t i = 0; i < n; i++) {
        char *bar = strchr(text, '|');
        if (bar) *bar = '\0';
        if (cli_parse_int(text, "split point", 0, INT64_MAX, &s->splits[m][i], e)) return e->status;
        if (bar) text = bar + 1;
    }
    s->place[m].splits = s->splits[m];
    return CLI_OK;
}

/* "S<k>", "S<k>/b<B>" or "S<k>/<splits>" for mesh dimension m. */
static int parse_shard(char *text, nd_spec *s, int m, const char *item, cli_error *e)
{
    char *slash = strchr(text, '/');
    if (slash) *slash = '\0';
    int64_t k;
    if (cli_parse_int(text + 1, "place: the array dimension after S", 0, INT_MAX, &k, e)) return e->status;
    if (k >= s->ndims)
        return cli_fail(e, CLI_USAGE, "place '%s': array dimension %lld is not one of the %d (0 to %d)", item, (long long)k, s->ndims,
                        s->ndims - 1);
    s->place[m] = (relay_placement){RELAY_SHARD, (int)k, 0, NULL};
    if (!slash) return CLI_OK;
    if (slash[1] == 'b') return cli_parse_int(slash + 2, "place: the block size after /b", 1, INT64_MAX, &s->place[m].block, e);
    return parse_splits(slash + 1, s, m, item, e);
}

static int parse_placement(char *item, nd_spec *s, int m, cli_error *e)
{
    char given[256];
    snprintf(given, sizeof given, "%s", item);
    if (strcmp(item, "R") == 0) s->place[m] = (relay_placement){RELAY_REPLICATE, 0, 0, NULL};
    else if (strcmp(item, "P") == 0) s->place[m] = (relay_placement){RELAY_PARTIAL, 0, 0, NULL};
    else if (item[0] == 'S') return parse_shard(item, s, m, given, e);
    else return cli_fail(e, CLI_USAGE, "place '%s' is not S<k>, S<k>/b<B>, S<k>/<s0>|..|<sp>, R or P", given);
    return CLI_OK;
}

static int parse_placements(char *text, nd_spec *s, cli_error *e)
{
    char *items[RELAY_ND_MAX_MESH];
    int n = spec_split_fields(text, ',', items, RELAY_ND_MAX_MESH);
    if (n < 0) return cli_fail(e, CLI_USAGE, "place: more than %d placements (one per mesh dimension)", RELAY_ND_MAX_MESH);
    if (n != s->mesh_ndims)
        return cli_fail(e, CLI_USAGE, "place: %d placement%s for a mesh of %d dimensions (one each)", n, n == 1 ? "" : "s",
                        s->mesh_ndims);
    for (int m = 0; m < n; m++)
        if (parse_placement(items[m], s, m, e)) return e->status;
    return CLI_OK;
}

/* Without place=: mesh dimension m shards array dimension m. */
static int default_placements(nd_spec *s, cli_error *e)
{
    if (s->mesh_ndims > s->ndims)
        return cli_fail(e, CLI_USAGE, "the default placements S0..S%d need %d array dimensions; give place=", s->mesh_ndims - 1,
                        s->mesh_ndims);
    for (int m = 0; m < s->mesh_ndims; m++) s->place[m] = (relay_placement){RELAY_SHARD, m, 0, NULL};
    return CLI_OK;
}

/* ---- order= and pad= ------------------------------------------------------- */

static int parse_order(const char *text, nd_spec *s, cli_error *e)
{
    if (strcmp(text, "C") == 0) s->order = RELAY_ROW_MAJOR;
    else if (strcmp(text, "F") == 0) s->order = RELAY_COL_MAJOR;
    else return cli_fail(e, CLI_USAGE, "order: '%s' is not C (last dimension fastest) or F (first fastest)", text);
    return CLI_OK;
}

static int parse_padding(char *text, nd_spec *s, cli_error *e)
{
    int n = 0; /* parse_list sets it when it succeeds; the compiler cannot see that */
    if (parse_list(text, 'x', "pad", RELAY_ND_MAX_DIMS, 0, INT64_MAX, s->padded, &n, e)) return e->status;
    if (n != s->ndims) return cli_fail(e, CLI_USAGE, "pad: %d extents for an array of %d dimensions", n, s->ndims);
    return CLI_OK;
}

/* ---- the fields ------------------------------------------------------------ */

/* Records "key=value" (a key once); the values are read in key order. */
static int note_key(char *field, nd_spec *s, cli_error *e)
{
    char *eq = strchr(field, '=');
    if (!eq) return cli_fail(e, CLI_USAGE, "'%s' is not a key=value field (mesh=, place=, order= or pad=)", field);
    *eq = '\0';
    for (int k = 0; k < NKEYS; k++) {
        if (strcmp(field, key_names[k]) != 0) continue;
        if (s->value[k]) return cli_fail(e, CLI_USAGE, "%s= is given twice", field);
        s->value[k] = eq + 1;
        return CLI_OK;
    }
    return cli_fail(e, CLI_USAGE, "unknown key '%s' (expected mesh, place, order or pad)", field);
}

static int parse_fields(char *text, nd_spec *s, cli_error *e)
{
    char *fields[ND_MAX_FIELDS];
    int count = spec_split_fields(text, ':', fields, ND_MAX_FIELDS);
    if (count < 0) return cli_fail(e, CLI_USAGE, "too many ':' fields");
    if (parse_list(fields[0], 'x', "shape", RELAY_ND_MAX_DIMS, 0, INT64_MAX, s->shape, &s->ndims, e)) return e->status;
    for (int i = 1; i < count; i++)
        if (note_key(fields[i], s, e)) return e->status;
    if (!s->value[KEY_MESH]) return cli_fail(e, CLI_USAGE, "missing mesh= (expected nd:SHAPE:mesh=MESH[@RANKS][:place=..][:order=C|F][:pad=..])");
    if (parse_mesh((char *)s->value[KEY_MESH], s, e)) return e->status;
    if (s->value[KEY_PLACE] ? parse_placements((char *)s->value[KEY_PLACE], s, e) : default_placements(s, e)) return e->status;
    if (s->value[KEY_ORDER] && parse_order(s->value[KEY_ORDER], s, e)) return e->status;
    if (s->value[KEY_PAD] && parse_padding((char *)s->value[KEY_PAD], s, e)) return e->status;
    return CLI_OK;
}

static int build_nd(const nd_spec *s, relay_nd_layout **out, cli_error *e)
{
    relay_nd_desc d = {s->ndims, s->shape, s->mesh_ndims, s->mesh_shape, s->ranks, s->place, s->order,
                       s->value[KEY_PAD] ? s->padded : NULL};
    relay_status st = relay_nd_layout_create(out, &d);
    return st ? cli_fail_relay(e, CLI_USAGE, st, "not a valid layout") : CLI_OK;
}

int nd_spec_is(const char *spec) { return strncmp(spec, "nd:", 3) == 0; }

int nd_spec_parse(const char *spec, int64_t nranks, relay_nd_layout **out, cli_error *e)
{
    char *text = strdup(spec + 3);
    if (!text) return cli_fail(e, CLI_FAILED, "out of memory");
    nd_spec s = {.order = RELAY_ROW_MAJOR, .nranks = nranks};
    int status = parse_fields(text, &s, e);
    if (!status) status = build_nd(&s, out, e);
    nd_spec_free(&s);
    free(text);
    if (status) spec_prefix(e, spec);
    return status;
}
