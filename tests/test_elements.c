/* test_elements.c — the element types' table and conversions against
 * references built another way.
 *
 * The conversions (elements/exact.h) round on integers: a magnitude
 * shifted with its dropped bits compared against half.  The references
 * here round with the floating-point unit instead: a value scaled by a
 * power of two (exact) into units of its last place, rounded by rintl (or
 * by adding and subtracting 1.5 x 2^52, in the exhaustive loops), scaled
 * back; formats are decoded with ldexpl, never by assembling bits.
 *   - every float32 into bfloat16, float16, float8 e4m3fn and e5m2, all
 *     2^32 of them (with the CPU's SIMD loops and with the portable ones),
 *     OpenMP over the binades; float16's outputs are also hashed and
 *     compared with a digest numpy made (tests/elements_float16_digest.py
 *     made it, and says how);
 *   - every bfloat16, float16 and float8 pattern into float32 and float64;
 *   - float64 inputs at every midpoint of bfloat16, float16, both float8
 *     and (in part) float32, and one float64 ulp either side, where
 *     rounding through float32 first goes wrong;
 *   - every pair of real types over every pattern of the 8- and 16-bit
 *     types and random and chosen values of the wider ones, integers
 *     included (truncation, saturation, NaN to 0, bool);
 *   - NaN's sign, quiet bit and payload; complex pairs; the table.
 * RELAY_EXHAUSTIVE_STRIDE=k (the sanitized build sets it) takes every k-th
 * float32 of each binade only. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <omp.h>
#include <xxhash.h>

#include "elements.h"

/* ---- the formats, decoded and rounded with the FPU -------------------------- */

typedef struct {
    rl_elem type;
    int bits, exp_bits, man_bits;
    int has_inf; /* IEEE's top exponent; else (e4m3fn) one NaN pattern and no infinity */
} ref_format;

static const ref_format F64 = {RL_ELEM_DOUBLE, 64, 11, 52, 1}, F32 = {RL_ELEM_FLOAT, 32, 8, 23, 1},
                        BF16 = {RL_ELEM_BFLOAT16, 16, 8, 7, 1}, F16 = {RL_ELEM_FLOAT16, 16, 5, 10, 1},
                        E5M2 = {RL_ELEM_E5M2, 8, 5, 2, 1}, E4M3 = {RL_ELEM_E4M3FN, 8, 4, 3, 0};

static int bias_of(const ref_format *f) { return (1 << (f->exp_bits - 1)) - 1; }

/* The value of a pattern: finite or infinite, or NaN (return 1). */
static int ref_decode(const ref_format *f, uint64_t bits, long double *v)
{
    uint64_t top = (UINT64_C(1) << f->exp_bits) - 1, mmax = (UINT64_C(1) << f->man_bits) - 1;
    uint64_t e = (bits >> f->man_bits) & top, m = bits & mmax;
    int neg = (int)((bits >> (f->bits - 1)) & 1);
    if ((f->has_inf && e == top && m) || (!f->has_inf && e == top && m == mmax)) return 1;
    if (f->has_inf && e == top) *v = INFINITY;
    else if (e == 0) *v = ldexpl((long double)m, 1 - bias_of(f) - f->man_bits);
    else *v = ldexpl((long double)(m + mmax + 1), (int)e - bias_of(f) - f->man_bits);
    if (neg) *v = -*v;
    return 0;
}

static uint64_t largest_pattern(const ref_format *f)
{
    uint64_t top = (UINT64_C(1) << f->exp_bits) - 1;
    return f->has_inf ? (top << f->man_bits) - 1 : (top << f->man_bits) | ((UINT64_C(1) << f->man_bits) - 2);
}

static long double largest_of(const ref_format *f)
{
    long double v;
    ref_decode(f, largest_pattern(f), &v);
    return v;
}

/* x rounded to f by the FPU: units of the last place at x, rintl, back;
 * past the largest finite value infinity (or NaN: return 1). */
static int ref_round(const ref_format *f, long double x, long double *r)
{
    if (isnan(x) || (isinf(x) && !f->has_inf)) return 1;
    if (isinf(x) || x == 0) {
        *r = x;
        return 0;
    }
    int e;
    frexpl(x, &e); /* |x| in [2^(e-1), 2^e) */
    int emin = 1 - bias_of(f), place = (e - 1 > emin ? e - 1 : emin) - f->man_bits;
    *r = copysignl(ldexpl(rintl(ldexpl(x, -place)), place), x);
    if (fabsl(*r) <= largest_of(f)) return 0;
    if (!f->has_inf) return 1;
    *r = copysignl(INFINITY, x);
    return 0;
}

