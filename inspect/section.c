/* section.c — one rank's section of a transform plan, as relay-dump reads
 * it: its volumes, counted from its lattices (a lattice of count_r x
 * count_c pieces of rows x cols elements), and its detail for --rank: the
 * buffers, then each message with its peer and lattices, and the local
 * lattices with both their sides (B's and A's), as text or JSON. */
#include <stdio.h>

#include "dump.h"

/* Text shows at most this many lattices per list; --json shows all. */
enum { LATTICES_SHOWN = 64 };

/* ---- volumes ------------------------------------------------------------- */

/* *sum += a * b, or 0 when the result does not fit in 64 bits.  Element
 * counts are bounded by validation, bytes are not: 2^61 complex elements
 * are 2^65 bytes. */
static int add_product(int64_t *sum, int64_t a, int64_t b)
{
    int64_t x;
    return !rl_mul_overflows(a, b, &x) && !rl_add_overflows(*sum, x, sum);
}

/* The bytes of n messages, or -1 when they overflow 64 bits. */
static int64_t message_bytes(const rl_message *msgs, int n, int64_t esz)
{
    int64_t sum = 0;
    for (int k = 0; k < n; k++)
        if (!add_product(&sum, msgs[k].elems, esz)) return -1;
    return sum;
}

int64_t lattice_pieces(const rl_span *spans, int64_t first, int64_t count)
{
    int64_t sum = 0;
    for (int64_t i = first; i < first + count; i++) sum += rl_span_pieces(&spans[i]);
    return sum;
}

/* Pieces never overflow once bytes do not: a piece holds at least one
 * element of at least one byte. */
int section_volume(const rl_section *s, int64_t esz, rank_volume *v, cli_error *e)
{
    *v = (rank_volume){message_bytes(s->send, s->nsend, esz),
                       message_bytes(s->recv, s->nrecv, esz),
                       s->nsend,
                       s->nrecv,
                       0,
                       lattice_pieces(s->send_spans, 0, s->nsend_spans),
                       lattice_pieces(s->recv_spans, 0, s->nrecv_spans),
                       0,
                       s->nsend_spans,
                       s->nrecv_spans,
                       s->nlocal};
    const char *what = v->send_bytes < 0 ? "sends" : v->recv_bytes < 0 ? "receives" : NULL;
    for (int64_t i = 0; i < s->nlocal && !what; i++) {
        if (!add_product(&v->local_bytes, rl_local_span_elems(&s->local[i]), esz)) what = "local copies";
        v->local_pieces += rl_local_span_pieces(&s->local[i]);
    }
    if (what) return cli_fail(e, CLI_FAILED, "rank %d's %s move more than 2^63 - 1 bytes: relay-dump counts in 64 bits", s->rank, what);
    return CLI_OK;
}

/* ---- text ---------------------------------------------------------------- */

/* Columns of a lattice line: pair, piece, pieces, then its place in a
 * buffer: off, steps, ld. */
enum { PLACE_COLUMN = 39 };

static void print_lattice_heading(FILE *out)
{
    fprintf(out, "      %4s  %-13s %-13s %10s %20s %8s\n", "pair", "piece", "pieces", "off", "steps (down, across)", "ld");
}

static void print_shape(int64_t pair, int64_t rows, int64_t cols, int64_t count_r, int64_t count_c, FILE *out)
{
    char piece[48], pieces[48];
    snprintf(piece, sizeof piece, "%lld x %lld", (long long)rows, (long long)cols);
    snprintf(pieces, sizeof pieces, "%lld x %lld", (long long)count_r, (long long)count_c);
    fprintf(out, "      %4lld  %-13s %-13s", (long long)pair, piece, pieces);
}

static void print_place(int64_t off, int64_t step_r, int64_t step_c, int64_t ld, FILE *out)
{
    char steps[48];
    snprintf(steps, sizeof steps, "%lld, %lld", (long long)step_r, (long long)step_c);
    fprintf(out, " %10lld %20s %8lld", (long long)off, steps, (long long)ld);
}

static void print_more(int64_t n, FILE *out)
{
    if (n > LATTICES_SHOWN) fprintf(out, "      ... and %lld more lattices (see --json)\n", (long long)(n - LATTICES_SHOWN));
}

/* How a lattice travels in its message: piece by piece, or fused along
 * rows, columns or both into longer units (plan-format.md). */
static const char *fusion_name(int64_t fused)
{
    static const char *const names[] = {"", "  fused down", "  fused across", "  fused both ways"};
    return fused >= 0 && fused <= 3 ? names[fused] : "";
}

