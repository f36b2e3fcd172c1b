/* core.h — what the C files of relay._core share: the handle types that
 * hold relay's objects for Python, raising relay's errors as the
 * exceptions of relay.errors, and reading Python values into relay's
 * vocabulary.
 *
 * relay._core is the thin, low-level half of the Python package: every
 * function takes positional arguments already named by the Python half
 * (the modules of python/relay/), checks them, calls the C API and turns the result
 * back into Python values.  It never aborts: every failure is an exception
 * carrying relay_last_error()'s words. */
#ifndef RELAY_PY_CORE_H
#define RELAY_PY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "error.h"
#include "relay/relay.h"

/* ---- handles: one Python object per relay object, freed with it ---------- */

/* A layout the handle owns (owner NULL), or one a plan holds (owner: the
 * plan's handle, kept alive while the layout is in use). */
typedef struct {
    PyObject_HEAD
    relay_layout *layout;
    PyObject *owner;
} core_layout;

typedef struct {
    PyObject_HEAD
    relay_nd_layout *layout;
    PyObject *owner;
} core_nd_layout;

typedef struct {
    PyObject_HEAD
    relay_plan *plan;
} core_plan;

extern PyTypeObject core_layout_type, core_nd_layout_type, core_plan_type, core_exec_type;

/* A new handle owning its object (freed on failure to make the handle). */
PyObject *core_layout_wrap(relay_layout *l, PyObject *owner);
PyObject *core_nd_layout_wrap(relay_nd_layout *l, PyObject *owner);
PyObject *core_plan_wrap(relay_plan *p);
/* The plan a planning call made, or its error raised: core_plan_wrap(p)
 * when st is RELAY_OK. */
PyObject *core_plan_result(relay_status st, relay_plan *p);

/* The object a handle holds, or NULL with TypeError when obj is not one. */
relay_layout *core_layout_of(PyObject *obj);
relay_nd_layout *core_nd_layout_of(PyObject *obj);
relay_plan *core_plan_of(PyObject *obj);

/* ---- errors (errors.c) ------------------------------------------------------ */

/* Raises the relay.errors class of status s with relay_last_error()'s words;
 * returns NULL for `return core_raise(st);`. */
PyObject *core_raise(relay_status s);
/* Raises relay.errors.ArgumentError (a ValueError) with a formatted message. */
PyObject *core_argument_error(const char *fmt, ...);
/* Raises relay.errors.BufferMismatch (an ArgumentError and a TypeError). */
PyObject *core_buffer_error(const char *fmt, ...);
/* Imports relay.errors once, at module init; -1 on failure. */
int core_errors_init(void);

/* ---- reading Python values (arguments.c) ------------------------------------ */

/* A word of one of words.h's tables (cli_type_words, ...): its index, or -1
 * with ArgumentError naming `what` and the words allowed. */
int core_word(PyObject *obj, const char *const *words, const char *what);
/* A sequence of integers into a new array of *n int64_t (PyMem_Free it);
 * NULL with an exception.  obj None gives NULL, *n = 0 and no exception
 * when allow_none. */
int64_t *core_int64_list(PyObject *obj, Py_ssize_t *n, const char *what, int allow_none);
/* The same for int, each in [lo, hi]. */
int *core_int_list(PyObject *obj, Py_ssize_t *n, const char *what, int lo, int hi, int allow_none);
/* A Python number as one element of type t into out (16 bytes); obj None
 * leaves *given 0.  -1 with an exception when it is not a number of the kind. */
int core_scalar(PyObject *obj, relay_type t, void *out, int *given, const char *what);
/* The plan options from their Python values. */
int core_plan_options(relay_plan_options *o, PyObject *relabel, PyObject *schedule, PyObject *node_of_rank,
                      double inter_node_weight, long long max_buffer_bytes, PyObject *replicas, int **node_map);

/* ---- the module's functions, by file ----------------------------------------- */

extern PyMethodDef core_layout_methods[], core_plan_methods[], core_exec_methods[], core_info_methods[],
    core_algorithms_methods[], core_local_shape_methods[];

#endif
