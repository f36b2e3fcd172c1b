/* elements.h — the element types relay moves, and the conversions between
 * them.
 *
 * One table (table.c) says of every type its size, its names, its class,
 * the type its arithmetic computes in and what alpha and beta it takes;
 * convert.c converts n elements of any real type into any other real type
 * (and complex into complex).  The rules, one per kind of target:
 *   - into a floating type: round to nearest, ties to even, once, from
 *     the exact source value (float64 -> bfloat16 never passes through
 *     float32); a value past the largest finite one becomes infinity,
 *     except in float8 e4m3fn, which has none: there it becomes NaN, as
 *     the OCP 8-bit floating point specification's non-saturating
 *     conversion does (a value that overflowed is not silently replaced by
 *     a plausible finite one; scaling into range is the caller's step, as
 *     ML frameworks' amax scaling is);
 *   - NaN stays NaN with its sign, quieted, keeping the top bits of its
 *     payload that fit (as x86's conversions do); e4m3fn's one NaN
 *     pattern widens to the default quiet NaN of its sign;
 *   - into an integer type: truncation toward zero; a value outside the
 *     type's range becomes its nearest value (saturation, the same rule
 *     for a float as for a wider or differently signed integer); NaN
 *     becomes 0;
 *   - into bool: x != 0 (NaN is true); a bool byte other than 0 reads as 1;
 *   - complex into complex: each part as float into float; complex and
 *     real never convert into each other.
 * The first four types are relay_type's values; the others take the next
 * values in this order, which the plan file will carry (docs/plan-format.md). */
#ifndef RELAY_ELEMENTS_H
#define RELAY_ELEMENTS_H

#include <stddef.h>
#include <stdint.h>

#include "relay/status.h"

typedef enum {
    RL_ELEM_FLOAT = RELAY_FLOAT,
    RL_ELEM_DOUBLE = RELAY_DOUBLE,
    RL_ELEM_CFLOAT = RELAY_CFLOAT,
    RL_ELEM_CDOUBLE = RELAY_CDOUBLE,
    RL_ELEM_BFLOAT16,
    RL_ELEM_FLOAT16,
    RL_ELEM_E4M3FN,
    RL_ELEM_E5M2,
    RL_ELEM_INT8,
    RL_ELEM_INT16,
    RL_ELEM_INT32,
    RL_ELEM_INT64,
    RL_ELEM_UINT8,
    RL_ELEM_UINT16,
    RL_ELEM_UINT32,
    RL_ELEM_UINT64,
    RL_ELEM_BOOL,
    RL_ELEM_COUNT
} rl_elem;

typedef enum { RL_CLASS_FLOAT, RL_CLASS_INT, RL_CLASS_UINT, RL_CLASS_BOOL, RL_CLASS_COMPLEX } rl_elem_class;

/* What alpha and beta a type takes. */
typedef enum {
    RL_SCALARS_ANY,       /* any value of the accumulation type */
    RL_SCALARS_INTEGER,   /* integers of the accumulation type, exact */
    RL_SCALARS_MOVE_ONLY  /* alpha = 1 and beta = 0 alone: moved and converted, never computed with */
} rl_elem_scalars;

/* Spellings a type is known by, beyond its name; NULL ends the list. */
enum { RL_ELEM_MAX_SPELLINGS = 4 };

typedef struct {
    const char *name;      /* numpy's dtype name (ml_dtypes' for bfloat16 and the float8 types) */
    const char *spellings[RL_ELEM_MAX_SPELLINGS]; /* the tools' --type words; the first is the short one */
    size_t size;           /* bytes of one element */
    rl_elem_class cls;
    rl_elem accumulate;    /* the type alpha, beta and partial sums compute in; the result is rounded once */
    rl_elem_scalars scalars;
} rl_elem_info;

/* The table's row of t; NULL for a value that names no type. */
const rl_elem_info *rl_elem_info_of(int t);

/* The type a name or spelling means (exact, case-sensitive): 1 and *out
 * set, or 0 for a word that names no type.  (The room records no errors:
 * its callers word them, with the names of the table.) */
int rl_elem_parse(const char *word, rl_elem *out);

/* Why elements of type from do not convert into type to, in words (complex
 * with real, a value that names no type); NULL where they do. */
const char *rl_elem_not_convertible(int from, int to);

/* dst[i] := src[i] converted, for i < n (src and dst do not overlap).
 * Only for a pair rl_elem_not_convertible accepts. */
void rl_elem_convert(rl_elem to, void *dst, rl_elem from, const void *src, int64_t n);

/* dst[i] := alpha * src[i] + beta * dst[i] for i < n, n elements of type
 * t (src and dst do not overlap), computed in t's accumulation type and
 * rounded to t once: float16 and bfloat16 in float32; integers modulo
 * 2^bits (signed ones wrap as unsigned ones do); the others in themselves.
 * alpha and beta point to values of the accumulation type (float for
 * float16 and bfloat16, an integer of t's own type for integers).  Not
 * for the types that move only (float8, bool: rl_elem_info_of(t)->scalars
 * is RL_SCALARS_MOVE_ONLY), which a caller refuses. */
void rl_elem_axpby(rl_elem t, void *dst, const void *src, int64_t n, const void *alpha, const void *beta);

/* Whether the conversions may use the instruction sets the CPU has beyond
 * the compiler's baseline (AVX2 with F16C); 1 by default.  The tests turn
 * it off to check the portable loops on the same machine. */
void rl_elem_use_simd(int on);
int rl_elem_simd_available(void);

#endif
