/* fuzz_plan_decode.c — libFuzzer harness for the plan decoder.
 *
 * Any byte string must be refused cleanly or decoded into a plan that passes
 * validation; under AddressSanitizer and libFuzzer's malloc limit this
 * catches out-of-bounds reads, leaks and allocations driven by hostile
 * counts.  Built and run by scripts/fuzz.sh. */
#include <stddef.h>
#include <stdint.h>

#include "relay/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    relay_plan *p = NULL;
    if (relay_plan_decode(&p, data, size, -1) == RELAY_OK) relay_plan_free(p);
    if (relay_plan_decode(&p, data, size, 0) == RELAY_OK) relay_plan_free(p);
    return 0;
}
