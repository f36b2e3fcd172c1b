/* mp_reader.c — the bounds-checked MessagePack cursor (see mp_reader.h).
 * Covers the MessagePack types a plan file uses (integers, strings, binary
 * data, arrays, maps) and can skip every other type, so that unknown keys are ignored. */
#include <string.h>

#include "mp_reader.h"

enum { MAX_DEPTH = 32 };

void mp_init(mp_reader *r, const void *buf, size_t len)
{
    r->p = buf;
    r->end = r->p + len;
    r->error = NULL;
}

static int fail(mp_reader *r, const char *why)
{
    if (!r->error) r->error = why;
    return 0;
}

static size_t left(const mp_reader *r) { return (size_t)(r->end - r->p); }

static int take(mp_reader *r, size_t n, const unsigned char **at)
{
    if (r->error) return 0;
    if (left(r) < n) return fail(r, "truncated");
    *at = r->p;
    r->p += n;
    return 1;
}

static uint64_t be(const unsigned char *b, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | b[i];
    return v;
}

static int read_be(mp_reader *r, int n, uint64_t *v)
{
    const unsigned char *b;
    if (!take(r, (size_t)n, &b)) return 0;
    *v = be(b, n);
    return 1;
}

/* Reads any integer: *neg tells whether it is a negative value in *mag. */
static int read_integer(mp_reader *r, uint64_t *mag, int *neg)
{
    const unsigned char *t;
    uint64_t u;
    if (!take(r, 1, &t)) return 0;
    *neg = 0;
    unsigned char c = *t;
    if (c <= 0x7f) { *mag = c; return 1; }
    if (c >= 0xe0) { *neg = 1; *mag = (uint64_t)(256 - c); return 1; }
    switch (c) {
    case 0xcc: return read_be(r, 1, mag);
    case 0xcd: return read_be(r, 2, mag);
    case 0xce: return read_be(r, 4, mag);
    case 0xcf: return read_be(r, 8, mag);
    case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
        int n = 1 << (c - 0xd0);
        if (!read_be(r, n, &u)) return 0;
        int64_t s = n == 8 ? (int64_t)u : (int64_t)(u << (64 - 8 * n)) >> (64 - 8 * n);
        *neg = s < 0;
        *mag = s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s;
        return 1;
    }
    }
    return fail(r, "expected an integer");
}

int mp_read_int(mp_reader *r, int64_t *v)
{
    uint64_t mag;
    int neg;
    if (!read_integer(r, &mag, &neg)) return 0;
    if (!neg && mag > (uint64_t)INT64_MAX) return fail(r, "integer out of range");
    if (neg && mag > (uint64_t)INT64_MAX + 1) return fail(r, "integer out of range");
    *v = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return 1;
}

int mp_read_ranged(mp_reader *r, int64_t *v, int64_t lo, int64_t hi)
{
    if (!mp_read_int(r, v)) return 0;
    return *v < lo || *v > hi ? fail(r, "out of range") : 1;
}

int mp_read_uint64(mp_reader *r, uint64_t *v)
{
    int neg;
    if (!read_integer(r, v, &neg)) return 0;
    return neg ? fail(r, "expected a non-negative integer") : 1;
}

/* Reads a container header: fix form in [lo, lo+15], or 16/32-bit forms. */
static int read_container(mp_reader *r, unsigned char fix_lo, unsigned char c16, uint32_t *count, const char *what)
{
    const unsigned char *t;
    uint64_t n;
    if (!take(r, 1, &t)) return 0;
    if (*t >= fix_lo && *t <= fix_lo + 15) n = *t - fix_lo;
    else if (*t == c16) { if (!read_be(r, 2, &n)) return 0; }
    else if (*t == c16 + 1) { if (!read_be(r, 4, &n)) return 0; }
    else return fail(r, what);
    *count = (uint32_t)n;
    return 1;
}

int mp_read_array(mp_reader *r, uint32_t *count)
{
    if (!read_container(r, 0x90, 0xdc, count, "expected an array")) return 0;
    return *count > left(r) ? fail(r, "array count exceeds the bytes left") : 1;
}

int mp_read_map(mp_reader *r, uint32_t *pairs)
{
    if (!read_container(r, 0x80, 0xde, pairs, "expected a map")) return 0;
    return (uint64_t)*pairs * 2 > left(r) ? fail(r, "map count exceeds the bytes left") : 1;
}