/* The NaN the rules give format f for a NaN of sign neg whose payload's
 * top bits (below the quiet bit) are the source's man_bits-bit mantissa m. */
static uint64_t ref_nan(const ref_format *f, int neg, uint64_t m, int src_man_bits)
{
    uint64_t sign = (uint64_t)neg << (f->bits - 1), top = (UINT64_C(1) << f->exp_bits) - 1;
    if (!f->has_inf) return sign | (top << f->man_bits) | ((UINT64_C(1) << f->man_bits) - 1);
    uint64_t quiet = UINT64_C(1) << (f->man_bits - 1);
    uint64_t payload = src_man_bits >= f->man_bits ? m >> (src_man_bits - f->man_bits) : m << (f->man_bits - src_man_bits);
    return sign | (top << f->man_bits) | quiet | (payload & ((UINT64_C(1) << f->man_bits) - 1));
}

static uint64_t load_bits(const void *p, int64_t i, int bytes)
{
    uint64_t b = 0;
    memcpy(&b, (const char *)p + i * bytes, (size_t)bytes); /* little-endian x86 and arm64 */
    return b;
}

/* ---- every float32 into the narrow formats ----------------------------------- */

/* 1.5 x 2^52: y + C - C is y rounded to an integer, ties to even, for |y| < 2^51. */
static const double ROUND_TO_INTEGER = 6755399441055744.0;

static int64_t exhaustive_stride(void)
{
    const char *s = getenv("RELAY_EXHAUSTIVE_STRIDE");
    return s && atoll(s) > 1 ? atoll(s) : 1;
}

/* The float32 case of an input's expected output: 0 and *r the rounded
 * value where it is finite, else 1 and *bits the pattern. */
typedef struct {
    double down, up, largest; /* the binade's scaling to units of the last place and back; f's largest */
    uint64_t overflow;        /* the pattern past the largest: infinity, or e4m3fn's NaN */
} binade_rounding;

static binade_rounding rounding_of(const ref_format *f, uint32_t s, uint32_t ef)
{
    int emin = 1 - bias_of(f), e = ef == 0 ? -127 : (int)ef - 127, place = (e > emin ? e : emin) - f->man_bits;
    uint64_t sign = (uint64_t)s << (f->bits - 1), top = (UINT64_C(1) << f->exp_bits) - 1;
    binade_rounding b = {ldexp(1.0, -place), ldexp(1.0, place), (double)largest_of(f),
                         f->has_inf ? sign | (top << f->man_bits) : ref_nan(f, (int)s, 0, 0)};
    return b;
}

/* Whether a finite float32's output is its value rounded by the FPU. */
static inline int rounds_right(const binade_rounding *b, const float *value_of, float x, uint64_t got)
{
    double r = copysign(((double)x * b->down + ROUND_TO_INTEGER - ROUND_TO_INTEGER) * b->up, (double)x);
    if (fabs(r) > b->largest) return got == b->overflow;
    float v = value_of[got], rf = (float)r; /* r is a value of the narrow format: exact in float */
    uint32_t vb, rb;
    memcpy(&vb, &v, 4);
    memcpy(&rb, &rf, 4);
    return vb == rb;
}

/* Checks outputs of one binade (sign s, exponent field ef) against the
 * FPU's rounding; returns the mismatches, printing the first few. */
static int64_t check_block(const ref_format *f, const float *value_of, uint32_t s, uint32_t ef, const uint32_t *in,
                            const void *out, int64_t n)
{
    binade_rounding b = rounding_of(f, s, ef);
    const uint8_t *o8 = out;
    const uint16_t *o16 = out;
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t got = f->bits == 8 ? o8[i] : o16[i];
        uint32_t u = in[i];
        float x;
        memcpy(&x, &u, 4);
        int ok = ef == 255 ? got == (u & 0x7fffff ? ref_nan(f, (int)s, u & 0x7fffff, 23) : b.overflow)
                           : rounds_right(&b, value_of, x, got);
        if (!ok && bad++ < 5)
            print_message("float32 0x%08x -> %s: got 0x%llx\n", u, rl_elem_info_of(f->type)->name, (unsigned long long)got);
    }
    return bad;
}

/* The decoded value of every pattern of f (NaN where it is one), as float:
 * exact for the narrow formats, and half the cache a double table takes. */
