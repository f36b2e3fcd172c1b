/* plan_mutator.h — structure-aware mutations of plan files for the fuzzer
 * (plan_mutator.c): one field of a plan edited, or one key grafted from
 * another plan, and the plan re-encoded with consistent framing. */
#ifndef RELAY_FUZZ_PLAN_MUTATOR_H
#define RELAY_FUZZ_PLAN_MUTATOR_H

#include <stddef.h>
#include <stdint.h>

/* Edits one node of the plan in data (size bytes) and writes the result
 * back; returns its size, or 0 when data is not a whole MessagePack plan or
 * the result exceeds max_size. */
size_t plan_mutate(uint8_t *data, size_t size, size_t max_size, uint64_t seed);

/* Copies one key and its value from a map of plan b into a map of plan a
 * (replacing a key of that name), written to out; 0 as above. */
size_t plan_cross_over(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size, uint8_t *out, size_t max_size,
                       uint64_t seed);

#endif
