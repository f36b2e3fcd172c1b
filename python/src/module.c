/* module.c — the module relay._core: its init, which gathers every
 * file's functions and types (core.h), and the guard that turns integers
 * out of C's range into ArgumentError. */
/* Python.h first, as CPython requires. */
#include "core.h"

#include <stdint.h>
#include <string.h>

/* ---- the module ------------------------------------------------------------ */

static PyObject *status_words(PyObject *self, PyObject *unused)
{
    PyObject *d = PyDict_New();
    for (int s = RELAY_OK; d && s <= RELAY_ERR_PEER; s++) {
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
