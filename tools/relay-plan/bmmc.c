/* bmmc.c — `relay-plan bmmc`: a BMMC permutation plan from a named
 * permutation (or a composition of them) or an explicit matrix.
 *
 *   relay-plan bmmc --ranks P (--perm NAME[,NAME...] --bits N | --matrix C0,..,CN-1)
 *       [--complement C] [--inverse] [--rank-bits F|major|minor] [--elem-size S] -o FILE
 *
 * Reference: docs/cli.md; the permutations: include/relay/bmmc.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "plan.h"

const char bmmc_help[] =
    "    relay-plan bmmc --ranks P (--perm NAME[,NAME...] [--bits N] | --matrix C0,..,CN-1)\n"
    "                    [--complement C] [--inverse] [--rank-bits F|major|minor]\n"
    "                    [--elem-size S] -o FILE\n"
    "\n"
    "    Plans the BMMC permutation y = A x XOR c of N = 2^n elements on P = 2^p ranks (paper\n"
    "    004): the element at global index x moves to index y.  Bits F .. F+p-1 of an index\n"
    "    name its rank, the others (in order) its place in the rank's buffer of 2^(n-p)\n"
    "    elements.  The plan stores the factors of A (a few hundred bytes for any N); replay\n"
    "    it with relay-run, inspect the factors and partners with relay-dump.\n"
    "\n"
    "    --ranks P        ranks, a power of two\n"
    "    --perm NAMES     a permutation, or several applied left to right (Lemma 1): identity,\n"
    "                     bit-reversal, vector-reversal, gray-code, shuffle, unshuffle (of --bits\n"
    "                     N index bits) and transpose:RxC (a column-major R x C matrix to its\n"
    "                     transpose; R and C powers of two, N = log2 R + log2 C)\n"
    "    --bits N         index bits of the named permutations (1 to 62; transpose implies it)\n"
    "    --matrix COLS    an explicit characteristic matrix: N comma-separated columns (decimal or\n"
    "                     0x hex); bit i of column j is A(i, j), bit 0 the least significant\n"
    "    --complement C   XOR C into every target index (default 0)\n"
    "    --inverse        plan the inverse of the permutation given\n"
    "    --rank-bits F    where the rank bits start: major (default, F = n - p: each rank holds\n"
    "                     consecutive indices), minor (F = 0: round robin) or any F in [0, n-p]\n"
    "    --elem-size S    bytes per element (default 8)\n"
    "    -o, --output FILE  the plan file to write\n";

typedef struct {
    int64_t ranks, bits, elem_size;
    const char *perm, *matrix, *complement, *rank_bits, *output;
    int inverse;
} bmmc_request;

#define AT(field) offsetof(bmmc_request, field)
static const cli_option bmmc_options[] = {
    CLI_INT("--ranks", AT(ranks), 1, 1 << 24),
    CLI_TEXT("--perm", AT(perm)),
    CLI_INT("--bits", AT(bits), 1, RELAY_BMMC_MAX_BITS),
    CLI_TEXT("--matrix", AT(matrix)),
    CLI_TEXT("--complement", AT(complement)),
    CLI_FLAG("--inverse", AT(inverse)),
    CLI_TEXT("--rank-bits", AT(rank_bits)),
    CLI_INT("--elem-size", AT(elem_size), 1, 1 << 20),
    CLI_TEXT("-o", AT(output)),
    CLI_TEXT("--output", AT(output)),
    CLI_END,
};
#undef AT

/* The options that must be there, and that exclude each other. */
static int check_request(const bmmc_request *r, cli_error *e)
{
    if (!r->ranks) return cli_fail(e, CLI_USAGE, "missing --ranks P (see --help)");
    if (r->ranks & (r->ranks - 1)) return cli_fail(e, CLI_USAGE, "--ranks: %lld is not a power of two", (long long)r->ranks);
    if (!r->perm == !r->matrix) return cli_fail(e, CLI_USAGE, "give exactly one of --perm and --matrix (see --help)");
    if (r->matrix && r->bits) return cli_fail(e, CLI_USAGE, "--bits goes with --perm: --matrix gives one column per bit");
    if (!r->output) return cli_fail(e, CLI_USAGE, "missing -o FILE (see --help)");
    return CLI_OK;
}

/* ---- the permutation ---------------------------------------------------- */

/* An unsigned integer, decimal or 0x hex, nothing around it. */
static int parse_u64(const char *text, size_t len, const char *what, uint64_t *out, cli_error *e)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf) return cli_fail(e, CLI_USAGE, "%s: '%.*s' is not an integer", what, (int)len, text);
    memcpy(buf, text, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    unsigned long long v = buf[0] == '-' ? 0 : strtoull(buf, &end, 0);
    if (buf[0] == '-' || *end || errno)
        return cli_fail(e, CLI_USAGE, "%s: '%s' is not an unsigned integer (decimal or 0x hex)", what, buf);
    *out = v;
    return CLI_OK;
}

static int log2_of(uint64_t v) { return v && !(v & (v - 1)) ? __builtin_ctzll(v) : -1; }

