/* atomic_file.h — writing a file atomically beside its final name
 * (atomic_file.c): readers see the old file or the whole new one, never a
 * part, and a failure leaves nothing behind.
 *
 *     rl_atomic_file af;
 *     if (rl_atomic_open(&af, path)) return ...;       // af.file is open
 *     ... write to af.file ...
 *     if (failed) rl_atomic_abort(&af); else st = rl_atomic_commit(&af);
 *
 * The new file gets mode 0666 less the umask, as a file made by open(2) or
 * fopen would.  Errors are reported as relay_status with a message
 * (relay_last_error). */
#ifndef RELAY_ATOMIC_FILE_H
#define RELAY_ATOMIC_FILE_H

#include <stdio.h>

#include "relay/status.h"

typedef struct {
    FILE *file;          /* the temporary file: write the contents here */
    char *tmp;           /* its name: the final one with ".tmp.XXXXXX" appended */
    const char *path;    /* the final name (the caller's string, kept until commit or abort) */
} rl_atomic_file;

/* Creates a new temporary file beside path (exclusively, under a fresh
 * name); RELAY_ERR_IO if it cannot. */
relay_status rl_atomic_open(rl_atomic_file *af, const char *path);

/* Flushes the contents to disk (fsync), closes the file and renames it
 * over path.  On failure the temporary file is removed.  Either way af is
 * released. */
relay_status rl_atomic_commit(rl_atomic_file *af);

/* Closes and removes the temporary file, leaving path as it was. */
void rl_atomic_abort(rl_atomic_file *af);

#endif