static float *value_table(const ref_format *f)
{
    int64_t count = INT64_C(1) << f->bits;
    float *t = malloc((size_t)count * sizeof *t);
    for (int64_t b = 0; b < count; b++) {
        long double v;
        t[b] = ref_decode(f, (uint64_t)b, &v) ? NAN : (float)v;
    }
    return t;
}

/* Adds float16 outputs to a binade's XXH3-64, every NaN as 0x7e00 with its
 * sign (numpy keeps a signalling NaN's payload unquieted; relay quiets it). */
static void add_canonical(XXH3_state_t *h, uint16_t *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if ((out[i] & 0x7fff) > 0x7c00) out[i] = (uint16_t)((out[i] & 0x8000) | 0x7e00);
    XXH3_64bits_update(h, out, (size_t)n * sizeof *out);
}

/* numpy 1.24's float32 -> float16 (astype) over all 2^32 patterns in order,
 * one XXH3-64 per binade of 2^23 (NaN canonical, above), those 512 hashed
 * again: tests/elements_float16_digest.py. */
static const uint64_t NUMPY_FLOAT16_DIGEST = UINT64_C(0xffffb0f58f22d00f);

/* Every float32 (every stride-th of each binade) into f; returns the
 * mismatches and, when the stride is 1, the digest of the outputs. */
/* Every float32 (every stride-th of each binade) into f, a block at a time
 * so that inputs and outputs stay in cache; returns the mismatches and,
 * for float16, the digest of the outputs. */
static int64_t all_floats_into(const ref_format *f, int64_t stride, uint64_t *digest)
{
    enum { BLOCK = 1 << 14 };
    float *value_of = value_table(f);
    uint64_t binade_digest[512];
    int64_t bad = 0, n = ((INT64_C(1) << 23) + stride - 1) / stride;
#pragma omp parallel reduction(+ : bad)
    {
        uint32_t in[BLOCK];
        uint16_t out[BLOCK];
        XXH3_state_t *h = XXH3_createState();
#pragma omp for schedule(dynamic)
        for (int c = 0; c < 512; c++) {
            uint32_t s = (uint32_t)c >> 8, ef = (uint32_t)c & 0xff;
            XXH3_64bits_reset(h);
            for (int64_t i0 = 0; i0 < n; i0 += BLOCK) {
                int64_t m = n - i0 < BLOCK ? n - i0 : BLOCK;
                for (int64_t i = 0; i < m; i++) in[i] = s << 31 | ef << 23 | (uint32_t)((i0 + i) * stride);
                rl_elem_convert(f->type, out, RL_ELEM_FLOAT, in, m);
                bad += check_block(f, value_of, s, ef, in, out, m);
                if (f->type == RL_ELEM_FLOAT16) add_canonical(h, out, m);
            }
            binade_digest[c] = XXH3_64bits_digest(h);
        }
        XXH3_freeState(h);
    }
    *digest = XXH3_64bits(binade_digest, sizeof binade_digest);
    free(value_of);
    return bad;
}

/* The loops a CPU replays with (its SIMD ones where it has them) take every
 * float32; the portable ones beside them, which other CPUs replay with,
 * every 7th of each binade (a prime, so every low mantissa bit varies). */
enum { PORTABLE_STRIDE = 7 };

static void every_float32_into(const ref_format *f)
{
    int has_simd_loop = f->type == RL_ELEM_BFLOAT16 || f->type == RL_ELEM_FLOAT16;
    for (int simd = has_simd_loop && rl_elem_simd_available(); simd >= 0; simd--) {
        rl_elem_use_simd(simd);
        int replayed_here = simd || !has_simd_loop || !rl_elem_simd_available();
        int64_t stride = exhaustive_stride() * (replayed_here ? 1 : PORTABLE_STRIDE);
        uint64_t digest;
        double t0 = omp_get_wtime();
        int64_t bad = all_floats_into(f, stride, &digest);
        print_message("float32 -> %s (%s loops, every %lld-th): %.1f s\n", rl_elem_info_of(f->type)->name,
                      simd ? "SIMD" : "portable", (long long)stride, omp_get_wtime() - t0);
        assert_int_equal(bad, 0);
        if (f->type == RL_ELEM_FLOAT16 && stride == 1) assert_int_equal(digest, NUMPY_FLOAT16_DIGEST);
    }
    rl_elem_use_simd(1);
}

static void test_float32_to_bfloat16(void **state) { every_float32_into(&BF16); }
static void test_float32_to_float16(void **state) { every_float32_into(&F16); }
static void test_float32_to_e4m3fn(void **state) { every_float32_into(&E4M3); }
static void test_float32_to_e5m2(void **state) { every_float32_into(&E5M2); }

