/* table.c — the one table of element types: sizes, names, classes and
 * arithmetic (elements.h).
 *
 * Arithmetic by class: float16 and bfloat16 compute in float32 and round
 * once; integers are exact in their own type with integer alpha and beta,
 * wrapping modulo 2^bits (signed ones too, computed in the unsigned type of
 * their width, so that every order of partial sums gives the same bits);
 * float8 and bool are moved and converted only. */
#include <string.h>

#include "elements.h"

_Static_assert(RL_ELEM_FLOAT == 0 && RL_ELEM_DOUBLE == 1 && RL_ELEM_CFLOAT == 2 && RL_ELEM_CDOUBLE == 3,
               "the first element types are relay_type's, in its order");

#define ROW(T, NAME, SIZE, CLS, ACC, SCALARS, ...) \
    [T] = {NAME, {__VA_ARGS__, NULL}, SIZE, CLS, ACC, SCALARS}

static const rl_elem_info table[RL_ELEM_COUNT] = {
    ROW(RL_ELEM_FLOAT, "float32", 4, RL_CLASS_FLOAT, RL_ELEM_FLOAT, RL_SCALARS_ANY, "s", "float"),
    ROW(RL_ELEM_DOUBLE, "float64", 8, RL_CLASS_FLOAT, RL_ELEM_DOUBLE, RL_SCALARS_ANY, "d", "double"),
    ROW(RL_ELEM_CFLOAT, "complex64", 8, RL_CLASS_COMPLEX, RL_ELEM_CFLOAT, RL_SCALARS_ANY, "c"),
    ROW(RL_ELEM_CDOUBLE, "complex128", 16, RL_CLASS_COMPLEX, RL_ELEM_CDOUBLE, RL_SCALARS_ANY, "z"),
    ROW(RL_ELEM_BFLOAT16, "bfloat16", 2, RL_CLASS_FLOAT, RL_ELEM_FLOAT, RL_SCALARS_ANY, "bf16"),
    ROW(RL_ELEM_FLOAT16, "float16", 2, RL_CLASS_FLOAT, RL_ELEM_FLOAT, RL_SCALARS_ANY, "f16", "half"),
    ROW(RL_ELEM_E4M3FN, "float8_e4m3fn", 1, RL_CLASS_FLOAT, RL_ELEM_E4M3FN, RL_SCALARS_MOVE_ONLY, "e4m3"),
    ROW(RL_ELEM_E5M2, "float8_e5m2", 1, RL_CLASS_FLOAT, RL_ELEM_E5M2, RL_SCALARS_MOVE_ONLY, "e5m2"),
    ROW(RL_ELEM_INT8, "int8", 1, RL_CLASS_INT, RL_ELEM_INT8, RL_SCALARS_INTEGER, "i8"),
    ROW(RL_ELEM_INT16, "int16", 2, RL_CLASS_INT, RL_ELEM_INT16, RL_SCALARS_INTEGER, "i16"),
    ROW(RL_ELEM_INT32, "int32", 4, RL_CLASS_INT, RL_ELEM_INT32, RL_SCALARS_INTEGER, "i32"),
    ROW(RL_ELEM_INT64, "int64", 8, RL_CLASS_INT, RL_ELEM_INT64, RL_SCALARS_INTEGER, "i64"),
    ROW(RL_ELEM_UINT8, "uint8", 1, RL_CLASS_UINT, RL_ELEM_UINT8, RL_SCALARS_INTEGER, "u8"),
    ROW(RL_ELEM_UINT16, "uint16", 2, RL_CLASS_UINT, RL_ELEM_UINT16, RL_SCALARS_INTEGER, "u16"),
    ROW(RL_ELEM_UINT32, "uint32", 4, RL_CLASS_UINT, RL_ELEM_UINT32, RL_SCALARS_INTEGER, "u32"),
    ROW(RL_ELEM_UINT64, "uint64", 8, RL_CLASS_UINT, RL_ELEM_UINT64, RL_SCALARS_INTEGER, "u64"),
    ROW(RL_ELEM_BOOL, "bool", 1, RL_CLASS_BOOL, RL_ELEM_BOOL, RL_SCALARS_MOVE_ONLY, "b"),
};

#undef ROW

const rl_elem_info *rl_elem_info_of(int t) { return t >= 0 && t < RL_ELEM_COUNT ? &table[t] : NULL; }

static int known_as(const rl_elem_info *e, const char *word)
{
    if (strcmp(e->name, word) == 0) return 1;
    for (int k = 0; k < RL_ELEM_MAX_SPELLINGS && e->spellings[k]; k++)
        if (strcmp(e->spellings[k], word) == 0) return 1;
    return 0;
}

int rl_elem_parse(const char *word, rl_elem *out)
{
    for (int t = 0; word && t < RL_ELEM_COUNT; t++)
        if (known_as(&table[t], word)) {
            *out = (rl_elem)t;
            return 1;
        }
    return 0;
}

const char *rl_elem_not_convertible(int from, int to)
{
    const rl_elem_info *f = rl_elem_info_of(from), *t = rl_elem_info_of(to);
    if (!f || !t) return "a value that names no element type";
    if ((f->cls == RL_CLASS_COMPLEX) != (t->cls == RL_CLASS_COMPLEX))
        return "complex and real types never convert into each other";
    return NULL;
}
