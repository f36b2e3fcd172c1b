/* json_writer.h — writing one compact JSON document to a stream, for the
 * --json output of relay-dump and relay-run.
 *
 * The writer tracks nesting and commas; keys are given with each value
 * inside objects and are NULL inside arrays.  Strings are escaped; doubles
 * that are not finite become null. */
#ifndef RELAY_JSON_WRITER_H
#define RELAY_JSON_WRITER_H

#include <stdint.h>
#include <stdio.h>

enum { JSON_MAX_DEPTH = 16 };

typedef struct {
    FILE *f;
    int depth;
    int has_items[JSON_MAX_DEPTH]; /* per open container: a value was written */
} json_writer;

json_writer json_start(FILE *f);

void json_begin_object(json_writer *w, const char *key);
void json_end_object(json_writer *w);
void json_begin_array(json_writer *w, const char *key);
void json_end_array(json_writer *w);

void json_int(json_writer *w, const char *key, int64_t v);
void json_double(json_writer *w, const char *key, double v);
void json_bool(json_writer *w, const char *key, int v);
void json_string(json_writer *w, const char *key, const char *s);

/* Ends the document with a newline. */
void json_finish(json_writer *w);

#endif
