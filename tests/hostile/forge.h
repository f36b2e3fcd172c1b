/* forge.h — editing a plan file as a tree and sealing it again, so that the
 * result is internally consistent: every section's content checksum and
 * byte hash, the section index, the fingerprint (when the header reads at
 * all) and the header hash are recomputed, as anyone who reads
 * docs/plan-format.md can.  What a reader refuses of such a file it must
 * refuse on the content, not on a checksum. */
#ifndef RELAY_FORGE_H
#define RELAY_FORGE_H

#include <msgpack.h>
#include <stddef.h>

typedef struct {
    msgpack_zone zone;
    msgpack_object header;
    int nsections;
    msgpack_object *sections; /* one map per rank, in rank order (transform plans) */
} forge_plan;

/* Parses a valid plan file; 0 on success. */
int forge_open(forge_plan *f, const void *file, size_t len);
void forge_close(forge_plan *f);

/* The file of f's objects, sealed (malloc'd into *out); 0 on success. */
int forge_seal(forge_plan *f, void **out, size_t *len);

/* The value stored under key in a map, or NULL. */
msgpack_object *forge_get(msgpack_object *map, const char *key);
/* Integers, written as the smallest encoding that holds them. */
void forge_set_int(msgpack_object *o, int64_t v);
/* Removes key from a map (nothing if absent). */
void forge_remove(msgpack_object *map, const char *key);
/* Adds key -> value at the end of a map (a second one if key is there). */
void forge_add(forge_plan *f, msgpack_object *map, const char *key, msgpack_object value);
/* A string object allocated in f's zone. */
msgpack_object forge_str(forge_plan *f, const char *s);

#endif