int mp_read_str(mp_reader *r, const char **s, uint32_t *len)
{
    const unsigned char *t, *b;
    uint64_t n;
    if (!take(r, 1, &t)) return 0;
    if (*t >= 0xa0 && *t <= 0xbf) n = *t - 0xa0u;
    else if (*t >= 0xd9 && *t <= 0xdb) { if (!read_be(r, 1 << (*t - 0xd9), &n)) return 0; }
    else return fail(r, "expected a string");
    if (!take(r, (size_t)n, &b)) return 0;
    *s = (const char *)b;
    *len = (uint32_t)n;
    return 1;
}

int mp_read_bin(mp_reader *r, const unsigned char **b, uint32_t *len)
{
    const unsigned char *t;
    uint64_t n;
    if (!take(r, 1, &t)) return 0;
    if (*t < 0xc4 || *t > 0xc6) return fail(r, "expected binary data");
    if (!read_be(r, 1 << (*t - 0xc4), &n) || !take(r, (size_t)n, b)) return 0;
    *len = (uint32_t)n;
    return 1;
}

int mp_read_double(mp_reader *r, double *v)
{
    const unsigned char *t;
    uint64_t bits;
    if (!take(r, 1, &t)) return 0;
    if (*t != 0xcb) return fail(r, "expected a 64-bit float");
    if (!read_be(r, 8, &bits)) return 0;
    memcpy(v, &bits, sizeof *v);
    return 1;
}

int mp_key_is(const char *key, uint32_t len, const char *want)
{
    return strlen(want) == len && memcmp(key, want, len) == 0;
}

int mp_key_index(const char *const *keys, int count, const char *key, uint32_t len)
{
    for (int i = 0; i < count; i++)
        if (mp_key_is(key, len, keys[i])) return i;
    return -1;
}

int mp_read_int_array(mp_reader *r, int64_t *out, uint32_t count, int64_t lo, int64_t hi)
{
    uint32_t n;
    if (!mp_read_array(r, &n)) return 0;
    if (n != count) return fail(r, "array has the wrong length");
    for (uint32_t i = 0; i < n; i++) {
        if (!mp_read_int(r, &out[i])) return 0;
        if (out[i] < lo || out[i] > hi) return fail(r, "array element out of range");
    }
    return 1;
}

/* Skips one object of any type; nesting deeper than MAX_DEPTH is refused. */
static int skip_depth(mp_reader *r, int depth)
{
    const unsigned char *t;
    uint64_t n;
    if (depth > MAX_DEPTH) return fail(r, "nesting too deep");
    if (r->error || left(r) < 1) return fail(r, "truncated");
    unsigned char c = *r->p;
    if (c <= 0x7f || c >= 0xe0 || (c >= 0xcc && c <= 0xd3)) { int64_t v; uint64_t u; return c == 0xcf ? mp_read_uint64(r, &u) : mp_read_int(r, &v); }
    if ((c >= 0xa0 && c <= 0xbf) || (c >= 0xd9 && c <= 0xdb)) { const char *s; uint32_t l; return mp_read_str(r, &s, &l); }
    if ((c >= 0x90 && c <= 0x9f) || c == 0xdc || c == 0xdd) {
        uint32_t k;
        if (!mp_read_array(r, &k)) return 0;
        for (uint32_t i = 0; i < k; i++) if (!skip_depth(r, depth + 1)) return 0;
        return 1;
    }
    if ((c >= 0x80 && c <= 0x8f) || c == 0xde || c == 0xdf) {
        uint32_t k;
        if (!mp_read_map(r, &k)) return 0;
        for (uint64_t i = 0; i < 2 * (uint64_t)k; i++) if (!skip_depth(r, depth + 1)) return 0;
        return 1;
    }
    take(r, 1, &t);
    switch (c) {
    case 0xc0: case 0xc2: case 0xc3: return 1;                      /* nil, false, true */
    case 0xca: return take(r, 4, &t);                               /* float 32 */
    case 0xcb: return take(r, 8, &t);                               /* float 64 */
    case 0xc4: case 0xc5: case 0xc6:                                /* bin 8/16/32 */
        return read_be(r, 1 << (c - 0xc4), &n) && take(r, (size_t)n, &t);
    case 0xd4: return take(r, 2, &t);                               /* fixext 1..16 */
    case 0xd5: return take(r, 3, &t);
    case 0xd6: return take(r, 5, &t);
    case 0xd7: return take(r, 9, &t);
    case 0xd8: return take(r, 17, &t);
    case 0xc7: case 0xc8: case 0xc9:                                /* ext 8/16/32 */
        return read_be(r, 1 << (c - 0xc7), &n) && take(r, (size_t)n + 1, &t);
    }
    return fail(r, "invalid MessagePack type byte");
}

int mp_skip(mp_reader *r) { return skip_depth(r, 0); }
