/* error.c — relay's single error convention: a status code plus a
 * thread-local message naming what was wrong. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

static _Thread_local char last_error[1024];

const char *relay_last_error(void) { return last_error; }

/* Formats into a scratch buffer first: an argument may be relay_last_error()
 * itself ("plan layout is invalid: %s"), which vsnprintf must not overwrite
 * while it reads it. */
relay_status relay_internal_fail(relay_status s, const char *fmt, ...)
{
    char message[sizeof last_error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    memcpy(last_error, message, sizeof last_error);
    return s;
}

const char *relay_status_str(relay_status s)
{
    switch (s) {
    case RELAY_OK: return "RELAY_OK";
    case RELAY_ERR_ARG: return "RELAY_ERR_ARG";
    case RELAY_ERR_NOMEM: return "RELAY_ERR_NOMEM";
    case RELAY_ERR_IO: return "RELAY_ERR_IO";
    case RELAY_ERR_FORMAT: return "RELAY_ERR_FORMAT";
    case RELAY_ERR_VERSION: return "RELAY_ERR_VERSION";
    case RELAY_ERR_MISMATCH: return "RELAY_ERR_MISMATCH";
    case RELAY_ERR_MPI: return "RELAY_ERR_MPI";
    case RELAY_ERR_UNSUPPORTED: return "RELAY_ERR_UNSUPPORTED";
    case RELAY_ERR_TIMEOUT: return "RELAY_ERR_TIMEOUT";
    case RELAY_ERR_PEER: return "RELAY_ERR_PEER";
    }
    return "RELAY_ERR_UNKNOWN";
}

size_t relay_type_size(relay_type t)
{
    switch (t) {
    case RELAY_FLOAT: return 4;
    case RELAY_DOUBLE: return 8;
    case RELAY_CFLOAT: return 8;
    case RELAY_CDOUBLE: return 16;
    }
    return 0;
}
