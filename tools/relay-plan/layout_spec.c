/* layout_spec.c — parsing relay-plan's layout specs (the grammar: plan.h):
 * the block-cyclic "bc:" form, and "json:" files read by a small strict
 * reader that accepts exactly one object of known keys whose values are
 * integers, arrays of integers or strings, and names the line and column of
 * anything else. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "plan.h"

/* ---- bc:MxN:MBxNB:PRxPC[:grid=row|col][:elem=col|row][:src=R,C] ------- */

enum { BC_MAX_FIELDS = 8 };

typedef struct {
    int64_t m, n, mb, nb, nprow, npcol, rsrc, csrc;
    relay_order grid, elem;
} bc_spec;

int spec_split_fields(char *text, char sep, char **fields, int max)
{
    int count = 0;
    for (char *f = text;; f++) {
        if (count == max) return -1;
        fields[count++] = f;
        f = strchr(f, sep);
        if (!f) return count;
        *f = '\0';
    }
}

/* "AxB" (or "A,B" with sep ','): two integers in [min, max]. */
static int parse_two(char *field, char sep, const char *what, int64_t min, int64_t max, int64_t *a, int64_t *b,
                     cli_error *e)
{
    char *parts[2];
    if (spec_split_fields(field, sep, parts, 2) != 2)
        return cli_fail(e, CLI_USAGE, "%s '%s' is not of the form A%cB", what, field, sep);
    if (cli_parse_int(parts[0], what, min, max, a, e) || cli_parse_int(parts[1], what, min, max, b, e))
        return e->status;
    return CLI_OK;
}

static int parse_order(const char *text, const char *what, relay_order *out, cli_error *e)
{
    int i;
    if (cli_parse_keyword(text, what, cli_order_words, &i, e)) return e->status;
    *out = (relay_order)i;
    return CLI_OK;
}

/* One of the optional "key=value" fields after the sizes. */
static int parse_bc_option(char *field, bc_spec *bc, cli_error *e)
{
    char *eq = strchr(field, '=');
    if (!eq) return cli_fail(e, CLI_USAGE, "'%s' is not a key=value option (grid=, elem= or src=)", field);
    *eq = '\0';
    char *value = eq + 1;
    if (strcmp(field, "grid") == 0) return parse_order(value, "grid", &bc->grid, e);
    if (strcmp(field, "elem") == 0) return parse_order(value, "elem", &bc->elem, e);
    if (strcmp(field, "src") == 0) return parse_two(value, ',', "src", 0, INT_MAX, &bc->rsrc, &bc->csrc, e);
    return cli_fail(e, CLI_USAGE, "unknown option '%s' (expected grid, elem or src)", field);
}

static int parse_bc_fields(char *text, bc_spec *bc, cli_error *e)
{
    char *fields[BC_MAX_FIELDS];
    int count = spec_split_fields(text, ':', fields, BC_MAX_FIELDS);
    if (count < 0) return cli_fail(e, CLI_USAGE, "too many ':' fields");
    if (count < 3) return cli_fail(e, CLI_USAGE, "expected bc:MxN:MBxNB:PRxPC[:grid=..][:elem=..][:src=R,C]");
    if (parse_two(fields[0], 'x', "matrix size", 0, INT64_MAX, &bc->m, &bc->n, e) ||
        parse_two(fields[1], 'x', "block size", 1, INT64_MAX, &bc->mb, &bc->nb, e) ||
        parse_two(fields[2], 'x', "process grid", 1, INT_MAX, &bc->nprow, &bc->npcol, e))
        return e->status;
    for (int i = 3; i < count; i++)
        if (parse_bc_option(fields[i], bc, e)) return e->status;
    return CLI_OK;
}

static int build_block_cyclic(const char *body, relay_layout **out, cli_error *e)
{
    char *text = strdup(body);
    if (!text) return cli_fail(e, CLI_FAILED, "out of memory");
    bc_spec bc = {.grid = RELAY_ROW_MAJOR, .elem = RELAY_COL_MAJOR};
    int status = parse_bc_fields(text, &bc, e);
    free(text);
    if (status) return status;
    relay_status st = relay_layout_block_cyclic(out, bc.m, bc.n, bc.mb, bc.nb, (int)bc.nprow, (int)bc.npcol,
                                                bc.grid, (int)bc.rsrc, (int)bc.csrc, 0, bc.elem);
    return st ? cli_fail_relay(e, CLI_USAGE, st, "not a valid layout") : CLI_OK;
}

