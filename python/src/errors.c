/* errors.c — relay's errors as the exceptions of relay.errors (core.h):
 * each relay_status's class with relay_last_error()'s words, and
 * ArgumentError or BufferMismatch with a message of the binding's own. */
/* Python.h first, as CPython requires. */
#include "core.h"

#include <stdarg.h>

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