/* ---- every narrow pattern into float32 and float64 ---------------------------- */

static void widen_all(const ref_format *from, const ref_format *to)
{
    int64_t count = INT64_C(1) << from->bits;
    int bytes_in = from->bits / 8, bytes_out = to->bits / 8;
    char *in = calloc((size_t)count, (size_t)bytes_in), *out = malloc((size_t)(count * bytes_out));
    for (int64_t b = 0; b < count; b++) memcpy(in + b * bytes_in, &b, (size_t)bytes_in);
    rl_elem_convert(to->type, out, from->type, in, count);
    int64_t bad = 0;
    for (int64_t b = 0; b < count; b++) {
        uint64_t got = load_bits(out, b, bytes_out);
        long double want, v;
        int neg = (int)((uint64_t)b >> (from->bits - 1));
        int ok = ref_decode(from, (uint64_t)b, &want)
                     ? got == ref_nan(to, neg, from->has_inf ? (uint64_t)b & ((UINT64_C(1) << from->man_bits) - 1) : 0,
                                      from->has_inf ? from->man_bits : to->man_bits)
                     : !ref_decode(to, got, &v) && v == want && signbit(v) == signbit(want);
        if (!ok && bad++ < 5)
            print_message("%s 0x%llx -> %s: got 0x%llx\n", rl_elem_info_of(from->type)->name, (long long)b,
                          rl_elem_info_of(to->type)->name, (unsigned long long)got);
    }
    free(in);
    free(out);
    assert_int_equal(bad, 0);
}

static void test_narrow_patterns_widen(void **state)
{
    const ref_format *narrow[] = {&BF16, &F16, &E4M3, &E5M2};
    for (int simd = rl_elem_simd_available(); simd >= 0; simd--) {
        rl_elem_use_simd(simd);
        for (int k = 0; k < 4; k++) {
            widen_all(narrow[k], &F32);
            widen_all(narrow[k], &F64);
        }
    }
    rl_elem_use_simd(1);
}

/* ---- float64 at every midpoint, and one ulp either side ----------------------- */

/* The value after pattern b's (b >= 0 finite); past the largest, one more
 * step of its binade. */
static long double next_up(const ref_format *f, uint64_t b)
{
    long double v, w;
    if (!ref_decode(f, b + 1, &w) && !isinf(w)) return w;
    ref_decode(f, b, &v);
    ref_decode(f, b - 1, &w);
    return v + (v - w);
}

static int64_t midpoints_into(const ref_format *f, uint64_t first, uint64_t last, uint64_t step)
{
    int64_t bad = 0;
    unsigned char out[6 * 4];
    for (uint64_t b = first; b <= last; b += step) {
        long double lo;
        ref_decode(f, b, &lo);
        double mid = (double)((lo + next_up(f, b)) / 2), x[6];
        double around[3] = {nextafter(mid, -INFINITY), mid, nextafter(mid, INFINITY)};
        for (int k = 0; k < 3; k++) {
            x[2 * k] = around[k];
            x[2 * k + 1] = -around[k];
        }
        rl_elem_convert(f->type, out, RL_ELEM_DOUBLE, x, 6);
        for (int k = 0; k < 6; k++) {
            long double want, got;
            uint64_t g = load_bits(out, k, f->bits / 8);
            int want_nan = ref_round(f, x[k], &want), got_nan = ref_decode(f, g, &got);
            int ok = want_nan ? got_nan : !got_nan && got == want && signbit(got) == signbit(want);
            if (!ok && bad++ < 5)
                print_message("float64 %a -> %s: got 0x%llx, want %La\n", x[k], rl_elem_info_of(f->type)->name,
                              (unsigned long long)g, want);
        }
    }
    return bad;
}

static void test_float64_midpoints(void **state)
{
    const ref_format *narrow[] = {&BF16, &F16, &E4M3, &E5M2};
    for (int simd = rl_elem_simd_available(); simd >= 0; simd--) {
        rl_elem_use_simd(simd);
        for (int k = 0; k < 4; k++) assert_int_equal(midpoints_into(narrow[k], 0, largest_pattern(narrow[k]), 1), 0);
    }
    rl_elem_use_simd(1);
    /* float32: every 4099th pattern (every binade, many mantissas), and its largest. */
    assert_int_equal(midpoints_into(&F32, 0, largest_pattern(&F32), 4099), 0);
    assert_int_equal(midpoints_into(&F32, largest_pattern(&F32), largest_pattern(&F32), 1), 0);
}

