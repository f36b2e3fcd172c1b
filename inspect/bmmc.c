/* bmmc.c — relay-dump for BMMC plans: the permutation, its factors,
 * the rank r of the lower-left block that sets the partner count, and the
 * partners of one rank.
 *
 * Matrices print one row per target bit (row i: bit i of y), one column per
 * source bit, '1' or '.', with a gap between the offset and the rank bits.
 * Volumes are derived here from the factors (rl_bmmc_keeps_block), not
 * read from the planner's statistics. */
#include <stdio.h>
#include <stdlib.h>

#include "dump.h"

static void print_matrix(const char *title, const rl_gf2 *m, int gap_after, FILE *out)
{
    fprintf(out, "  %s\n", title);
    for (int i = 0; i < m->n; i++) {
        fprintf(out, "    y%-2d ", i);
        for (int j = 0; j < m->n; j++) {
            if (j == gap_after) putc(' ', out);
            putc(m->col[j] >> i & 1 ? '1' : '.', out);
        }
        putc('\n', out);
        if (i + 1 == gap_after) putc('\n', out);
    }
}

typedef struct {
    int64_t sent_blocks;     /* over all ranks */
    int64_t block_bytes;
} bmmc_volumes;

static uint64_t rank_bits(const rl_bmmc *b, uint64_t v) { return v >> (b->n - b->p); }

/* The ranks that keep one of their blocks, counted without visiting the
 * 2^p ranks (up to 2^30 for a file of a few hundred bytes): rank k keeps
 * one when k ^ delta k ^ c_rank lies in gamma's span (rl_bmmc_keeps_block).
 * Modulo that span, k -> k ^ delta k ^ c_rank is affine; it reaches 0 on a
 * coset of its linear part's kernel, 2^(p - rank) ranks, or nowhere. */
static int64_t ranks_keeping(const rl_bmmc *b)
{
    int off = b->n - b->p, image_rank = 0;
    rl_gf2_basis gamma = {0}, image = {0};
    rl_gf2 delta = {b->p, {0}};
    uint64_t combo;
    for (int j = off - b->rank; j < off; j++) rl_gf2_basis_add(&gamma, rank_bits(b, b->v.col[j]), j);
    for (int j = 0; j < b->p; j++) delta.col[j] = rank_bits(b, b->v.col[off + j]);
    for (int j = 0; j < b->p; j++) {
        uint64_t unit = 1ull << j;
        image_rank += rl_gf2_basis_add(&image, rl_gf2_reduce(&gamma, unit ^ rl_gf2_apply(&delta, unit), &combo), j);
    }
    uint64_t c = rl_gf2_reduce(&gamma, rank_bits(b, b->cv), &combo);
    return rl_gf2_reduce(&image, c, &combo) ? 0 : (int64_t)1 << (b->p - image_rank);
}

static void count_bmmc_volumes(const rl_bmmc *b, bmmc_volumes *v)
{
    v->sent_blocks = ((int64_t)1 << (b->p + b->rank)) - ranks_keeping(b);
    v->block_bytes = b->elem_size << (b->n - b->p - b->rank);
}

static const char *layout_name(const rl_bmmc *b)
{
    return b->f == b->n - b->p ? "processor-major" : b->f == 0 ? "processor-minor" : "rank bits in the middle";
}

static void print_bmmc_summary(const dump_request *r, const relay_plan *p, const bmmc_volumes *v)
{
    const rl_bmmc *b = p->bmmc;
    int off = b->n - b->p;
    FILE *out = r->out;
    fprintf(out, "%s: BMMC plan, format %d.%d, fingerprint %016llx\n", r->path, p->format_major, p->format_minor,
            (unsigned long long)p->fingerprint);
    fprintf(out, "  2^%d elements of %lld bytes on %d ranks (p = %d); rank bits %d..%d (%s), 2^%d elements per rank\n", b->n,
            (long long)b->elem_size, p->nranks, b->p, b->f, b->f + b->p - 1, layout_name(b), off);
    fprintf(out, "\npermutation y = A x XOR c, c = 0x%llx\n", (unsigned long long)b->c);
    print_matrix("A (actual layout)", &b->a, -1, out);
    fprintf(out, "\nfactors in processor-major coordinates (bits 0..%d: offset, %d..%d: rank): Q^-1 A Q = V W\n", off - 1, off,
            b->n - 1);
    print_matrix("W: a permutation inside every rank (its lower-left block is zero)", &b->w, off, out);
    print_matrix("V: moves blocks between ranks (lower-left block zero but for its last r columns)", &b->v, off, out);
    fprintf(out, "  c_V = 0x%llx\n", (unsigned long long)b->cv);
    fprintf(out, "\nrank of V's lower-left block: r = %d, so each rank exchanges with 2^r = %d ranks (Lemma 3),\n", b->rank,
            1 << b->rank);
    fprintf(out, "  one block of 2^%d elements (%lld bytes) each; no index travels\n", off - b->rank, (long long)v->block_bytes);
    fprintf(out, "volumes: %lld bytes total, %lld bytes remote, %lld messages\n", (long long)(b->elem_size << b->n),
            (long long)(v->sent_blocks * v->block_bytes), (long long)v->sent_blocks);
}