/* ---- the strict JSON reader --------------------------------------------- */

typedef struct {
    const char *start, *p, *end;
    cli_error *e;
} json_cursor;

/* Fails with the line and column of the cursor. */
__attribute__((format(printf, 2, 3))) static int json_fail(json_cursor *c, const char *fmt, ...)
{
    int line = 1, col = 1;
    for (const char *q = c->start; q < c->p; q++, col++)
        if (*q == '\n') {
            line++;
            col = 0;
        }
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cli_fail(c->e, CLI_FAILED, "line %d, column %d: %s", line, col, what);
}

static void skip_space(json_cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static int at_end(json_cursor *c)
{
    skip_space(c);
    return c->p == c->end;
}

/* The next significant character, or 0 at the end of the text. */
static char peek(json_cursor *c) { return at_end(c) ? 0 : *c->p; }

static int expect(json_cursor *c, char ch, const char *context)
{
    if (at_end(c)) return json_fail(c, "expected '%c' %s, found the end of the file", ch, context);
    if (*c->p != ch) return json_fail(c, "expected '%c' %s, found '%c'", ch, context, *c->p);
    c->p++;
    return CLI_OK;
}

/* A string of printable ASCII without escapes: all this shape needs. */
static int read_string(json_cursor *c, char *buf, size_t cap)
{
    if (expect(c, '"', "to start a string")) return c->e->status;
    size_t len = 0;
    for (; c->p < c->end && *c->p != '"'; c->p++) {
        if (*c->p == '\\') return json_fail(c, "escape sequences are not supported in this file");
        if ((unsigned char)*c->p < 0x20) return json_fail(c, "control character in a string");
        if (len + 1 == cap) return json_fail(c, "string longer than %zu characters", cap - 1);
        buf[len++] = *c->p;
    }
    if (c->p == c->end) return json_fail(c, "unterminated string");
    c->p++;
    buf[len] = '\0';
    return CLI_OK;
}

static int read_int(json_cursor *c, int64_t *out)
{
    skip_space(c);
    const char *q = c->p;
    if (q < c->end && *q == '-') q++;
    const char *digits = q;
    while (q < c->end && *q >= '0' && *q <= '9') q++;
    if (q == digits) return json_fail(c, "expected an integer");
    if (q < c->end && (*q == '.' || *q == 'e' || *q == 'E')) return json_fail(c, "expected an integer, not a fraction");
    if (*digits == '0' && q - digits > 1) return json_fail(c, "leading zeros are not allowed in numbers");
    int64_t v = 0;
    int negative = *c->p == '-';
    for (const char *d = digits; d < q; d++) {
        int digit = *d - '0';
        if (v > (INT64_MAX - digit) / 10) return json_fail(c, "integer out of range");
        v = v * 10 + digit;
    }
    *out = negative ? -v : v;
    c->p = q;
    return CLI_OK;
}

typedef struct {
    int64_t *items;
    int64_t count;
} int_array;

static int push_int(json_cursor *c, int_array *a, int64_t v, int64_t *cap)
{
    if (a->count == *cap) {
        int64_t grown_cap = *cap ? 2 * *cap : 64;
        int64_t *grown = realloc(a->items, (size_t)grown_cap * sizeof *grown);
        if (!grown) return json_fail(c, "out of memory");
        a->items = grown;
        *cap = grown_cap;
    }
    a->items[a->count++] = v;
    return CLI_OK;
}

static int read_int_array(json_cursor *c, int_array *a)
{
    int64_t cap = 0, v;
    if (expect(c, '[', "to start an array of integers")) return c->e->status;
    if (peek(c) == ']') {
        c->p++;
        return CLI_OK;
    }
    for (;;) {
        if (read_int(c, &v) || push_int(c, a, v, &cap)) return c->e->status;
        if (peek(c) == ']') {
            c->p++;
            return CLI_OK;
        }
        if (expect(c, ',', "or ']' in an array")) return c->e->status;
    }
}

/* ---- the grid layout document ------------------------------------------- */

enum { K_NRANKS, K_M, K_N, K_ROW_SPLITS, K_COL_SPLITS, K_OWNERS, K_ORDER, K_OFFSETS, K_LDS, NKEYS };
static const char *const key_names[NKEYS] = {"nranks", "m", "n", "row_splits", "col_splits", "owners",
                                             "order", "offsets", "lds"};
static const unsigned required_keys = 1u << K_NRANKS | 1u << K_M | 1u << K_N | 1u << K_ROW_SPLITS |
                                      1u << K_COL_SPLITS | 1u << K_OWNERS;

typedef struct {
    int64_t nranks, m, n;
    int_array row_splits, col_splits, owners, offsets, lds;
    relay_order order;
    unsigned seen;           /* bit per key */
} grid_doc;

static void free_grid_doc(grid_doc *d)
{
    free(d->row_splits.items);
    free(d->col_splits.items);
    free(d->owners.items);
    free(d->offsets.items);
    free(d->lds.items);
}

static int read_order(json_cursor *c, relay_order *out)
{
    char text[16];
    if (read_string(c, text, sizeof text)) return c->e->status;
    if (strcmp(text, "col") == 0) *out = RELAY_COL_MAJOR;
    else if (strcmp(text, "row") == 0) *out = RELAY_ROW_MAJOR;
    else return json_fail(c, "\"order\" must be \"col\" or \"row\", not \"%s\"", text);
    return CLI_OK;
}

static int read_value(json_cursor *c, int key, grid_doc *d)
{
    switch (key) {
    case K_NRANKS: return read_int(c, &d->nranks);
    case K_M: return read_int(c, &d->m);
    case K_N: return read_int(c, &d->n);
    case K_ROW_SPLITS: return read_int_array(c, &d->row_splits);
    case K_COL_SPLITS: return read_int_array(c, &d->col_splits);
    case K_OWNERS: return read_int_array(c, &d->owners);
    case K_ORDER: return read_order(c, &d->order);
    case K_OFFSETS: return read_int_array(c, &d->offsets);
    default: return read_int_array(c, &d->lds);
    }
}

static int read_member(json_cursor *c, grid_doc *d)
{
    char name[64];
    const char *at = c->p;
    if (read_string(c, name, sizeof name)) return c->e->status;
    int key = 0;
    while (key < NKEYS && strcmp(name, key_names[key]) != 0) key++;
    if (key == NKEYS) {
        c->p = at;
        return json_fail(c, "unknown key \"%s\"", name);
    }
    if (d->seen & 1u << key) {
        c->p = at;
        return json_fail(c, "key \"%s\" appears twice", name);
    }
    d->seen |= 1u << key;
    if (expect(c, ':', "after a key")) return c->e->status;
    return read_value(c, key, d);
}

static int read_grid_doc(json_cursor *c, grid_doc *d)
{
    if (expect(c, '{', "to start the layout object")) return c->e->status;
    if (peek(c) != '}')
        for (;;) {
            if (read_member(c, d)) return c->e->status;
            if (peek(c) == '}') break;
            if (expect(c, ',', "or '}' after a value")) return c->e->status;
        }
    c->p++;
    if (!at_end(c)) return json_fail(c, "unexpected text after the layout object");
    for (int key = 0; key < NKEYS; key++)
        if ((required_keys & 1u << key) && !(d->seen & 1u << key))
            return cli_fail(c->e, CLI_FAILED, "missing key \"%s\"", key_names[key]);
    return CLI_OK;
}

/* Checks what relay_layout_grid cannot see: array lengths and int ranges. */
static int check_grid_doc(const grid_doc *d, cli_error *e)
{
    if (d->nranks < 1 || d->nranks > INT_MAX) return cli_fail(e, CLI_FAILED, "\"nranks\" = %lld is not a rank count", (long long)d->nranks);
    if (d->row_splits.count < 1 || d->col_splits.count < 1)
        return cli_fail(e, CLI_FAILED, "\"row_splits\" and \"col_splits\" need at least one entry (0)");
    if (d->row_splits.count - 1 > INT_MAX || d->col_splits.count - 1 > INT_MAX)
        return cli_fail(e, CLI_FAILED, "too many blocks");
    int64_t nblocks = (d->row_splits.count - 1) * (d->col_splits.count - 1);
    if (d->owners.count != nblocks)
        return cli_fail(e, CLI_FAILED, "\"owners\" has %lld entries, expected %lld (%lld x %lld blocks)",
                        (long long)d->owners.count, (long long)nblocks, (long long)d->row_splits.count - 1,
                        (long long)d->col_splits.count - 1);
    for (int64_t b = 0; b < nblocks; b++)
        if (d->owners.items[b] < 0 || d->owners.items[b] >= d->nranks)
            return cli_fail(e, CLI_FAILED, "owners[%lld] = %lld is not a rank in [0, %lld)", (long long)b,
                            (long long)d->owners.items[b], (long long)d->nranks);
    if (!(d->seen & 1u << K_OFFSETS) != !(d->seen & 1u << K_LDS))
        return cli_fail(e, CLI_FAILED, "give both \"offsets\" and \"lds\", or neither");
    if ((d->seen & 1u << K_OFFSETS) && (d->offsets.count != nblocks || d->lds.count != nblocks))
        return cli_fail(e, CLI_FAILED, "\"offsets\" and \"lds\" need one entry per block (%lld)", (long long)nblocks);
    return CLI_OK;
}

static int build_from_doc(const grid_doc *d, relay_layout **out, cli_error *e)
{
    int64_t nblocks = d->owners.count;
    int *owners = malloc((size_t)(nblocks ? nblocks : 1) * sizeof *owners);
    if (!owners) return cli_fail(e, CLI_FAILED, "out of memory");
    for (int64_t b = 0; b < nblocks; b++) owners[b] = (int)d->owners.items[b];
    int explicit_storage = (d->seen & 1u << K_OFFSETS) != 0;
    relay_status st = relay_layout_grid(out, (int)d->nranks, d->m, d->n, (int)d->row_splits.count - 1,
                                        d->row_splits.items, (int)d->col_splits.count - 1, d->col_splits.items,
                                        owners, explicit_storage ? d->offsets.items : NULL,
                                        explicit_storage ? d->lds.items : NULL, d->order);
    free(owners);
    return st ? cli_fail_relay(e, CLI_FAILED, st, "not a valid layout") : CLI_OK;
}

/* The whole file in memory; *len excludes the terminating NUL added. */
static int read_file(const char *path, char **text, size_t *len, cli_error *e)
{
    FILE *f = fopen(path, "rb");
    if (!f) return cli_fail(e, CLI_FAILED, "cannot open: %s", strerror(errno));
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap);
    while (buf) {
        used += fread(buf + used, 1, cap - used - 1, f);
        if (used < cap - 1) break;
        char *grown = realloc(buf, cap * 2);
        if (!grown) free(buf);
        buf = grown;
        cap *= 2;
    }
    int failed = ferror(f), why = errno;
    fclose(f);
    if (!buf) return cli_fail(e, CLI_FAILED, "out of memory");
    if (failed) {
        free(buf);
        return cli_fail(e, CLI_FAILED, "cannot read: %s", strerror(why));
    }
    buf[used] = '\0';
    *text = buf;
    *len = used;
    return CLI_OK;
}

