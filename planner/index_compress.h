/* index_compress.h — cutting a message's slot pairs into runs (index_compress.c). */
#ifndef RELAY_INDEX_COMPRESS_H
#define RELAY_INDEX_COMPRESS_H

#include "index_plan.h"

/* Growing arrays of segments and list entries (pairs of slots); a listed
 * segment's `from` counts from the start of this list. */
typedef struct {
    rl_index_seg *segs;
    int64_t nsegs, cap_segs;
    int64_t *list;
    int64_t nlist, cap_list;
} rl_index_pieces;

/* Appends the segments of one message whose m items travel from slot
 * from[i] to slot to[i], in that order. */
relay_status rl_index_compress(rl_index_pieces *out, const int64_t *from, const int64_t *to, int64_t m);

#endif