/* The case that rounding through float32 gets wrong: 1 + 2^-8 + 2^-40 is
 * above bfloat16's midpoint 1 + 2^-8, but float32 rounds it onto it, and
 * the tie then goes to 1. */
static void test_no_double_rounding(void **state)
{
    double x = 1.0 + ldexp(1, -8) + ldexp(1, -40);
    uint16_t b;
    rl_elem_convert(RL_ELEM_BFLOAT16, &b, RL_ELEM_DOUBLE, &x, 1);
    assert_int_equal(b, 0x3f81); /* 1 + 2^-7 */
    unsigned char h;
    x = 1.0 + ldexp(1, -4) + ldexp(1, -40); /* above e4m3fn's midpoint between 1 and 1.125 */
    rl_elem_convert(RL_ELEM_E4M3FN, &h, RL_ELEM_DOUBLE, &x, 1);
    assert_int_equal(h, 0x39);
}

/* ---- every pair of real types -------------------------------------------------- */

static const ref_format *format_of(rl_elem t)
{
    static const ref_format *const formats[] = {&F32, &F64, &BF16, &F16, &E4M3, &E5M2};
    for (int k = 0; k < 6; k++)
        if (formats[k]->type == t) return formats[k];
    return NULL;
}

/* The value of an element (1: NaN), decoded by arithmetic or C's integer conversions. */
static int value_of_element(rl_elem t, uint64_t bits, long double *v)
{
    const rl_elem_info *e = rl_elem_info_of(t);
    int nbits = (int)e->size * 8;
    if (format_of(t)) return ref_decode(format_of(t), bits, v);
    if (e->cls == RL_CLASS_BOOL) *v = (bits & 0xff) != 0;
    else if (e->cls == RL_CLASS_UINT) *v = (long double)bits;
    else *v = (long double)(nbits == 64 ? (int64_t)bits : (int64_t)(bits << (64 - nbits)) >> (64 - nbits));
    return 0;
}

/* What the rules make of x (NaN: is_nan) in type t: the expected value,
 * or 1 for NaN. */
static int expected_in(rl_elem t, long double x, int is_nan, long double *want)
{
    const rl_elem_info *e = rl_elem_info_of(t);
    int nbits = (int)e->size * 8;
    if (format_of(t)) return is_nan ? 1 : ref_round(format_of(t), x, want);
    if (e->cls == RL_CLASS_BOOL) {
        *want = is_nan || x != 0;
        return 0;
    }
    long double lo = e->cls == RL_CLASS_UINT ? 0 : -ldexpl(1, nbits - 1);
    long double hi = e->cls == RL_CLASS_UINT ? ldexpl(1, nbits) - 1 : ldexpl(1, nbits - 1) - 1;
    long double t0 = is_nan ? 0 : truncl(x);
    *want = t0 < lo ? lo : t0 > hi ? hi : t0;
    return 0;
}

/* Test patterns of type t: all of them for 8 and 16 bits; chosen values
 * and random patterns for 32 and 64. */
static uint64_t *patterns_of(rl_elem t, int64_t *count)
{
    const rl_elem_info *e = rl_elem_info_of(t);
    if (e->size <= 2) {
        *count = INT64_C(1) << (8 * e->size);
        uint64_t *p = malloc((size_t)*count * sizeof *p);
        for (int64_t b = 0; b < *count; b++) p[b] = (uint64_t)b;
        return p;
    }
    static const double reals[] = {0.0, -0.0, 0.5, -0.5, 1, -1, 1.5, 2.5, -2.5, 127.5, 128, -128.5, -129, 255.5, 256,
                                   32767.5, -32769, 65535.9, 65536, 2147483647.5, 2147483648.0, -2147483649.0,
                                   4294967295.5, 4294967296.0, 9007199254740994.0, 9223372036854775808.0,
                                   -9223372036854775808.0, -9223372036854777856.0, 18446744073709551616.0, 1e30, -1e30,
                                   448, 464, 465, 480, 57344, 61440, 65504, 65519.99, 65520, 3.3895313892515355e38,
                                   0x1p-133, 0x1p-134, 0x1.8p-134, 0x1p-149, 0x1p-1074, INFINITY, -INFINITY, NAN, -NAN};
    static const int64_t ints[] = {0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32769, 65535, 65536,
                                   INT32_MAX, (int64_t)INT32_MAX + 1, INT32_MIN, (int64_t)INT32_MIN - 1, UINT32_MAX,
                                   (INT64_C(1) << 24) + 1, (INT64_C(1) << 53) + 1, INT64_MAX, INT64_MIN, INT64_MIN + 1,
                                   (INT64_C(1) << 62) + 257, -(INT64_C(1) << 40) - 3, 448, 465, 65505, 65520};
    int nreal = sizeof reals / sizeof *reals, nint = sizeof ints / sizeof *ints, nrandom = 1 << 14;
    uint64_t *p = malloc((size_t)(nreal + nint + nrandom) * sizeof *p);
    int64_t k = 0;
    for (int i = 0; i < nreal && format_of(t); i++) {
        float f = (float)reals[i];
        p[k] = 0;
        if (t == RL_ELEM_FLOAT) memcpy(&p[k], &f, 4);
        else memcpy(&p[k], &reals[i], 8);
        k++;
    }
    for (int i = 0; i < nint && !format_of(t); i++) p[k++] = (uint64_t)ints[i];
    uint64_t state = 0x9e3779b97f4a7c15u ^ (uint64_t)t; /* splitmix64, a fixed seed per type */
    for (int i = 0; i < nrandom; i++) {
        uint64_t z = (state += 0x9e3779b97f4a7c15u);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        p[k++] = z ^ (z >> 31);
    }
    *count = k;
    return p;
}

