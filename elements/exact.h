/* exact.h — every real element as an exact value, and back with one
 * rounding.
 *
 * Any value of a real element type (floats up to float64, integers up to
 * 64 bits) is exactly sign x mag x 2^exp with a 64-bit mag, so a conversion
 * reads its source into that form without losing anything and rounds once,
 * writing its target (elements.h gives the rules).  The floating formats
 * differ only in their field widths and in what their top exponent means,
 * so one decoder and one encoder serve all six; inlined with a constant
 * format they compile to the format's own bit manipulation. */
#ifndef RELAY_ELEMENTS_EXACT_H
#define RELAY_ELEMENTS_EXACT_H

#include <stdint.h>

typedef enum { EXACT_FINITE, EXACT_INF, EXACT_NAN } exact_kind;

typedef struct {
    exact_kind kind;
    int neg;
    int exp;      /* value = mag x 2^exp (finite) */
    uint64_t mag; /* finite: the magnitude's integer; NaN: its payload, left-aligned (bit 63 the quiet bit) */
} exact;

/* A binary floating format: exp_bits and man_bits fields after the sign.
 * ieee: the top exponent holds infinity (mantissa 0) and NaNs; otherwise
 * (float8 e4m3fn) it holds finite values but for the one NaN of all ones. */
typedef struct {
    int exp_bits, man_bits, bias, ieee;
} float_format;

#define FMT_DOUBLE ((float_format){11, 52, 1023, 1})
#define FMT_FLOAT ((float_format){8, 23, 127, 1})
#define FMT_BFLOAT16 ((float_format){8, 7, 127, 1})
#define FMT_FLOAT16 ((float_format){5, 10, 15, 1})
#define FMT_E5M2 ((float_format){5, 2, 15, 1})
#define FMT_E4M3FN ((float_format){4, 3, 7, 0})

static inline exact exact_of_float(float_format f, uint64_t bits)
{
    uint64_t man_mask = (UINT64_C(1) << f.man_bits) - 1, exp_top = (UINT64_C(1) << f.exp_bits) - 1;
    uint64_t e = (bits >> f.man_bits) & exp_top, m = bits & man_mask;
    exact x = {EXACT_FINITE, (int)((bits >> (f.exp_bits + f.man_bits)) & 1), 0, m};
    if (e == exp_top && f.ieee) {
        x.kind = m ? EXACT_NAN : EXACT_INF;
        x.mag = m << (64 - f.man_bits);
        return x;
    }
    if (e == exp_top && m == man_mask) { /* e4m3fn's NaN: no payload to keep */
        x.kind = EXACT_NAN;
        x.mag = UINT64_C(1) << 63;
        return x;
    }
    if (e == 0) {
        x.exp = 1 - f.bias - f.man_bits;
        return x;
    }
    x.mag = m | (UINT64_C(1) << f.man_bits);
    x.exp = (int)e - f.bias - f.man_bits;
    return x;
}

static inline exact exact_of_int(int64_t v)
{
    exact x = {EXACT_FINITE, v < 0, 0, v < 0 ? 0 - (uint64_t)v : (uint64_t)v};
    return x;
}

static inline exact exact_of_uint(uint64_t v)
{
    exact x = {EXACT_FINITE, 0, 0, v};
    return x;
}

/* mag x 2^-s rounded to nearest, ties to even, for s >= 1. */
static inline uint64_t shift_right_even(uint64_t mag, int s)
{
    if (s > 64) return 0;
    uint64_t q = s == 64 ? 0 : mag >> s;
    uint64_t rem = s == 64 ? mag : mag & ((UINT64_C(1) << s) - 1), half = UINT64_C(1) << (s - 1);
    return q + (rem > half || (rem == half && (q & 1)));
}

/* The pattern of NaN in format f with x's sign and the top of its payload,
 * quieted. */
static inline uint64_t float_nan(float_format f, int neg, uint64_t payload)
{
    uint64_t sign = (uint64_t)neg << (f.exp_bits + f.man_bits), exp_top = (UINT64_C(1) << f.exp_bits) - 1;
    if (!f.ieee) return sign | (exp_top << f.man_bits) | ((UINT64_C(1) << f.man_bits) - 1);
    uint64_t quiet = UINT64_C(1) << (f.man_bits - 1);
    return sign | (exp_top << f.man_bits) | quiet | (payload >> (64 - f.man_bits));
}

/* x rounded to format f: nearest, ties to even; past the largest finite
 * value infinity, or NaN where f has no infinity. */
static inline uint64_t float_of_exact(float_format f, exact x)
{
    uint64_t sign = (uint64_t)x.neg << (f.exp_bits + f.man_bits), exp_top = (UINT64_C(1) << f.exp_bits) - 1;
    uint64_t inf = f.ieee ? sign | (exp_top << f.man_bits) : float_nan(f, x.neg, 0);
    uint64_t largest = f.ieee ? (exp_top << f.man_bits) - 1 : (exp_top << f.man_bits) | ((UINT64_C(1) << f.man_bits) - 2);
    if (x.kind == EXACT_NAN) return float_nan(f, x.neg, x.mag);
    if (x.kind == EXACT_INF) return inf;
    if (x.mag == 0) return sign;
    int top = 63 - __builtin_clzll(x.mag), e = top + x.exp; /* x in [2^e, 2^(e+1)) */
    int emin = 1 - f.bias;
    if (e > (int)exp_top - f.bias + 1) return inf;
    int quantum = (e > emin ? e : emin) - f.man_bits; /* the unit of the last place at x */
    uint64_t m = x.exp >= quantum ? x.mag << (x.exp - quantum) : shift_right_even(x.mag, quantum - x.exp);
    /* m <= 2^(man_bits + 1): adding it to the exponent field carries a
     * rounding up into the next binade, and a subnormal into the normals. */
    uint64_t bits = e < emin ? m : ((uint64_t)(e + f.bias - 1) << f.man_bits) + m;
    return bits > largest ? inf : sign | bits;
}

/* |x| truncated toward zero, UINT64_MAX where it does not fit 64 bits. */
static inline uint64_t truncated_mag(exact x)
{
    if (x.kind == EXACT_INF) return UINT64_MAX;
    if (x.exp >= 0) return x.exp >= 64 || x.mag > (UINT64_MAX >> x.exp) ? UINT64_MAX : x.mag << x.exp;
    return x.exp <= -64 ? 0 : x.mag >> -x.exp;
}

/* x truncated toward zero into [lo, hi] (saturating); NaN is 0. */
static inline int64_t int_of_exact(exact x, int64_t lo, int64_t hi)
{
    if (x.kind == EXACT_NAN) return 0;
    uint64_t t = truncated_mag(x);
    if (!x.neg) return t > (uint64_t)hi ? hi : (int64_t)t;
    return t > 0 - (uint64_t)lo ? lo : (int64_t)(0 - t);
}

/* x truncated toward zero into [0, hi] (saturating); NaN is 0. */
static inline uint64_t uint_of_exact(exact x, uint64_t hi)
{
    if (x.kind == EXACT_NAN || x.neg) return 0;
    uint64_t t = truncated_mag(x);
    return t > hi ? hi : t;
}

static inline uint8_t bool_of_exact(exact x) { return x.kind != EXACT_FINITE || x.mag != 0; }

#endif
