/* words.c — relay's enums and byte counts in words (words.h). */
#include <stdio.h>

#include "words.h"

const char *const cli_type_words[] = {"s", "d", "c", "z", NULL};
const char *const cli_type_names[] = {"float", "double", "complex float", "complex double", NULL};
const char *const cli_op_words[] = {"N", "T", "C", NULL};
const char *const cli_relabel_words[] = {"none", "greedy", "optimal", NULL};
const char *const cli_schedule_words[] = {"auto", "p2p", "rounds", "alltoallv", "neighbor", NULL};
const char *const cli_order_words[] = {"col", "row", NULL};
const char *const cli_kind_words[] = {"transform", "bmmc", "hsumma", "nd", "index", NULL};
const char *const cli_bcast_words[] = {"vdg", "binomial", NULL};
const char *const cli_replicas_words[] = {"auto", "direct", "forward", NULL};

cli_bytes_text cli_bytes(int64_t bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    cli_bytes_text t;
    if (bytes < 1024) {
        snprintf(t.text, sizeof t.text, "%lld B", (long long)bytes);
        return t;
    }
    double v = (double)bytes / 1024.0;
    int u = 0;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        u++;
    }
    snprintf(t.text, sizeof t.text, "%.1f %s", v, units[u]);
    return t;
}
