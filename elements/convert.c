/* convert.c — n elements of one type into another (elements.h's rules).
 *
 * Every pair of real types has a loop of its own, made by one macro: read
 * each element as an exact value, write it with one rounding (exact.h);
 * with the formats constant, each loop compiles to its pair's bit
 * manipulation.  Complex types convert as their two real parts.  The pairs
 * that move the most data have faster loops beside: a copy for one type,
 * C's own casts between float32 and float64, the bfloat16 rounding on the
 * bits in portable C (and at float16's and the float8 types' last places),
 * AVX2 with F16C (convert_avx2.c) for bfloat16 and float16 where the CPU
 * has them, and float64 into the narrower floats through float32 rounded
 * to odd. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "convert_simd.h"
#include "elements.h"
#include "exact.h"

/* ---- every element as an exact value, and back --------------------------- */

#define FLOAT_ELEM(NAME, BITS, FMT)                                                                      \
    static inline exact load_##NAME(const void *p, int64_t i) { return exact_of_float(FMT, ((const BITS *)p)[i]); } \
    static inline void store_##NAME(void *p, int64_t i, exact x) { ((BITS *)p)[i] = (BITS)float_of_exact(FMT, x); }
#define INT_ELEM(NAME, T, LO, HI)                                                                        \
    static inline exact load_##NAME(const void *p, int64_t i) { return exact_of_int(((const T *)p)[i]); }  \
    static inline void store_##NAME(void *p, int64_t i, exact x) { ((T *)p)[i] = (T)int_of_exact(x, LO, HI); }
#define UINT_ELEM(NAME, T, HI)                                                                           \
    static inline exact load_##NAME(const void *p, int64_t i) { return exact_of_uint(((const T *)p)[i]); } \
    static inline void store_##NAME(void *p, int64_t i, exact x) { ((T *)p)[i] = (T)uint_of_exact(x, HI); }

FLOAT_ELEM(float, uint32_t, FMT_FLOAT)
FLOAT_ELEM(double, uint64_t, FMT_DOUBLE)
FLOAT_ELEM(bfloat16, uint16_t, FMT_BFLOAT16)
FLOAT_ELEM(float16, uint16_t, FMT_FLOAT16)
FLOAT_ELEM(e4m3fn, uint8_t, FMT_E4M3FN)
FLOAT_ELEM(e5m2, uint8_t, FMT_E5M2)
INT_ELEM(int8, int8_t, INT8_MIN, INT8_MAX)
INT_ELEM(int16, int16_t, INT16_MIN, INT16_MAX)
INT_ELEM(int32, int32_t, INT32_MIN, INT32_MAX)
INT_ELEM(int64, int64_t, INT64_MIN, INT64_MAX)
UINT_ELEM(uint8, uint8_t, UINT8_MAX)
UINT_ELEM(uint16, uint16_t, UINT16_MAX)
UINT_ELEM(uint32, uint32_t, UINT32_MAX)
UINT_ELEM(uint64, uint64_t, UINT64_MAX)

static inline exact load_bool(const void *p, int64_t i) { return exact_of_uint(((const uint8_t *)p)[i] != 0); }
static inline void store_bool(void *p, int64_t i, exact x) { ((uint8_t *)p)[i] = bool_of_exact(x); }

/* ---- one loop per pair ------------------------------------------------------ */

/* X(type, name, ...) for every real type. */
#define REAL_ELEMS(X, ...)                                                                                 \
    X(RL_ELEM_FLOAT, float, __VA_ARGS__) X(RL_ELEM_DOUBLE, double, __VA_ARGS__)                            \
    X(RL_ELEM_BFLOAT16, bfloat16, __VA_ARGS__) X(RL_ELEM_FLOAT16, float16, __VA_ARGS__)                     \
    X(RL_ELEM_E4M3FN, e4m3fn, __VA_ARGS__) X(RL_ELEM_E5M2, e5m2, __VA_ARGS__)                                \
    X(RL_ELEM_INT8, int8, __VA_ARGS__) X(RL_ELEM_INT16, int16, __VA_ARGS__)                                 \
    X(RL_ELEM_INT32, int32, __VA_ARGS__) X(RL_ELEM_INT64, int64, __VA_ARGS__)                               \
    X(RL_ELEM_UINT8, uint8, __VA_ARGS__) X(RL_ELEM_UINT16, uint16, __VA_ARGS__)                             \
    X(RL_ELEM_UINT32, uint32, __VA_ARGS__) X(RL_ELEM_UINT64, uint64, __VA_ARGS__)                           \
    X(RL_ELEM_BOOL, bool, __VA_ARGS__)

