/* summary.c — what the summaries of transform and N-D plans share (see
 * dump.h): their first lines (file, format, fingerprint, kind, ranks,
 * type), and the per-rank table: bytes and messages each rank sends,
 * receives and copies in one replay; every rank up to 32, above that the
 * first and last 8 and, when the rows hold every rank, min/median/max. */
#include <stdlib.h>

#include "dump.h"

void summary_print_head(const char *path, const relay_plan *p, FILE *out)
{
    fprintf(out, "%s: relay plan, format %d.%d, fingerprint %016llx\n", path, p->format_major, p->format_minor,
            (unsigned long long)p->fingerprint);
    fprintf(out, "  kind       %s\n  ranks      %d\n  type       %s (%s, %zu bytes)\n", cli_kind_words[p->kind], p->nranks,
            cli_type_words[p->type], cli_type_names[p->type], relay_type_size(p->type));
}

/* The columns of the per-rank table, in order. */
enum { COL_SEND_BYTES, COL_RECV_BYTES, COL_SEND_MSGS, COL_RECV_MSGS, COL_LOCAL_BYTES, NCOLS };

static void row_values(const rank_volume *v, int64_t values[NCOLS])
{
    values[COL_SEND_BYTES] = v->send_bytes;
    values[COL_RECV_BYTES] = v->recv_bytes;
    values[COL_SEND_MSGS] = v->send_msgs;
    values[COL_RECV_MSGS] = v->recv_msgs;
    values[COL_LOCAL_BYTES] = v->local_bytes;
}

static void print_row(const char *label, const int64_t values[NCOLS], FILE *out)
{
    fprintf(out, "  %8s", label);
    for (int c = 0; c < NCOLS; c++) fprintf(out, " %13lld", (long long)values[c]);
    fprintf(out, "\n");
}

static void print_rank_row(const rank_volume *rows, const int *ranks, int i, FILE *out)
{
    char label[16];
    int64_t values[NCOLS];
    snprintf(label, sizeof label, "%d", ranks ? ranks[i] : i);
    row_values(&rows[i], values);
    print_row(label, values, out);
}

static int int64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Rows min, median and max of every column. */
static int print_column_stats(const rank_volume *rows, int nrows, FILE *out, cli_error *e)
{
    int64_t *column = malloc((size_t)nrows * sizeof *column);
    if (!column) return cli_fail(e, CLI_FAILED, "out of memory");
    int64_t lo[NCOLS], mid[NCOLS], hi[NCOLS], values[NCOLS];
    for (int c = 0; c < NCOLS; c++) {
        for (int r = 0; r < nrows; r++) {
            row_values(&rows[r], values);
            column[r] = values[c];
        }
        qsort(column, (size_t)nrows, sizeof *column, int64_cmp);
        lo[c] = column[0];
        mid[c] = column[nrows / 2];
        hi[c] = column[nrows - 1];
    }
    free(column);
    print_row("min", lo, out);
    print_row("median", mid, out);
    print_row("max", hi, out);
    return CLI_OK;
}

static void print_gap(int count, FILE *out)
{
    if (count > 0) fprintf(out, "  %8s   (%d ranks not shown)\n", "...", count);
}

int rank_table_print(const rank_volume *rows, const int *ranks, int nrows, int nranks, FILE *out, cli_error *e)
{
    int every = nrows == nranks && nranks > RANK_TABLE_FULL_MAX, last = -1; /* every rank given: show the edges */
    fprintf(out, "per rank (bytes and messages of one replay)\n  %8s %13s %13s %13s %13s %13s\n", "rank", "send_bytes",
            "recv_bytes", "send_msgs", "recv_msgs", "local_bytes");
    for (int i = 0; i < nrows; i++) {
        if (every && i >= RANK_TABLE_EDGE_ROWS && i < nrows - RANK_TABLE_EDGE_ROWS) continue;
        int rank = ranks ? ranks[i] : i;
        print_gap(rank - last - 1, out);
        print_rank_row(rows, ranks, i, out);
        last = rank;
    }
    print_gap(nranks - 1 - last, out);
    return every ? print_column_stats(rows, nrows, out, e) : CLI_OK;
}