static int64_t check_pair(rl_elem from, rl_elem to)
{
    int64_t n;
    uint64_t *p = patterns_of(from, &n);
    size_t in_bytes = rl_elem_info_of(from)->size, out_bytes = rl_elem_info_of(to)->size;
    char *in = malloc((size_t)n * in_bytes), *out = malloc((size_t)n * out_bytes);
    for (int64_t i = 0; i < n; i++) memcpy(in + (size_t)i * in_bytes, &p[i], in_bytes);
    rl_elem_convert(to, out, from, in, n);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        long double x = 0, want = 0, got = 0;
        uint64_t bits = load_bits(in, i, (int)in_bytes), g = load_bits(out, i, (int)out_bytes);
        int x_nan = value_of_element(from, bits, &x), want_nan = expected_in(to, x, x_nan, &want);
        int got_nan = value_of_element(to, g, &got);
        int same_sign = signbit(got) == signbit(want) || !format_of(to);
        int ok = want_nan ? got_nan && (!x_nan || (int)(g >> (8 * out_bytes - 1)) == (int)(bits >> (8 * in_bytes - 1)))
                          : !got_nan && got == want && same_sign;
        if (!ok && bad++ < 3)
            print_message("%s 0x%llx -> %s: got 0x%llx (%Lg), want %Lg\n", rl_elem_info_of(from)->name,
                          (unsigned long long)bits, rl_elem_info_of(to)->name, (unsigned long long)g, got, want);
    }
    free(p);
    free(in);
    free(out);
    return bad;
}

static void test_every_pair(void **state)
{
    int64_t bad = 0;
    for (int simd = rl_elem_simd_available(); simd >= 0; simd--) {
        rl_elem_use_simd(simd);
        for (int from = 0; from < RL_ELEM_COUNT; from++)
            for (int to = 0; to < RL_ELEM_COUNT; to++)
                if (rl_elem_info_of(from)->cls != RL_CLASS_COMPLEX && rl_elem_info_of(to)->cls != RL_CLASS_COMPLEX)
                    bad += check_pair((rl_elem)from, (rl_elem)to);
    }
    rl_elem_use_simd(1);
    assert_int_equal(bad, 0);
}

/* ---- arithmetic in the accumulation type ---------------------------------------- */

/* bfloat16 and float16: every pattern as x against a shifted pattern as y,
 * alpha * x + beta * y computed in float here and rounded by ref_round,
 * once: rounding alpha * x to the format first would differ. */
static void axpby_narrow(const ref_format *f, float alpha, float beta)
{
    int64_t n = INT64_C(1) << f->bits;
    uint16_t *x = calloc((size_t)n, 2), *y = calloc((size_t)n, 2), *d = calloc((size_t)n, 2);
    for (int64_t b = 0; b < n; b++) {
        x[b] = (uint16_t)b;
        y[b] = d[b] = (uint16_t)((b * 40503 + 12345) & 0xffff);
    }
    rl_elem_axpby(f->type, d, x, n, &alpha, &beta);
    int64_t bad = 0;
    for (int64_t b = 0; b < n; b++) {
        long double vx, vy, want, got;
        int nan_in = ref_decode(f, x[b], &vx) | ref_decode(f, y[b], &vy);
        float sum = alpha * (float)vx + beta * (float)vy;
        int want_nan = nan_in || isnan(sum) ? 1 : ref_round(f, sum, &want), got_nan = ref_decode(f, d[b], &got);
        int ok = want_nan ? got_nan : !got_nan && got == want && signbit(got) == signbit(want);
        if (!ok && bad++ < 3) print_message("%s axpby 0x%04x 0x%04x: got 0x%04x\n", rl_elem_info_of(f->type)->name, x[b], y[b], d[b]);
    }
    free(x);
    free(y);
    free(d);
    assert_int_equal(bad, 0);
}

