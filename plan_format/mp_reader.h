/* mp_reader.h — a bounds-checked MessagePack cursor for untrusted plan files.
 *
 * msgpack-c's unpacker builds an object tree and allocates every array by its
 * declared element count before it knows the input holds that many, so a
 * five-byte hostile header can demand gigabytes.  Plan files are read with
 * this cursor instead: it never allocates, every read is checked against the
 * bytes left, and a declared count larger than the bytes left is refused at
 * once (every element takes at least one byte).  Writing uses msgpack-c. */
#ifndef RELAY_MP_READER_H
#define RELAY_MP_READER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const unsigned char *p, *end;
    const char *error;       /* first problem met, NULL while all is well */
} mp_reader;

void mp_init(mp_reader *r, const void *buf, size_t len);

/* Each returns 0 and sets r->error on a type mismatch, a truncation or a
 * value out of range; once r->error is set, every call fails. */
int mp_read_int(mp_reader *r, int64_t *v);           /* any integer that fits int64 */
int mp_read_ranged(mp_reader *r, int64_t *v, int64_t lo, int64_t hi); /* an integer in [lo, hi] */
int mp_read_uint64(mp_reader *r, uint64_t *v);       /* any non-negative integer */
int mp_read_str(mp_reader *r, const char **s, uint32_t *len);
int mp_read_map(mp_reader *r, uint32_t *pairs);      /* count checked against bytes left */
int mp_read_array(mp_reader *r, uint32_t *count);    /* count checked against bytes left */
int mp_read_bin(mp_reader *r, const unsigned char **b, uint32_t *len);
int mp_read_double(mp_reader *r, double *v);         /* a float 64 */
int mp_skip(mp_reader *r);                           /* any one object, nesting bounded */

/* Reads an array of exactly `count` integers in [lo, hi] into out. */
int mp_read_int_array(mp_reader *r, int64_t *out, uint32_t count, int64_t lo, int64_t hi);

/* Non-zero when the next key read equals the C string. */
int mp_key_is(const char *key, uint32_t len, const char *want);
/* The index of the key in keys[0..count), or -1. */
int mp_key_index(const char *const *keys, int count, const char *key, uint32_t len);

#endif
