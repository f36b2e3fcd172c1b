/* arguments.c — Python values read into relay's vocabulary (core.h):
 * words, integer lists, scalars and plan options, each refused with an
 * ArgumentError naming the argument. */
/* Python.h first, as CPython requires. */
#include "core.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>

#include "words.h"

int core_word(PyObject *obj, const char *const *words, const char *what)
{
    const char *s = PyUnicode_Check(obj) ? PyUnicode_AsUTF8(obj) : NULL;
    for (int i = 0; s && words[i]; i++)
        if (strcmp(s, words[i]) == 0) return i;
    char allowed[256] = "";
    for (int i = 0; words[i]; i++) {
        strncat(allowed, i ? ", " : "", sizeof allowed - strlen(allowed) - 1);
        strncat(allowed, words[i], sizeof allowed - strlen(allowed) - 1);
    }
    PyErr_Clear();
    core_argument_error("%s must be one of %s, not %R", what, allowed, obj);
    return -1;
}

int64_t *core_int64_list(PyObject *obj, Py_ssize_t *n, const char *what, int allow_none)
{
    *n = 0;
    if (obj == Py_None && allow_none) return NULL;
    PyObject *seq = PySequence_Fast(obj, "");
    if (!seq) {
        PyErr_Clear();
        return (int64_t *)core_argument_error("%s must be a sequence of integers, not %R", what, obj);
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    int64_t *v = PyMem_Malloc((size_t)(len ? len : 1) * sizeof *v);
    for (Py_ssize_t i = 0; v && i < len; i++) {
        PyObject *item = PyNumber_Index(PySequence_Fast_GET_ITEM(seq, i));
        long long x = item ? PyLong_AsLongLong(item) : -1;
        Py_XDECREF(item);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            core_argument_error("%s[%zd] must be an integer of 64 bits", what, i);
            PyMem_Free(v);
            v = NULL;
            break;
        }
        v[i] = x;
    }
    Py_DECREF(seq);
    if (!v && !PyErr_Occurred()) PyErr_NoMemory();
    if (v) *n = len;
    return v;
}

int *core_int_list(PyObject *obj, Py_ssize_t *n, const char *what, int lo, int hi, int allow_none)
{
    int64_t *wide = core_int64_list(obj, n, what, allow_none);
    if (!wide) return NULL;
    int *v = PyMem_Malloc((size_t)(*n ? *n : 1) * sizeof *v);
    for (Py_ssize_t i = 0; v && i < *n; i++) {
        if (wide[i] < lo || wide[i] > hi) {
            core_argument_error("%s[%zd] = %lld is not in [%d, %d]", what, i, (long long)wide[i], lo, hi);
            PyMem_Free(v);
            v = NULL;
            break;
        }
        v[i] = (int)wide[i];
    }
    PyMem_Free(wide);
    if (!v && !PyErr_Occurred()) PyErr_NoMemory();
    return v;
}

int core_scalar(PyObject *obj, relay_type t, void *out, int *given, const char *what)
{
    *given = 0;
    if (obj == Py_None) return 0;
    int is_complex = t == RELAY_CFLOAT || t == RELAY_CDOUBLE;
    if (!is_complex && PyComplex_Check(obj)) {
        core_argument_error("%s = %R is complex but the plan's elements are real", what, obj);
        return -1;
    }
    Py_complex z = PyComplex_AsCComplex(obj);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        core_argument_error("%s must be a number, not %R", what, obj);
        return -1;
    }
    switch (t) {
    case RELAY_FLOAT: *(float *)out = (float)z.real; break;
    case RELAY_DOUBLE: *(double *)out = z.real; break;
    case RELAY_CFLOAT: *(float complex *)out = CMPLXF((float)z.real, (float)z.imag); break;
    case RELAY_CDOUBLE: *(double complex *)out = CMPLX(z.real, z.imag); break;
    }
    *given = 1;
    return 0;
}

int core_plan_options(relay_plan_options *o, PyObject *relabel, PyObject *schedule, PyObject *node_of_rank,
                      double inter_node_weight, long long max_buffer_bytes, PyObject *replicas, int **node_map)
{
    relay_plan_options_init(o);
    *node_map = NULL;
    int r = core_word(relabel, cli_relabel_words, "relabel");
    int s = r < 0 ? -1 : core_word(schedule, cli_schedule_words, "schedule");
    int f = s < 0 ? -1 : core_word(replicas, cli_replicas_words, "replicas");
    if (f < 0) return -1;
    Py_ssize_t n;
    *node_map = core_int_list(node_of_rank, &n, "node_of_rank", 0, INT32_MAX, 1);
    if (!*node_map && PyErr_Occurred()) return -1;
    o->relabel = (relay_relabel)r;
    o->schedule = (relay_schedule)s;
    o->replicas = (relay_replicas)f;
    o->node_of_rank = *node_map;
    o->inter_node_weight = inter_node_weight;
    o->max_buffer_bytes = max_buffer_bytes;
    return 0;
}