static void test_axpby_narrow_floats(void **state)
{
    for (int simd = rl_elem_simd_available(); simd >= 0; simd--) {
        rl_elem_use_simd(simd);
        axpby_narrow(&BF16, 0.5f, 1.0f);
        axpby_narrow(&BF16, 1.0f / 3.0f, -1.25f);
        axpby_narrow(&F16, 0.5f, 1.0f);
        axpby_narrow(&F16, 3.0f, 1e-3f);
    }
    rl_elem_use_simd(1);
}

/* Integers: alpha * x + beta * y modulo 2^bits, here in 128-bit integers,
 * mapped back to the type's range; signed types wrap as unsigned ones. */
static void axpby_integers(rl_elem t, int64_t alpha, int64_t beta)
{
    int64_t n;
    uint64_t *p = patterns_of(t, &n);
    size_t size = rl_elem_info_of(t)->size;
    int bits = (int)size * 8, is_signed = rl_elem_info_of(t)->cls == RL_CLASS_INT;
    char *x = calloc((size_t)n, size), *d = calloc((size_t)n, size);
    for (int64_t i = 0; i < n; i++) {
        uint64_t y = p[(i * 7 + 3) % n];
        memcpy(x + (size_t)i * size, &p[i], size);
        memcpy(d + (size_t)i * size, &y, size);
    }
    int64_t bad = 0;
    char a[8], b[8];
    memcpy(a, &alpha, size); /* little-endian: the low bytes are the value in t */
    memcpy(b, &beta, size);
    rl_elem_axpby(t, d, x, n, a, b);
    for (int64_t i = 0; i < n; i++) {
        long double vx, vy, vg;
        value_of_element(t, load_bits(x, i, (int)size), &vx);
        value_of_element(t, p[(i * 7 + 3) % n] & (bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1), &vy);
        value_of_element(t, load_bits(d, i, (int)size), &vg);
        __int128 want = (__int128)alpha * (__int128)vx + (__int128)beta * (__int128)vy;
        unsigned __int128 modulus = (unsigned __int128)1 << bits;
        unsigned __int128 m = (unsigned __int128)want % modulus;
        __int128 w = is_signed && m >= modulus / 2 ? (__int128)m - (__int128)modulus : (__int128)m;
        if ((__int128)vg != w && bad++ < 3) print_message("%s axpby: element %lld\n", rl_elem_info_of(t)->name, (long long)i);
    }
    free(p);
    free(x);
    free(d);
    assert_int_equal(bad, 0);
}

static void test_axpby_integers(void **state)
{
    for (int t = RL_ELEM_INT8; t <= RL_ELEM_UINT64; t++) {
        axpby_integers((rl_elem)t, 3, -5);
        axpby_integers((rl_elem)t, -1, 1);
        axpby_integers((rl_elem)t, 1, 0);
    }
}

/* ---- NaN payloads, complex pairs, the table ----------------------------------------- */

static void test_nan_payloads(void **state)
{
    uint32_t snan = 0x7fa12345u, neg_snan = 0xff800001u;
    uint16_t h[2];
    unsigned char q[2];
    uint32_t in[2] = {snan, neg_snan};
    rl_elem_convert(RL_ELEM_BFLOAT16, h, RL_ELEM_FLOAT, in, 2);
    assert_int_equal(h[0], 0x7fe1); /* quiet bit set, payload's top kept */
    assert_int_equal(h[1], 0xffc0);
    rl_elem_convert(RL_ELEM_FLOAT16, h, RL_ELEM_FLOAT, in, 2);
    assert_int_equal(h[0], 0x7f09);
    assert_int_equal(h[1], 0xfe00);
    rl_elem_convert(RL_ELEM_E4M3FN, q, RL_ELEM_FLOAT, in, 2);
    assert_int_equal(q[0], 0x7f);
    assert_int_equal(q[1], 0xff);
    float inf[2] = {INFINITY, -INFINITY};
    rl_elem_convert(RL_ELEM_E4M3FN, q, RL_ELEM_FLOAT, inf, 2); /* no infinity: NaN, sign kept */
    assert_int_equal(q[0], 0x7f);
    assert_int_equal(q[1], 0xff);
    uint32_t back[2];
    rl_elem_convert(RL_ELEM_FLOAT, back, RL_ELEM_E4M3FN, q, 2);
    assert_int_equal(back[0], 0x7fc00000u);
    assert_int_equal(back[1], 0xffc00000u);
    uint16_t b_snan = 0x7f81;
    rl_elem_convert(RL_ELEM_FLOAT, back, RL_ELEM_BFLOAT16, &b_snan, 1);
    assert_int_equal(back[0], 0x7fc10000u);
}