static int matrix_perm(const char *cols, relay_bmmc *out, cli_error *e)
{
    memset(out, 0, sizeof *out);
    for (const char *p = cols; *p; p += *p == ',') {
        size_t len = strcspn(p, ",");
        if (out->n == RELAY_BMMC_MAX_BITS) return cli_fail(e, CLI_USAGE, "--matrix: more than %d columns", RELAY_BMMC_MAX_BITS);
        if (parse_u64(p, len, "--matrix", &out->columns[out->n++], e)) return e->status;
        p += len;
    }
    return out->n ? CLI_OK : cli_fail(e, CLI_USAGE, "--matrix: no columns");
}

/* transpose:RxC */
static relay_status transpose_perm(const char *name, size_t len, relay_bmmc *out, cli_error *e)
{
    const char *x = memchr(name, 'x', len);
    uint64_t rows, cols;
    if (!x || parse_u64(name + 10, (size_t)(x - name - 10), "--perm transpose rows", &rows, e) ||
        parse_u64(x + 1, len - (size_t)(x + 1 - name), "--perm transpose columns", &cols, e))
        return cli_fail(e, CLI_USAGE, "--perm: '%.*s' is not transpose:RxC", (int)len, name);
    if (log2_of(rows) < 0 || log2_of(cols) < 0)
        return cli_fail(e, CLI_USAGE, "--perm: %.*s needs power-of-two sides", (int)len, name);
    return relay_bmmc_transpose(out, log2_of(rows), log2_of(cols)) ? cli_fail_relay(e, CLI_USAGE, RELAY_ERR_ARG, "--perm") : CLI_OK;
}

/* One named permutation of `bits` index bits (0: not given). */
static int named_perm(const char *name, size_t len, int bits, relay_bmmc *out, cli_error *e)
{
    static const struct {
        const char *name;
        relay_status (*make)(relay_bmmc *, int);
    } names[] = {{"identity", relay_bmmc_identity}, {"bit-reversal", relay_bmmc_bit_reversal},
                 {"vector-reversal", relay_bmmc_vector_reversal}, {"gray-code", relay_bmmc_gray_code},
                 {"shuffle", relay_bmmc_shuffle}, {"unshuffle", relay_bmmc_unshuffle}};
    if (len > 10 && strncmp(name, "transpose:", 10) == 0) return transpose_perm(name, len, out, e);
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (strlen(names[k].name) == len && strncmp(name, names[k].name, len) == 0) {
            if (!bits) return cli_fail(e, CLI_USAGE, "--perm %s needs --bits N", names[k].name);
            names[k].make(out, bits);
            return CLI_OK;
        }
    return cli_fail(e, CLI_USAGE,
                    "--perm: unknown permutation '%.*s' (identity, bit-reversal, vector-reversal, gray-code, "
                    "shuffle, unshuffle, transpose:RxC)",
                    (int)len, name);
}

/* The names, composed left to right. */
static int composed_perm(const bmmc_request *r, relay_bmmc *out, cli_error *e)
{
    int have = 0;
    for (const char *p = r->perm; *p || !have; p += *p == ',') {
        size_t len = strcspn(p, ",");
        relay_bmmc next;
        if (named_perm(p, len, (int)r->bits, &next, e)) return e->status;
        if (have && relay_bmmc_compose(out, out, &next))
            return cli_fail(e, CLI_USAGE, "--perm: '%.*s' has %d index bits, the permutations before it %d", (int)len, p,
                            next.n, out->n);
        if (!have) *out = next;
        have = 1;
        p += len;
    }
    return CLI_OK;
}

static int build_perm(const bmmc_request *r, relay_bmmc *perm, cli_error *e)
{
    int status = r->matrix ? matrix_perm(r->matrix, perm, e) : composed_perm(r, perm, e);
    uint64_t c = 0;
    if (!status && r->complement) status = parse_u64(r->complement, strlen(r->complement), "--complement", &c, e);
    if (status) return status;
    perm->complement ^= c;
    if (r->inverse && relay_bmmc_inverse(perm, perm)) return cli_fail_relay(e, CLI_USAGE, RELAY_ERR_ARG, "--inverse");
    return CLI_OK;
}

static int rank_bit_position(const bmmc_request *r, int n, int p, int64_t *f, cli_error *e)
{
    if (!r->rank_bits || strcmp(r->rank_bits, "major") == 0) *f = n - p;
    else if (strcmp(r->rank_bits, "minor") == 0) *f = 0;
    else return cli_parse_int(r->rank_bits, "--rank-bits", 0, n - p < 0 ? 0 : n - p, f, e);
    return *f < 0 ? cli_fail(e, CLI_USAGE, "--ranks: %lld ranks need at least %d index bits", (long long)r->ranks, p) : CLI_OK;
}

int plan_bmmc(int argc, char **argv, int *help, cli_error *e)
{
    bmmc_request r = {.elem_size = 8};
    if (cli_parse_options(argc, argv, 2, bmmc_options, &r, help, e)) return e->status;
    if (*help) return CLI_OK;
    relay_bmmc perm;
    int p = log2_of((uint64_t)r.ranks);
    int64_t f = 0;
    int status = check_request(&r, e);
    if (!status) status = build_perm(&r, &perm, e);
    if (!status) status = rank_bit_position(&r, perm.n, p, &f, e);
    if (!status) status = check_output_path(r.output, e);
    if (status) return status;
    relay_plan *plan = NULL;
    progress planning;
    start_planning(&planning);
    relay_status st = relay_plan_bmmc(&plan, &perm, p, (int)f, (size_t)r.elem_size);
    return finish_plan(&planning, st, plan, r.output, e);
}
