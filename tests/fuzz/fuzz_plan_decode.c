/* fuzz_plan_decode.c — libFuzzer harness for the plan decoder.
 *
 * Any byte string must be refused cleanly — one line of error, no plan
 * returned — or decoded into a plan that passes validation, that the
 * encoder writes back into bytes the decoder takes again, and whose
 * transform sections can be planned again from its header (replan.c), and
 * whose N-D ranks' transfers derive within their work budget.  Each input is
 * decoded whole from memory, and rank 0's part from a file (the reader
 * that seeks), an in-memory file here.  Under
 * AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's malloc limit
 * this catches out-of-bounds accesses, leaks, overflows and allocations
 * driven by hostile counts.  Built and run by scripts/fuzz.sh.
 *
 * The fuzzing build skips the integrity checks
 * (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION), and most mutations are
 * structure-aware (plan_mutator.c): one field of a plan edited and the plan
 * re-encoded, or one key grafted from another plan, so that they reach the
 * field checks and validation behind the checksums.  The rest are
 * libFuzzer's byte mutations, for the MessagePack reader itself.
 *
 * With RELAY_FUZZ_FAILURES=FILE set, every refusal's message is appended to
 * FILE with its numbers replaced by N (one line per distinct check), for
 * scripts/fuzz.sh to count the validation failures the corpus reaches. */
#define _GNU_SOURCE /* memfd_create */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nd_transfers.h"
#include "plan_internal.h"
#include "plan_mutator.h"
#include "replan.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static FILE *failures;
static char plan_path[64]; /* the in-memory file each input is written to */
static int plan_fd;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *path = getenv("RELAY_FUZZ_FAILURES");
    if (path && !(failures = fopen(path, "a"))) {
        perror(path);
        abort();
    }
    plan_fd = memfd_create("plan", 0);
    if (plan_fd < 0) {
        perror("memfd_create");
        abort();
    }
    snprintf(plan_path, sizeof plan_path, "/proc/self/fd/%d", plan_fd);
    return 0;
}

/* A broken promise of the decoder: reported as a crash, with the input. */
static void broken(const char *what)
{
    fprintf(stderr, "fuzz_plan_decode: %s (last error: %s)\n", what, relay_last_error());
    abort();
}

/* A refusal must be one non-empty line; it is noted with numbers as N. */
static void note_failure(void)
{
    const char *msg = relay_last_error();
    if (!msg[0] || strchr(msg, '\n')) broken("a refusal is not one line");
    if (!failures) return;
    for (const char *c = msg; *c; c++) {
        if (!isdigit((unsigned char)*c)) fputc(*c, failures);
        else if (!isdigit((unsigned char)c[1])) fputc('N', failures);
    }
    fputc('\n', failures);
}

/* A whole plan the decoder took must come back from its own encoder. */
static void round_trip(const relay_plan *p)
{
    void *buf;
    size_t len;
    relay_plan *q = NULL;
    if (relay_plan_encode(p, &buf, &len) != RELAY_OK) broken("a decoded plan does not encode");
    if (relay_plan_decode(&q, buf, len, -1) != RELAY_OK) broken("a decoded plan, encoded again, does not decode");
    relay_plan_free(q);
    free(buf);
}

/* What binding does first with a transform plan's sections: plan them
 * again from the header and compare (replan.c).  Any verdict is fine; the
 * promise is no crash, no leak, and a refusal only for memory.  The first
 * few ranks: each costs a planning. */
enum { REPLANNED_RANKS = 4 };
static void replan_sections(const relay_plan *p)
{
    if (p->kind != RELAY_PLAN_TRANSFORM) return;
    for (int r = 0; r < p->nranks && r < REPLANNED_RANKS; r++) {
        int planned;
        if (p->sections[r] && rl_section_is_planned(p, r, &planned) != RELAY_OK && relay_last_error()[0] == 0)
            broken("planning a section again failed without a word");
    }
}

/* What binding does first with an N-D plan: derive a rank's transfers from
 * the header.  For the first and last rank, where their buffers hold at
 * most a few million elements, the derivation must succeed or fail for
 * memory alone, within the work its budget allows: a fuzzing build's
 * budget is small (RL_ND_WORK_BUDGET), and past it the derivation refuses
 * with RELAY_ERR_UNSUPPORTED, which here is a cost hole, reported as a
 * crash: work that follows neither the plan's size nor the data the rank
 * moves. */
enum { DERIVED_ELEMS_MAX = 1 << 22 };
static int64_t rank_elems(const relay_plan *p, int r)
{
    int64_t elems = 0;
    for (int k = 0; k < p->nd->count && elems <= DERIVED_ELEMS_MAX; k++)
        elems += rl_nd_plan_buffer_elems(p, 1, k, r) + rl_nd_plan_buffer_elems(p, 0, k, r); /* each at most 2^56 */
    return elems;
}

static void derive_transfers(const relay_plan *p)
{
    if (p->kind != RELAY_PLAN_ND) return;
    int ranks[2] = {0, p->nranks - 1};
    for (int i = 0; i < 2; i++) {
        rl_nd_part part;
        if (rank_elems(p, ranks[i]) > DERIVED_ELEMS_MAX) continue;
        relay_status st = rl_nd_part_derive(&part, p, ranks[i], RL_ND_SENDS | RL_ND_RECEIVES);
        if (st == RELAY_ERR_UNSUPPORTED) broken("deriving a rank's N-D transfers went past its work budget");
        if (st == RELAY_OK) rl_nd_part_free(&part);
        else if (relay_last_error()[0] == 0) broken("deriving a rank's N-D transfers failed without a word");
    }
}

/* Non-zero if the decoder refused; a refusal must not return a plan. */
static int refused(relay_status st, const relay_plan *p)
{
    if (st == RELAY_OK) return 0;
    if (p) broken("a refused plan was returned");
    note_failure();
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    relay_plan *p = NULL;
    relay_status st = relay_plan_decode(&p, data, size, -1);
    if (!refused(st, p)) {
        round_trip(p);
        replan_sections(p);
        derive_transfers(p);
    }
    relay_plan_free(p);
    p = NULL;
    if (ftruncate(plan_fd, 0) != 0 || pwrite(plan_fd, data, size, 0) != (ssize_t)size) broken("the plan file is not written");
    st = relay_plan_load(&p, plan_path, 0);
    refused(st, p);
    relay_plan_free(p);
    return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    size_t len = seed % 4 ? plan_mutate(data, size, max_size, seed) : 0;
    return len ? len : LLVMFuzzerMutate(data, size, max_size);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2, uint8_t *out,
                                 size_t max_out_size, unsigned int seed)
{
    return plan_cross_over(data1, size1, data2, size2, out, max_out_size, seed);
}