/* The list over the list, for the pairs: a macro cannot expand inside its
 * own expansion, so the inner REAL_ELEMS is deferred (written as
 * REAL_ELEMS_LATER EMPTY() ()) and expanded by the outer EXPAND's rescan,
 * once the outer REAL_ELEMS is done. */
#define EMPTY()
#define EXPAND(...) __VA_ARGS__
#define REAL_ELEMS_LATER() REAL_ELEMS
#define EVERY_PAIR(X) EXPAND(REAL_ELEMS(FOR_EACH_TARGET, X))
#define FOR_EACH_TARGET(FROM_ID, FROM, X) REAL_ELEMS_LATER EMPTY() ()(X, FROM_ID, FROM)

#define DEFINE_PAIR(TO_ID, TO, FROM_ID, FROM)                                                             \
    static void FROM##_to_##TO(void *restrict d, const void *restrict s, int64_t n)                      \
    {                                                                                                    \
        for (int64_t i = 0; i < n; i++) store_##TO(d, i, load_##FROM(s, i));                             \
    }
EVERY_PAIR(DEFINE_PAIR)

#define CELL(TO_ID, TO, FROM_ID, FROM) [FROM_ID][TO_ID] = FROM##_to_##TO,
static const rl_convert_fn exact_loops[RL_ELEM_COUNT][RL_ELEM_COUNT] = {EVERY_PAIR(CELL)};

#undef CELL
#undef DEFINE_PAIR

/* ---- faster loops for the pairs that move the most ------------------------- */

static void float_to_double_cast(void *restrict d, const void *restrict s, int64_t n)
{
    for (int64_t i = 0; i < n; i++) ((double *)d)[i] = ((const float *)s)[i];
}

/* C's cast rounds to nearest even (the default rounding mode, which relay
 * never changes) and quiets NaN keeping its payload's top, as the rules ask. */
static void double_to_float_cast(void *restrict d, const void *restrict s, int64_t n)
{
    for (int64_t i = 0; i < n; i++) ((float *)d)[i] = (float)((const double *)s)[i];
}

/* Rounding on the bits: adding 0x7fff, plus the kept part's last bit,
 * carries into the kept part exactly when the dropped part is above half,
 * or half with the kept part odd; infinity stays and the largest finite
 * values carry into it.  NaN is quieted instead. */
static void float_to_bfloat16_bits(void *restrict d, const void *restrict s, int64_t n)
{
    const uint32_t *in = s;
    uint16_t *out = d;
    for (int64_t i = 0; i < n; i++) {
        uint32_t u = in[i], rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16, quiet = (u >> 16) | 0x40u;
        out[i] = (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? quiet : rounded);
    }
}

static void bfloat16_to_float_bits(void *restrict d, const void *restrict s, int64_t n)
{
    const uint16_t *in = s;
    uint32_t *out = d;
    for (int64_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)in[i] << 16;
        out[i] = (u & 0x7fffffffu) > 0x7f800000u ? u | 0x00400000u : u;
    }
}

/* float32 into a narrower format f (float16 or a float8), nearest even:
 * where the result is normal, the bfloat16 rounding on the bits at f's
 * last place and the exponent rebiased; below f's least normal, float32's
 * own addition rounds, to multiples of f's least subnormal, by adding the
 * power of two whose last place that is and reading the sum's low bits;
 * past f's largest, infinity or (e4m3fn) NaN. */