static int build_grid_from_file(const char *path, relay_layout **out, cli_error *e)
{
    char *text = NULL;
    size_t len = 0;
    int status = read_file(path, &text, &len, e);
    if (!status) {
        json_cursor c = {text, text, text + len, e};
        grid_doc d = {.order = RELAY_COL_MAJOR};
        status = read_grid_doc(&c, &d);
        if (!status) status = check_grid_doc(&d, e);
        if (!status) status = build_from_doc(&d, out, e);
        free_grid_doc(&d);
        free(text);
    }
    if (status) {
        char prefix[600];
        snprintf(prefix, sizeof prefix, "layout file '%s'", path);
        cli_prefix(e, prefix);
    }
    return status;
}

/* ---- the entry point ---------------------------------------------------- */

int layout_spec_parse(const char *spec, relay_layout **out, cli_error *e)
{
    if (strncmp(spec, "json:", 5) == 0) {
        if (!spec[5]) return cli_fail(e, CLI_USAGE, "bad layout spec 'json:': no file name");
        return build_grid_from_file(spec + 5, out, e);
    }
    int status = strncmp(spec, "bc:", 3) == 0
                         ? build_block_cyclic(spec + 3, out, e)
                         : cli_fail(e, CLI_USAGE, "expected bc:..., json:PATH or nd:...");
    if (status) spec_prefix(e, spec);
    return status;
}

void spec_prefix(cli_error *e, const char *spec)
{
    char prefix[600];
    snprintf(prefix, sizeof prefix, "bad layout spec '%.500s'", spec);
    cli_prefix(e, prefix);
}
