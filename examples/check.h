/* check.h — what the examples do when a relay call fails: print the status
 * and relay's own words, then abort the whole MPI job. */
#ifndef RELAY_EXAMPLES_CHECK_H
#define RELAY_EXAMPLES_CHECK_H

#include <stdio.h>

#include "relay/relay.h"

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        relay_status st_ = (call);                                                                    \
        if (st_ != RELAY_OK) {                                                                        \
            fprintf(stderr, "%s failed: %s: %s\n", #call, relay_status_str(st_), relay_last_error()); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                             \
        }                                                                                             \
    } while (0)

#endif
