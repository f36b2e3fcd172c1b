/* relay/status.h — the one error convention of relay, and the element vocabulary.
 *
 * Every public function that can fail returns a relay_status.  On failure,
 * relay_last_error() names what was wrong in words; the message is
 * thread-local and stays valid until the next failing relay call on the same
 * thread.  A failing call changes nothing the caller can observe. */
#ifndef RELAY_STATUS_H
#define RELAY_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include "relay/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    RELAY_OK = 0,
    RELAY_ERR_ARG,         /* an argument is invalid (null, out of range, inconsistent) */
    RELAY_ERR_NOMEM,       /* an allocation failed */
    RELAY_ERR_IO,          /* a file could not be read or written */
    RELAY_ERR_FORMAT,      /* a plan file or buffer is malformed, truncated or corrupted */
    RELAY_ERR_VERSION,     /* a plan file has an unknown major format version */
    RELAY_ERR_MISMATCH,    /* ranks disagree: communicator size or plan fingerprint */
    RELAY_ERR_MPI,         /* an MPI call failed */
    RELAY_ERR_UNSUPPORTED, /* a valid request this build or plan kind cannot serve */
    RELAY_ERR_TIMEOUT,     /* a replay passed its deadline (relay_exec_set_deadline): a peer did not take part */
    RELAY_ERR_PEER         /* a peer's start of this replay was refused: what came from it is NaN */
} relay_status;

/* A short constant name for a status, e.g. "RELAY_ERR_ARG". Never NULL. */
RELAY_API const char *relay_status_str(relay_status s);

/* The message of the last failing relay call on this thread ("" if none). */
RELAY_API const char *relay_last_error(void);

/* Element types: real and complex (interleaved re, im) in single and double precision. */
typedef enum { RELAY_FLOAT, RELAY_DOUBLE, RELAY_CFLOAT, RELAY_CDOUBLE } relay_type;

/* op(B): identity, transpose, conjugate transpose (same as transpose for real types). */
typedef enum { RELAY_OP_N, RELAY_OP_T, RELAY_OP_C } relay_op;

/* Element order inside a block, and process-grid numbering order. */
typedef enum { RELAY_COL_MAJOR, RELAY_ROW_MAJOR } relay_order;

/* Size in bytes of one element of type t (0 for an invalid type). */
RELAY_API size_t relay_type_size(relay_type t);

#ifdef __cplusplus
}
#endif
#endif
