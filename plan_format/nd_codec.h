/* nd_codec.h — reading an N-D plan's pairs from a plan file (format 3.0,
 * kind nd; docs/plan-format.md) as untrusted input (nd_codec.c).
 * codec_read.c frames them (preamble, header map, kind, node map, stats,
 * fingerprint); codec_write.c writes them. */
#ifndef RELAY_ND_CODEC_H
#define RELAY_ND_CODEC_H

#include "mp_reader.h"
#include "plan_internal.h"

/* A placement's `kind` as the file spells it, by relay_placement_kind. */
extern const char *const rl_nd_placement_names[3];

/* What the layouts of one header are read against: the plan's ranks (a
 * mesh lists distinct ranks of the plan), and the rank entries the reader
 * may still allocate for the layouts' rank lists and rank maps (a mesh's
 * size and its largest rank + 1 per layout), so that a few bytes naming a
 * high rank cannot make it allocate a map of every rank, many times over. */
typedef struct {
    int64_t nranks;
    int64_t ranks_left;
} rl_nd_limits;

/* Reads the `pairs` array (the key read already) into a new N-D plan body
 * *out: 1 .. RELAY_MAX_PAIRS pairs, each layout rebuilt through
 * rl_nd_layout_build.  On failure (RELAY_ERR_FORMAT naming the pair, the
 * layout and the field) nothing is left allocated and *out is untouched. */
relay_status rl_nd_read_pairs(mp_reader *r, rl_nd_limits *lim, rl_nd_plan **out);

/* The checks every pair of a plan of nranks ranks and this type must pass
 * (rl_nd_check_pair: ops, permutations, shapes, groups, no partial
 * destination), as RELAY_ERR_FORMAT; once the whole header is read. */
relay_status rl_nd_check_read_pairs(const rl_nd_plan *nd, int nranks, relay_type type);

#endif