static inline uint32_t narrower_float(float_format f, uint32_t u)
{
    uint32_t a = u & 0x7fffffffu, sign = (u >> 31) << (f.exp_bits + f.man_bits), top = (1u << f.exp_bits) - 1;
    uint32_t largest = f.ieee ? (top << f.man_bits) - 1 : (top << f.man_bits) | ((1u << f.man_bits) - 2);
    uint32_t past = f.ieee ? sign | (top << f.man_bits) : (uint32_t)float_nan(f, (int)(u >> 31), 0);
    int shift = 23 - f.man_bits, emin = 1 - f.bias;
    if (a > 0x7f800000u) return (uint32_t)float_nan(f, (int)(u >> 31), (uint64_t)(a & 0x7fffffu) << 41);
    uint32_t r;
    if (a >= (uint32_t)(emin + 127) << 23) {
        r = (a + (1u << (shift - 1)) - 1 + ((a >> shift) & 1u)) >> shift;
        r -= (uint32_t)(127 - f.bias) << f.man_bits;
    } else {
        uint32_t magic_bits = (uint32_t)(emin - f.man_bits + 23 + 127) << 23;
        float x, magic;
        memcpy(&x, &a, sizeof x);
        memcpy(&magic, &magic_bits, sizeof magic);
        x += magic;
        memcpy(&r, &x, sizeof r);
        r -= magic_bits;
    }
    return r > largest ? past : sign | r;
}

#define NARROWER_FLOAT_LOOP(NAME, FMT, OUT)                                                       \
    static void float_to_##NAME##_bits(void *restrict d, const void *restrict s, int64_t n)       \
    {                                                                                             \
        for (int64_t i = 0; i < n; i++) ((OUT *)d)[i] = (OUT)narrower_float(FMT, ((const uint32_t *)s)[i]); \
    }
NARROWER_FLOAT_LOOP(float16, FMT_FLOAT16, uint16_t)
NARROWER_FLOAT_LOOP(e4m3fn, FMT_E4M3FN, uint8_t)
NARROWER_FLOAT_LOOP(e5m2, FMT_E5M2, uint8_t)
#undef NARROWER_FLOAT_LOOP

/* float64 into float32 rounded to odd: where the cast was inexact and gave
 * an even pattern, the odd neighbour toward the exact value (infinity
 * becomes the largest finite, zero the least subnormal).  Rounding that to
 * nearest even again, to a format of at most 22 significant bits, is
 * rounding the float64 once (Boldo and Melquiond, "Emulation of FMA and
 * correctly rounded sums: proved algorithms using rounding to odd"). */
static void double_to_float_odd(float *restrict d, const double *restrict s, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        float f = (float)s[i];
        uint32_t b;
        memcpy(&b, &f, sizeof b);
        if ((double)f != s[i] && !(b & 1u) && s[i] == s[i]) b += fabs((double)f) > fabs(s[i]) ? UINT32_MAX : 1u;
        memcpy(&d[i], &b, sizeof b);
    }
}

/* float64 into a narrower float through float32 rounded to odd, a block at
 * a time, then that float32 loop. */
static void double_through_odd_float(rl_convert_fn float_to, size_t out_bytes, void *restrict d,
                                     const void *restrict s, int64_t n)
{
    enum { BLOCK = 1024 };
    float odd[BLOCK];
    for (int64_t i = 0; i < n; i += BLOCK) {
        int64_t m = n - i < BLOCK ? n - i : BLOCK;
        double_to_float_odd(odd, (const double *)s + i, m);
        float_to((char *)d + (size_t)i * out_bytes, odd, m);
    }
}

static rl_convert_fn float_loop(rl_elem to);

#define THROUGH_ODD_FLOAT(NAME, TO, BYTES)                                                        \
    static void double_to_##NAME##_odd(void *restrict d, const void *restrict s, int64_t n)       \
    {                                                                                             \
        double_through_odd_float(float_loop(TO), BYTES, d, s, n);                                 \
    }
THROUGH_ODD_FLOAT(bfloat16, RL_ELEM_BFLOAT16, 2)
THROUGH_ODD_FLOAT(float16, RL_ELEM_FLOAT16, 2)
THROUGH_ODD_FLOAT(e4m3fn, RL_ELEM_E4M3FN, 1)
THROUGH_ODD_FLOAT(e5m2, RL_ELEM_E5M2, 1)
#undef THROUGH_ODD_FLOAT

