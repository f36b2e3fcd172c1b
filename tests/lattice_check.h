/* lattice_check.h — what the lattice tests (test_bc_lattice.c,
 * test_grid_lattice.c) check alike on every rank's sides of a batch
 * (plan_format/lattice/section.h): their form, the agreement of a message's two ends,
 * the plan's sections, and a walk over every element they carry, which
 * each test holds against its own serial reference.
 *
 * Failures are cmocka assertions. */
#ifndef RELAY_TESTS_LATTICE_CHECK_H
#define RELAY_TESTS_LATTICE_CHECK_H

#include "section.h"

/* Every rank's send side (with its local lattices) and receive side. */
typedef struct {
    int nranks;
    rl_lattice_side *send, *recv;
} lc_sides;

/* All sides from one batch shared by every rank, as a planner building
 * every section does. */
void lc_sides_build(lc_sides *s, const rl_pair *pairs, int count, int nranks);
void lc_sides_free(lc_sides *s);

/* A rank's lattices: its send side's messages and local ones, or its
 * receive side's. */
int64_t lc_send_lattices(const lc_sides *s, int rank);
int64_t lc_recv_lattices(const lc_sides *s, int rank);

/* Messages by increasing peer, their counts and sizes adding up; lattices
 * of a message, and local ones, in canonical order (pair, c0, r0); steps
 * positive along counts above 1 and zero along counts of 1; no local
 * lattices on a receive side. */
void lc_check_form(const lc_sides *s);

/* Both ends of every message list the same lattices in the same order,
 * and every message has both ends. */
void lc_check_ends(const lc_sides *s);

/* rl_batch_side on a fresh batch for `rank` alone gives the same sides. */
void lc_check_alone(const lc_sides *s, const rl_pair *pairs, int count, int rank);

/* The plan's sections hold the sides' messages and, field by field, the
 * halves of their lattices (a sender's B half, a receiver's A half). */
void lc_check_plan(const lc_sides *s, const relay_plan *p);

/* One element a side carries, as its lattice places it. */
typedef struct {
    int64_t self, peer;     /* the rank whose buffer holds it, the other end */
    int receiving;          /* in self's A buffer (else its B buffer) */
    int64_t pair, row, col; /* the element of A_pair */
    int64_t off, ld;        /* its offset in that buffer, its piece's ld */
} lc_element;

/* Calls visit for every element of every piece of every lattice of every
 * side: a sender's B half, a receiver's A half, both halves of a local
 * lattice.  Pieces are expanded here, from the lattice's fields alone. */
typedef void (*lc_visit)(const lc_element *e, void *ctx);
void lc_walk(const lc_sides *s, const rl_pair *pairs, lc_visit visit, void *ctx);

/* Where every element of every A goes, as senders and receivers say. */
typedef struct {
    int64_t sender, receiver, off;
} lc_route;

typedef struct {
    int count;
    int64_t *cols, *elems;    /* per pair: A's columns and elements */
    lc_route **send, **recv;  /* per pair, per A element (row-major); sender -1 where unseen */
} lc_routes;

void lc_routes_init(lc_routes *r, const rl_pair *pairs, int count);
void lc_routes_free(lc_routes *r);
/* Records e, which its side must not have carried before. */
void lc_routes_record(lc_routes *r, const lc_element *e);
/* Every element was carried by both sides, between the same two ranks. */
void lc_routes_check_complete(const lc_routes *r);

#endif
