/* volume_svg.h — relay-dump's heat map of a plan's rank-to-rank volumes:
 * sender rows, receiver columns, a log-scaled colour per cell, a legend in
 * bytes and labelled axes, written atomically (temporary file + rename). */
#ifndef RELAY_VOLUME_SVG_H
#define RELAY_VOLUME_SVG_H

#include <stdint.h>

#include "cli_util.h"

enum { VOLUME_MAX_BINS = 256 };

/* bytes[s*nbins + d]: bytes that senders in bin s send to receivers in bin
 * d, a bin being bin_ranks consecutive ranks (1 up to 256 ranks). */
typedef struct {
    int nranks;
    int nbins;
    int bin_ranks;
    double *bytes;
} volume_matrix;

/* An empty matrix for nranks ranks, binned to at most VOLUME_MAX_BINS. */
int volume_matrix_init(volume_matrix *m, int nranks, cli_error *e);
void volume_matrix_add(volume_matrix *m, int from, int to, double bytes);
void volume_matrix_free(volume_matrix *m);

/* Writes the heat map; title and subtitle head the picture. */
int volume_svg_write(const char *path, const volume_matrix *m, const char *title, const char *subtitle,
                     cli_error *e);

#endif