/* The first `listed` blocks of the rank's 2^r. */
static void print_partners(const relay_plan *p, int rank, int listed, const int *to, const int *from, FILE *out)
{
    const rl_bmmc *b = p->bmmc;
    int off = b->n - b->p;
    fprintf(out, "rank %d: %d blocks of 2^%d consecutive elements (block b: offsets b * 2^%d onwards, after W)\n", rank,
            1 << b->rank, off - b->rank, off - b->rank);
    fprintf(out, "  %8s %8s %8s\n", "block", "to", "from");
    for (int blk = 0; blk < listed; blk++)
        fprintf(out, "  %8d %8d %8d%s\n", blk, to[blk], from[blk], to[blk] == rank ? "  (kept: no message)" : "");
    if (listed < 1 << b->rank) fprintf(out, "  ... and %d more blocks (--limit 0 lists them all)\n", (1 << b->rank) - listed);
}

static void json_matrix(json_writer *w, const char *key, const rl_gf2 *m)
{
    json_begin_array(w, key);
    for (int j = 0; j < m->n; j++) json_int(w, NULL, (int64_t)m->col[j]);
    json_end_array(w);
}

static void json_partners(json_writer *w, int rank, int nblocks, int listed, const int *to, const int *from)
{
    json_begin_array(w, "partners");
    for (int blk = 0; blk < listed; blk++) {
        json_begin_object(w, NULL);
        json_int(w, "block", blk);
        json_int(w, "to", to[blk]);
        json_int(w, "from", from[blk]);
        json_bool(w, "kept", to[blk] == rank);
        json_end_object(w);
    }
    json_end_array(w);
    json_int(w, "partners_left_out", nblocks - listed);
}

/* The listed ranks' per_rank entries: each keeps a block or not. */
static int json_per_rank(json_writer *w, const dump_request *r, const relay_plan *p, const bmmc_volumes *v, cli_error *e)
{
    int64_t listed = dump_listed(r, p->nranks), nblocks = (int64_t)1 << p->bmmc->rank;
    unsigned char *keeps = malloc((size_t)listed + 1);
    if (!keeps) return cli_fail(e, CLI_FAILED, "out of memory for %lld ranks", (long long)listed);
    rl_bmmc_keeps_block(p->bmmc, 0, (int)listed, keeps);
    json_begin_array(w, "per_rank");
    for (int rank = 0; rank < listed; rank++) {
        int64_t sent = nblocks - keeps[rank];
        dump_json_rank(w, rank, sent * v->block_bytes, sent * v->block_bytes, sent, sent, keeps[rank] * v->block_bytes);
    }
    json_end_array(w);
    json_int(w, "per_rank_left_out", p->nranks - listed);
    free(keeps);
    return CLI_OK;
}

/* The keys every --json object carries (a BMMC plan moves opaque bytes: type "bytes",
 * op N, no relabeling, one p2p wave), then the factors. */
static int print_bmmc_json(const dump_request *r, const relay_plan *p, const bmmc_volumes *v, cli_error *e)
{
    const rl_bmmc *b = p->bmmc;
    int64_t remote = v->sent_blocks * v->block_bytes, nblocks = (int64_t)1 << b->rank;
    json_writer w = dump_json_open(p, "bmmc", r->out);
    dump_json_no_relabel(&w, r, p, "bytes", "p2p", 1);
    dump_json_volumes(&w, b->elem_size << b->n, remote, remote, v->sent_blocks, v->sent_blocks);
    json_begin_object(&w, "bmmc");
    json_int(&w, "n", b->n);
    json_int(&w, "p", b->p);
    json_int(&w, "f", b->f);
    json_int(&w, "elem_size", b->elem_size);
    json_int(&w, "rank", b->rank);
    json_int(&w, "partners", nblocks);
    json_int(&w, "block_bytes", v->block_bytes);
    json_matrix(&w, "a", &b->a);
    json_int(&w, "c", (int64_t)b->c);
    json_matrix(&w, "v", &b->v);
    json_matrix(&w, "w", &b->w);
    json_int(&w, "cv", (int64_t)b->cv);
    json_end_object(&w);
    int status = json_per_rank(&w, r, p, v, e);
    json_end_object(&w);
    json_finish(&w);
    return status;
}

/* One rank: what it sends and receives (a rank keeps a block exactly when
 * it is also the source of that block, so the counts match), the first
 * --limit blocks listed: only those are computed. */
static int dump_bmmc_rank(const dump_request *r, const relay_plan *p, int rank, cli_error *e)
{
    int nblocks = 1 << p->bmmc->rank, listed = (int)dump_listed(r, nblocks);
    int *to = malloc((size_t)listed * sizeof *to + 1), *from = malloc((size_t)listed * sizeof *from + 1);
    if (!to || !from) {
        free(to);
        free(from);
        return cli_fail(e, CLI_FAILED, "out of memory for %d partners", listed);
    }
    rl_bmmc_partners(p->bmmc, rank, listed, to, from);
    if (r->json) {
        json_writer w = json_start(r->out);
        json_begin_object(&w, NULL);
        json_int(&w, "rank", rank);
        json_int(&w, "block_elems", (int64_t)1 << (p->bmmc->n - p->bmmc->p - p->bmmc->rank));
        json_partners(&w, rank, nblocks, listed, to, from);
        json_end_object(&w);
        json_finish(&w);
    } else print_partners(p, rank, listed, to, from, r->out);
    free(to);
    free(from);
    return CLI_OK;
}

int dump_bmmc(const dump_request *r, const relay_plan *p, cli_error *e)
{
    if (r->rank >= 0) return dump_bmmc_rank(r, p, (int)r->rank, e);
    bmmc_volumes v;
    count_bmmc_volumes(p->bmmc, &v);
    if (r->json) return print_bmmc_json(r, p, &v, e);
    print_bmmc_summary(r, p, &v);
    fputc('\n', r->out);
    return dump_bmmc_rank(r, p, 0, e);
}