static void print_lattices(const rl_span *spans, int64_t first, int64_t count, FILE *out)
{
    print_lattice_heading(out);
    for (int64_t i = first; i < first + count && i < first + LATTICES_SHOWN; i++) {
        const rl_span *l = &spans[i];
        print_shape(l->pair, l->rows, l->cols, l->count_r, l->count_c, out);
        print_place(l->off, l->step_r, l->step_c, l->ld, out);
        fprintf(out, "%s\n", fusion_name(l->fused));
    }
    print_more(count, out);
}

/* A local lattice in two lines: its place in B, then in A. */
static void print_local(const rl_section *s, FILE *out)
{
    if (s->nlocal) print_lattice_heading(out);
    for (int64_t i = 0; i < s->nlocal && i < LATTICES_SHOWN; i++) {
        const rl_local_span *l = &s->local[i];
        print_shape(l->pair, l->rows, l->cols, l->count_r, l->count_c, out);
        print_place(l->src_off, l->src_step_r, l->src_step_c, l->src_ld, out);
        fprintf(out, "  in B\n%*s", PLACE_COLUMN, "");
        print_place(l->dst_off, l->dst_step_r, l->dst_step_c, l->dst_ld, out);
        fprintf(out, "  in A\n");
    }
    print_more(s->nlocal, out);
}

/* step: the rounds schedule's step of each message, or NULL. */
static void print_messages(const char *title, const char *peer_label, const rl_message *msgs, const int64_t *step, int n,
                           const rl_span *spans, int64_t esz, FILE *out)
{
    int64_t bytes = message_bytes(msgs, n, esz);
    fprintf(out, "  %-10s %d messages, %lld bytes (%s)\n", title, n, (long long)bytes, cli_bytes(bytes).text);
    for (int k = 0; k < n; k++) {
        const rl_message *m = &msgs[k];
        fprintf(out, "    %s %lld: %lld lattices, %lld pieces, %lld bytes (%s)", peer_label, (long long)m->peer,
                (long long)m->count, (long long)lattice_pieces(spans, m->first, m->count), (long long)(m->elems * esz),
                cli_bytes(m->elems * esz).text);
        if (step) fprintf(out, ", step %lld", (long long)step[k]);
        fprintf(out, "\n");
        print_lattices(spans, m->first, m->count, out);
    }
}

/* A buffer's bytes for people; a buffer may be larger than its pieces,
 * so its bytes may overflow where the volumes did not. */
static cli_bytes_text elems_bytes(int64_t elems, int64_t esz)
{
    int64_t bytes;
    return rl_mul_overflows(elems, esz, &bytes) ? (cli_bytes_text){"over 8 EiB"} : cli_bytes(bytes);
}

static void print_section(const dump_request *r, const relay_plan *p, const rl_section *s, const rank_volume *vol)
{
    int64_t esz = (int64_t)relay_type_size(p->type);
    rank_volume v = *vol;
    FILE *out = r->out;
    fprintf(out, "%s: rank %d of %d (%s, type %s)\n", r->path, s->rank, p->nranks, cli_kind_words[p->kind],
            cli_type_words[p->type]);
    fprintf(out, "  lattices   pieces (count_r x count_c) of a piece's rows x cols (A's coordinates); piece (i, j)\n"
            "             at off + i * down + j * across of the buffer (B's to send, A's to receive), at ld\n");
    for (int k = 0; k < p->count; k++)
        fprintf(out, "  buffers    pair %d: A %lld elements (%s), B %lld elements (%s)\n", k, (long long)s->dst_elems[k],
                elems_bytes(s->dst_elems[k], esz).text, (long long)s->src_elems[k], elems_bytes(s->src_elems[k], esz).text);
    fprintf(out, "  local      %lld lattices, %lld pieces, %lld bytes (%s)\n", (long long)v.local_lattices,
            (long long)v.local_pieces, (long long)v.local_bytes, cli_bytes(v.local_bytes).text);
    print_local(s, out);
    print_messages("sends", "to", s->send, s->send_round, s->nsend, s->send_spans, esz, out);
    print_messages("receives", "from", s->recv, s->recv_round, s->nrecv, s->recv_spans, esz, out);
}

/* ---- JSON ---------------------------------------------------------------- */

static void json_shape(json_writer *w, int64_t pair, int64_t rows, int64_t cols, int64_t count_r, int64_t count_c)
{
    json_int(w, "pair", pair);
    json_int(w, "rows", rows);
    json_int(w, "cols", cols);
    json_int(w, "count_r", count_r);
    json_int(w, "count_c", count_c);
}