/* ---- the instruction set in use -------------------------------------------- */

#if defined(__x86_64__) || defined(__i386__)
static int cpu_has_avx2_f16c(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
}
#else
static int cpu_has_avx2_f16c(void) { return 0; }
#endif

int rl_elem_simd_available(void) { return cpu_has_avx2_f16c(); }

/* -1 until the first conversion (or rl_elem_use_simd) sets it; threads that
 * race to set it set the same value. */
static atomic_int simd_in_use = -1;

void rl_elem_use_simd(int on) { atomic_store_explicit(&simd_in_use, on && cpu_has_avx2_f16c(), memory_order_relaxed); }

static const rl_convert_simd_set *simd_set(void)
{
    int on = atomic_load_explicit(&simd_in_use, memory_order_relaxed);
    if (on < 0) {
        on = cpu_has_avx2_f16c();
        atomic_store_explicit(&simd_in_use, on, memory_order_relaxed);
    }
#if defined(__x86_64__) || defined(__i386__)
    return on ? &rl_convert_avx2 : NULL;
#else
    return NULL;
#endif
}

/* The fastest loop from float32 (to a real type other than float32). */
static rl_convert_fn float_loop(rl_elem to)
{
    const rl_convert_simd_set *set = simd_set();
    switch (to) {
    case RL_ELEM_DOUBLE: return float_to_double_cast;
    case RL_ELEM_BFLOAT16: return set ? set->float_to_bfloat16 : float_to_bfloat16_bits;
    case RL_ELEM_FLOAT16: return set ? set->float_to_float16 : float_to_float16_bits;
    case RL_ELEM_E4M3FN: return float_to_e4m3fn_bits;
    case RL_ELEM_E5M2: return float_to_e5m2_bits;
    default: return exact_loops[RL_ELEM_FLOAT][to];
    }
}

/* The fastest loop from float64 (to a real type other than float64). */
static rl_convert_fn double_loop(rl_elem to)
{
    switch (to) {
    case RL_ELEM_FLOAT: return double_to_float_cast;
    case RL_ELEM_BFLOAT16: return double_to_bfloat16_odd;
    case RL_ELEM_FLOAT16: return double_to_float16_odd;
    case RL_ELEM_E4M3FN: return double_to_e4m3fn_odd;
    case RL_ELEM_E5M2: return double_to_e5m2_odd;
    default: return exact_loops[RL_ELEM_DOUBLE][to];
    }
}

/* The fastest loop of a pair of distinct real types. */
static rl_convert_fn loop_for(rl_elem to, rl_elem from)
{
    const rl_convert_simd_set *set = simd_set();
    if (from == RL_ELEM_FLOAT) return float_loop(to);
    if (from == RL_ELEM_DOUBLE) return double_loop(to);
    if (from == RL_ELEM_BFLOAT16 && to == RL_ELEM_FLOAT) return set ? set->bfloat16_to_float : bfloat16_to_float_bits;
    if (from == RL_ELEM_FLOAT16 && to == RL_ELEM_FLOAT && set) return set->float16_to_float;
    return exact_loops[from][to];
}

/* The real type of a complex type's parts (a real type's own). */
static rl_elem part_of(rl_elem t)
{
    return t == RL_ELEM_CFLOAT ? RL_ELEM_FLOAT : t == RL_ELEM_CDOUBLE ? RL_ELEM_DOUBLE : t;
}

void rl_elem_convert(rl_elem to, void *dst, rl_elem from, const void *src, int64_t n)
{
    if (n <= 0) return;
    if (to == from) { /* bytes as they are: a NaN's payload, a bool's byte */
        memcpy(dst, src, (size_t)n * rl_elem_info_of(to)->size);
        return;
    }
    int64_t parts = to == part_of(to) ? n : 2 * n;
    loop_for(part_of(to), part_of(from))(dst, src, parts);
}
