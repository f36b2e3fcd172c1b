/* fuzz_plan_decode.c — libFuzzer harness for the plan decoder.
 *
 * Any byte string must be refused cleanly — one line of error, no plan
 * returned — or decoded into a plan that passes validation and that the
 * encoder writes back into bytes the decoder takes again.  Under
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
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"
#include "plan_mutator.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static FILE *failures;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *path = getenv("RELAY_FUZZ_FAILURES");
    if (path && !(failures = fopen(path, "a"))) {
        perror(path);
        abort();
    }
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

static void decode(const uint8_t *data, size_t size, int rank)
{
    relay_plan *p = NULL;
    if (relay_plan_decode(&p, data, size, rank) != RELAY_OK) {
        if (p) broken("a refused plan was returned");
        note_failure();
        return;
    }
    if (rank == -1) round_trip(p);
    relay_plan_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode(data, size, -1);
    decode(data, size, 0);
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
