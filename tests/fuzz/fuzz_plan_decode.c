/* fuzz_plan_decode.c — libFuzzer harness for the plan decoder.
 *
 * Any byte string must be refused cleanly or decoded into a plan that passes
 * validation; under AddressSanitizer and libFuzzer's malloc limit this
 * catches out-of-bounds reads, leaks and allocations driven by hostile
 * counts.  Built and run by scripts/fuzz.sh.
 *
 * Byte mutations almost always break a checksum, so the decoder stops at
 * its first check.  The custom mutator therefore also mutates the way a
 * hostile writer would: when its input decodes, half the time it changes
 * one field of one record of one section (a message or a lattice, on
 * either side, or a local lattice) and re-seals the plan (the section's
 * content checksum; encoding hashes the bytes again), so that the lattice
 * checks past the checksums (rl_section_validate) see the mutated fields. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    relay_plan *p = NULL;
    if (relay_plan_decode(&p, data, size, -1) == RELAY_OK) relay_plan_free(p);
    if (relay_plan_decode(&p, data, size, 0) == RELAY_OK) relay_plan_free(p);
    return 0;
}

/* A reproducible stream of choices from the mutator's seed. */
static uint64_t next(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* The record arrays of a section, as runs of 64-bit fields. */
static int64_t *records(rl_section *s, unsigned which, int64_t *fields)
{
    switch (which % 5) {
    case 0: *fields = (int64_t)s->nsend * RL_MESSAGE_FIELDS; return (int64_t *)s->send;
    case 1: *fields = (int64_t)s->nrecv * RL_MESSAGE_FIELDS; return (int64_t *)s->recv;
    case 2: *fields = s->nsend_spans * RL_SPAN_FIELDS; return (int64_t *)s->send_spans;
    case 3: *fields = s->nrecv_spans * RL_SPAN_FIELDS; return (int64_t *)s->recv_spans;
    default: *fields = s->nlocal * RL_LOCAL_FIELDS; return (int64_t *)s->local;
    }
}

/* A new value for a field: the edges of the checks (0, +-1, a buffer's
 * size, overflow) or a neighbour of the old one. */
static int64_t mutated(int64_t old, const rl_section *s, uint64_t *state)
{
    switch (next(state) % 9) {
    case 0: return 0;
    case 1: return -1;
    case 2: return INT64_MAX;
    case 3: return INT64_MAX / 2 + 1;
    case 4: return s->src_elems[0];
    case 5: return s->dst_elems[0];
    case 6: return old + 1;
    case 7: return old - 1;
    default: return old ^ (int64_t)((uint64_t)1 << (next(state) % 63));
    }
}

/* One field of a decoded plan's section changed and re-sealed, into data;
 * 0 if there was no field to change or the plan grew beyond max_size. */
static size_t mutate_field(relay_plan *p, uint8_t *data, size_t max_size, uint64_t *state)
{
    rl_section *s = p->sections[next(state) % (uint64_t)p->nranks];
    int64_t fields;
    int64_t *f = records(s, (unsigned)next(state), &fields);
    if (fields == 0) return 0;
    int64_t *field = &f[next(state) % (uint64_t)fields];
    *field = mutated(*field, s, state);
    s->checksum = rl_section_hash(s, p->count);
    void *buf;
    size_t len = 0;
    if (relay_plan_encode(p, &buf, &len) != RELAY_OK) return 0;
    if (len <= max_size) memcpy(data, buf, len);
    free(buf);
    return len <= max_size ? len : 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    uint64_t state = (uint64_t)seed * 0x9e3779b97f4a7c15u | 1;
    relay_plan *p = NULL;
    size_t len = 0;
    if (next(&state) & 1 && relay_plan_decode(&p, data, size, -1) == RELAY_OK) {
        if (p->kind == RELAY_PLAN_TRANSFORM) len = mutate_field(p, data, max_size, &state);
        relay_plan_free(p);
    }
    return len ? len : LLVMFuzzerMutate(data, size, max_size);
}