/* A side's place; key NULL: inside the current object. */
static void json_place(json_writer *w, const char *key, int64_t off, int64_t step_r, int64_t step_c, int64_t ld)
{
    if (key) json_begin_object(w, key);
    json_int(w, "off", off);
    json_int(w, "step_r", step_r);
    json_int(w, "step_c", step_c);
    json_int(w, "ld", ld);
    if (key) json_end_object(w);
}

static void json_lattices(json_writer *w, const rl_span *spans, int64_t first, int64_t count)
{
    json_begin_array(w, "lattices");
    for (int64_t i = first; i < first + count; i++) {
        const rl_span *l = &spans[i];
        json_begin_object(w, NULL);
        json_shape(w, l->pair, l->rows, l->cols, l->count_r, l->count_c);
        json_place(w, NULL, l->off, l->step_r, l->step_c, l->ld);
        json_int(w, "fused", l->fused);
        json_end_object(w);
    }
    json_end_array(w);
}

static void json_local(json_writer *w, const rl_section *s)
{
    json_begin_array(w, "local");
    for (int64_t i = 0; i < s->nlocal; i++) {
        const rl_local_span *l = &s->local[i];
        json_begin_object(w, NULL);
        json_shape(w, l->pair, l->rows, l->cols, l->count_r, l->count_c);
        json_place(w, "src", l->src_off, l->src_step_r, l->src_step_c, l->src_ld);
        json_place(w, "dst", l->dst_off, l->dst_step_r, l->dst_step_c, l->dst_ld);
        json_end_object(w);
    }
    json_end_array(w);
}

static void json_messages(json_writer *w, const char *key, const rl_message *msgs, const int64_t *step, int n,
                          const rl_span *spans, int64_t esz)
{
    json_begin_array(w, key);
    for (int k = 0; k < n; k++) {
        json_begin_object(w, NULL);
        json_int(w, "peer", msgs[k].peer);
        json_int(w, "pieces", lattice_pieces(spans, msgs[k].first, msgs[k].count));
        json_int(w, "bytes", msgs[k].elems * esz);
        if (step) json_int(w, "step", step[k]);
        json_lattices(w, spans, msgs[k].first, msgs[k].count);
        json_end_object(w);
    }
    json_end_array(w);
}

static void json_elems(json_writer *w, const char *key, const int64_t *elems, int count)
{
    json_begin_array(w, key);
    for (int k = 0; k < count; k++) json_int(w, NULL, elems[k]);
    json_end_array(w);
}

static void print_json_section(const relay_plan *p, const rl_section *s, const rank_volume *vol, FILE *out)
{
    int64_t esz = (int64_t)relay_type_size(p->type);
    rank_volume v = *vol;
    json_writer w = json_start(out);
    json_begin_object(&w, NULL);
    json_int(&w, "rank", s->rank);
    json_int(&w, "ranks", p->nranks);
    json_string(&w, "type", cli_type_words[p->type]);
    json_elems(&w, "dst_elems", s->dst_elems, p->count);
    json_elems(&w, "src_elems", s->src_elems, p->count);
    json_int(&w, "send_bytes", v.send_bytes);
    json_int(&w, "recv_bytes", v.recv_bytes);
    json_int(&w, "send_msgs", v.send_msgs);
    json_int(&w, "recv_msgs", v.recv_msgs);
    json_int(&w, "send_pieces", v.send_pieces);
    json_int(&w, "recv_pieces", v.recv_pieces);
    json_int(&w, "local_pieces", v.local_pieces);
    json_int(&w, "local_bytes", v.local_bytes);
    json_int(&w, "send_lattices", v.send_lattices);
    json_int(&w, "recv_lattices", v.recv_lattices);
    json_int(&w, "local_lattices", v.local_lattices);
    json_local(&w, s);
    json_messages(&w, "send", s->send, s->send_round, s->nsend, s->send_spans, esz);
    json_messages(&w, "recv", s->recv, s->recv_round, s->nrecv, s->recv_spans, esz);
    json_end_object(&w);
    json_finish(&w);
}

int dump_rank_section(const dump_request *r, const relay_plan *p, cli_error *e)
{
    const rl_section *s = p->sections[r->rank];
    rank_volume v;
    if (section_volume(s, (int64_t)relay_type_size(p->type), &v, e)) return e->status;
    if (r->json) print_json_section(p, s, &v, r->out);
    else print_section(r, p, s, &v);
    return CLI_OK;
}
