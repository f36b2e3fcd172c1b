/* ref_buffer.h — what the MPI tests that replay plans share: one rank's
 * buffer of a reference layout (its elements' global indices, filled from
 * the reference's value functions, and checked against what a transform
 * puts there; gaps between blocks hold REF_GAP_VALUE, which no replay may
 * touch), and the plans they replay, made from reference layouts and
 * reloaded as a rank that reads only its own section sees them. */
#ifndef RELAY_TESTS_REF_BUFFER_H
#define RELAY_TESTS_REF_BUFFER_H

#include "reference.h"
#include "relay/plan.h"

#define REF_GAP_VALUE 77777.0

typedef struct {
    relay_type type;
    void *data;
    int64_t size, n;        /* elements; the matrix's columns, to decode map */
    int64_t *map;           /* global i*n + j of each element, or -1 for a gap */
} ref_buffer;

void ref_buffer_make(ref_buffer *b, const ref_layout *l, int rank, relay_type type);
/* The values seed gives the matrix, REF_GAP_VALUE in gaps; NaN everywhere
 * a matrix element must be written before it is read (seed 0). */
void ref_buffer_fill(ref_buffer *b, uint64_t seed);
void ref_buffer_free(ref_buffer *b);
/* Whether every element of b is what t puts there (gaps untouched). */
int ref_buffer_is(const ref_buffer *b, const ref_transform *t);
/* Whether b holds the values seed gives (gaps untouched). */
int ref_buffer_holds(const ref_buffer *b, uint64_t seed);

/* Plans dst := op(src) on P ranks from the reference's layouts, or from
 * src_given (a relay layout) where it is not NULL; NULL if planning fails. */
relay_plan *ref_plan_of(int P, const ref_layout *dst, const ref_layout *src, const relay_layout *src_given, relay_op op,
                        relay_type type, const relay_plan_options *o);
/* p encoded and decoded for `rank` alone (-1: every section), or NULL. */
relay_plan *ref_plan_reloaded(const relay_plan *p, int rank);

#endif
