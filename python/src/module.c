/* module.c — the module relay._core: its init, relay's errors as Python
 * exceptions, and reading Python values (words, integer lists, scalars,
 * plan options) into relay's vocabulary. */
/* Python.h first, as CPython requires. */
#include "core.h"

#include <complex.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "words.h"

/* relay.errors, imported at init: the class of each relay_status. */
static PyObject *errors_module;

static PyObject *error_class(const char *name)
{
    PyObject *cls = PyObject_GetAttrString(errors_module, name);
    if (!cls) {
        PyErr_Clear();
        cls = Py_NewRef(PyExc_RuntimeError);
    }
    return cls;
}

/* Raises an instance of cls made of (message, status name). */
static PyObject *raise_instance(PyObject *cls, PyObject *message, relay_status s)
{
    PyObject *exc = PyObject_CallFunction(cls, "Os", message, relay_status_str(s));
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

PyObject *core_raise(relay_status s)
{
    PyObject *cls = PyObject_CallMethod(errors_module, "class_of_status", "s", relay_status_str(s));
    const char *words = relay_last_error();
    PyObject *msg = cls ? PyUnicode_FromString(*words ? words : relay_status_str(s)) : NULL;
    if (msg) raise_instance(cls, msg, s);
    Py_XDECREF(cls);
    Py_XDECREF(msg);
    return NULL;
}

static PyObject *raise_formatted(const char *class_name, const char *fmt, va_list ap)
{
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    if (!msg) return NULL;
    PyObject *cls = error_class(class_name);
    raise_instance(cls, msg, RELAY_ERR_ARG);
    Py_DECREF(cls);
    Py_DECREF(msg);
    return NULL;
}

PyObject *core_argument_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    raise_formatted("ArgumentError", fmt, ap);
    va_end(ap);
    return NULL;
}

PyObject *core_buffer_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    raise_formatted("BufferMismatch", fmt, ap);
    va_end(ap);
    return NULL;
}

int core_errors_init(void)
{
    errors_module = PyImport_ImportModule("relay.errors");
    return errors_module ? 0 : -1;
}

/* ---- reading Python values ------------------------------------------------- */

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

/* ---- the module ------------------------------------------------------------ */

static PyObject *status_words(PyObject *self, PyObject *unused)
{
    PyObject *d = PyDict_New();
    for (int s = RELAY_OK; d && s <= RELAY_ERR_UNSUPPORTED; s++) {
        PyObject *v = PyLong_FromLong(s);
        if (!v || PyDict_SetItemString(d, relay_status_str((relay_status)s), v)) Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

static PyMethodDef module_methods[] = {
    {"status_words", status_words, METH_NOARGS, "{status name: value} of relay_status."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "relay._core",
    "relay's C API for the Python package (low level: use the package relay).", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

/* ---- integers out of C's range ------------------------------------------------ */

/* PyArg_ParseTuple raises a bare OverflowError for an integer that does not
 * fit its C type (relay.decode(b, rank=2**31)).  Every function of the
 * module is called through a guard that raises relay's ArgumentError
 * instead, naming the function and the values out of range. */

/* Appends to *list the integers of obj (one, or the items of a sequence)
 * outside [-2^31, 2^31). */
static void collect_wide(PyObject *obj, PyObject *list, int depth)
{
    if (PyLong_Check(obj)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (overflow || v < INT32_MIN || v > INT32_MAX) PyList_Append(list, obj);
    } else if (depth < 2 && (PyTuple_Check(obj) || PyList_Check(obj))) {
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(obj); i++)
            collect_wide(PySequence_Fast_GET_ITEM(obj, i), list, depth + 1);
    }
    PyErr_Clear();
}

static PyObject *overflow_as_argument_error(const PyMethodDef *d, PyObject *args)
{
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return NULL;
    PyObject *type, *value, *traceback, *wide = PyList_New(0);
    PyErr_Fetch(&type, &value, &traceback);
    if (wide) collect_wide(args, wide, 0);
    PyObject *sep = PyUnicode_FromString(", "), *words = NULL;
    for (Py_ssize_t i = 0; wide && i < PyList_GET_SIZE(wide); i++) /* the values as words, to join */
        PyList_SetItem(wide, i, PyObject_Str(PyList_GET_ITEM(wide, i)));
    words = wide && sep && PyList_GET_SIZE(wide) ? PyUnicode_Join(sep, wide) : PyUnicode_FromString("an integer");
    PyErr_Clear();
    core_argument_error("relay._core.%s: %S out of range (ranks, counts and indices must lie in [-2**31, 2**31), "
                        "sizes in [-2**63, 2**63)): %S", d->ml_name, words ? words : Py_None, value ? value : Py_None);
    Py_XDECREF(sep);
    Py_XDECREF(words);
    Py_XDECREF(wide);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
    return NULL;
}

static PyObject *guarded(PyObject *self, PyObject *args)
{
    const PyMethodDef *d = PyCapsule_GetPointer(self, NULL);
    PyObject *result = d->ml_meth(NULL, args);
    return result ? result : overflow_as_argument_error(d, args);
}

/* Adds defs' functions to m, each called through `guarded` (but those
 * without arguments): a copy of its PyMethodDef, which must live as long
 * as the module (for ever), points at the guard, whose self is the original. */
static int add_methods(PyObject *m, PyMethodDef *defs)
{
    for (PyMethodDef *d = defs; d->ml_name; d++) {
        PyMethodDef *g = d->ml_flags == METH_NOARGS ? d : PyMem_Malloc(sizeof *g);
        PyObject *self = g == d ? NULL : PyCapsule_New(d, NULL, NULL);
        if (!g || (g != d && !self)) return Py_XDECREF(self), -1;
        if (g != d) *g = (PyMethodDef){d->ml_name, guarded, d->ml_flags, d->ml_doc};
        PyObject *f = PyCFunction_NewEx(g, self, PyModule_GetNameObject(m));
        Py_XDECREF(self);
        if (!f || PyModule_AddObject(m, d->ml_name, f)) {
            Py_XDECREF(f);
            return -1;
        }
    }
    return 0;
}

PyMODINIT_FUNC PyInit__core(void)
{
    if (core_errors_init()) return NULL;
    PyTypeObject *types[] = {&core_layout_type, &core_nd_layout_type, &core_plan_type, &core_exec_type};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (PyType_Ready(types[i])) return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m) return NULL;
    PyMethodDef *tables[] = {core_layout_methods, core_plan_methods, core_exec_methods, core_info_methods,
                             core_algorithms_methods, core_local_shape_methods};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
        if (add_methods(m, tables[i])) goto fail;
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (PyModule_AddObjectRef(m, types[i]->tp_name + strlen("relay._core."), (PyObject *)types[i])) goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