static void test_complex(void **state)
{
    double z[4] = {1.0 + 0x1p-30, -2.5, NAN, 0x1p200}, back[4];
    float c[4];
    rl_elem_convert(RL_ELEM_CFLOAT, c, RL_ELEM_CDOUBLE, z, 2);
    assert_true(c[0] == 1.0f && c[1] == -2.5f && isnan(c[2]) && isinf(c[3]));
    rl_elem_convert(RL_ELEM_CDOUBLE, back, RL_ELEM_CFLOAT, c, 2);
    assert_true(back[0] == 1.0 && back[1] == -2.5 && isnan(back[2]) && isinf(back[3]));
    assert_non_null(rl_elem_not_convertible(RL_ELEM_CFLOAT, RL_ELEM_FLOAT));
    assert_non_null(rl_elem_not_convertible(RL_ELEM_BFLOAT16, RL_ELEM_CDOUBLE));
    assert_non_null(rl_elem_not_convertible(RL_ELEM_FLOAT, RL_ELEM_COUNT));
    assert_non_null(rl_elem_not_convertible(-1, RL_ELEM_FLOAT));
    assert_null(rl_elem_not_convertible(RL_ELEM_CDOUBLE, RL_ELEM_CFLOAT));
    assert_null(rl_elem_not_convertible(RL_ELEM_BOOL, RL_ELEM_E5M2));
}

static void test_table(void **state)
{
    for (int t = 0; t < RL_ELEM_COUNT; t++) {
        const rl_elem_info *e = rl_elem_info_of(t);
        rl_elem back;
        assert_non_null(e);
        assert_true(rl_elem_parse(e->name, &back) && back == (rl_elem)t);
        for (int k = 0; k < RL_ELEM_MAX_SPELLINGS && e->spellings[k]; k++)
            assert_true(rl_elem_parse(e->spellings[k], &back) && back == (rl_elem)t);
    }
    size_t sizes[RL_ELEM_COUNT] = {4, 8, 8, 16, 2, 2, 1, 1, 1, 2, 4, 8, 1, 2, 4, 8, 1};
    for (int t = 0; t < RL_ELEM_COUNT; t++) assert_int_equal(rl_elem_info_of(t)->size, sizes[t]);
    rl_elem any;
    assert_false(rl_elem_parse("float128", &any));
    assert_false(rl_elem_parse("", &any));
    assert_false(rl_elem_parse(NULL, &any));
    assert_null(rl_elem_info_of(RL_ELEM_COUNT));
    assert_null(rl_elem_info_of(-1));
    assert_int_equal(rl_elem_info_of(RL_ELEM_BFLOAT16)->accumulate, RL_ELEM_FLOAT);
    assert_int_equal(rl_elem_info_of(RL_ELEM_E4M3FN)->scalars, RL_SCALARS_MOVE_ONLY);
    assert_int_equal(rl_elem_info_of(RL_ELEM_BOOL)->scalars, RL_SCALARS_MOVE_ONLY);
    assert_int_equal(rl_elem_info_of(RL_ELEM_INT16)->scalars, RL_SCALARS_INTEGER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),          cmocka_unit_test(test_complex),
        cmocka_unit_test(test_nan_payloads),   cmocka_unit_test(test_no_double_rounding),
        cmocka_unit_test(test_every_pair),     cmocka_unit_test(test_narrow_patterns_widen),
        cmocka_unit_test(test_axpby_narrow_floats), cmocka_unit_test(test_axpby_integers),
        cmocka_unit_test(test_float64_midpoints), cmocka_unit_test(test_float32_to_bfloat16),
        cmocka_unit_test(test_float32_to_float16), cmocka_unit_test(test_float32_to_e4m3fn),
        cmocka_unit_test(test_float32_to_e5m2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
