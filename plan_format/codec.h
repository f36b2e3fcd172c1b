/* codec.h — the plan file format's version and limits (docs/plan-format.md). */
#ifndef RELAY_CODEC_H
#define RELAY_CODEC_H

#define RELAY_FORMAT_MAGIC "relay-plan"
#define RELAY_FORMAT_MAJOR 2   /* transform, BMMC and HSUMMA plans (and the major the fingerprint hashes) */
#define RELAY_FORMAT_MINOR 3   /* minor versions add keys, which readers ignore, or values (1: schedule 4, neighbor;
                                  2: a transform plan's tuning; 3: a tuning choice's window flag) */
#define RELAY_FORMAT_ND_MAJOR 3 /* N-D plans (kind nd), and only they: a version step that readers of 2.x refuse */
#define RELAY_FORMAT_ND_MINOR 0
#define RELAY_FORMAT_INDEX_MAJOR 4 /* index plans (kind index), and only they: readers of 2.x and 3.x refuse them */
#define RELAY_FORMAT_INDEX_MINOR 0

/* Sanity bounds a reader enforces before it allocates anything. */
#define RELAY_MAX_RANKS (1 << 24)
#define RELAY_MAX_PAIRS 4096
#define RELAY_PREAMBLE_MAX 256   /* bytes a reader looks at for the preamble */

#include <stddef.h>
#include <stdint.h>

#include "relay/status.h"

/* The version a plan of `kind` (a relay_plan_kind) is written with:
 * 3.0 for N-D plans, 4.0 for index plans, 2.2 for the others.  A reader
 * takes major 2, 3 and 4, and each kind only in its own major. */
void rl_format_version(int kind, int *major, int *minor);

/* The header's hash, seeded with the version so that a flipped version bit
 * is caught too. */
uint64_t rl_header_hash(const void *header, size_t len, int major, int minor);

/* Whether a stored hash differs from the one recomputed: the integrity
 * checks (header hash, section byte hash and content checksum,
 * fingerprint).  A fuzzing build (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION,
 * defined by scripts/fuzz.sh and never by the library's build) skips them,
 * as zstd's and OSS-Fuzz's fuzzers do, so that mutated plans reach the
 * validation behind them; the hash is still computed. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define RL_HASH_MISMATCH(computed, stored) ((void)(computed), (void)(stored), 0)
#else
#define RL_HASH_MISMATCH(computed, stored) ((computed) != (stored))
#endif

/* The fingerprint the fields of a header (its bytes, len of them) give,
 * once they pass every check of a reader but the fingerprint's own: what a
 * tool that edits plans (tests/hostile) stores to keep a file consistent. */
relay_status rl_header_fingerprint(const void *header, size_t len, uint64_t *fingerprint);

#endif
