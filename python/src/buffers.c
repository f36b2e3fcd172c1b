/* buffers.c — checking and holding the buffers of one replay (buffers.h). */
/* Python.h first, as CPython requires. */
#include "buffers.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

static const struct {
    const char *format, *dtype;
} element_formats[] = {
    [RELAY_FLOAT] = {"f", "float32"},
    [RELAY_DOUBLE] = {"d", "float64"},
    [RELAY_CFLOAT] = {"Zf", "complex64"},
    [RELAY_CDOUBLE] = {"Zd", "complex128"},
};

int buffer_slots_init(buffer_slots *s, const relay_plan *p, int rank)
{
    memset(s, 0, sizeof *s);
    relay_plan_kind kind = relay_plan_get_kind(p);
    int count = relay_plan_count(p);
    s->ndst = kind == RELAY_PLAN_BMMC || kind == RELAY_PLAN_HSUMMA ? 1 : count;
    s->nsrc = kind == RELAY_PLAN_BMMC ? 1 : kind == RELAY_PLAN_HSUMMA ? 2 : count;
    s->elems = PyMem_Calloc((size_t)(s->ndst + s->nsrc), sizeof *s->elems);
    s->shapes = PyMem_Calloc((size_t)(s->ndst + s->nsrc), sizeof *s->shapes);
    if (!s->elems || !s->shapes) return buffer_slots_free(s), PyErr_NoMemory(), -1;
    if (kind == RELAY_PLAN_BMMC) {
        /* A BMMC plan moves 2^(n-p) elements of elem_size bytes each way. */
        s->itemsize = (size_t)p->bmmc->elem_size;
        s->type = RELAY_DOUBLE;   /* alpha and beta are not used */
        s->dtype = "elements";
        s->elems[0] = s->elems[1] = (int64_t)1 << (p->bmmc->n - p->bmmc->p);
        return 0;
    }
    relay_type t = relay_plan_type(p);
    s->type = t;
    s->itemsize = relay_type_size(t);
    s->format = element_formats[t].format;
    s->dtype = element_formats[t].dtype;
    for (int k = 0; k < s->ndst + s->nsrc; k++) {
        int is_dst = k < s->ndst, index = is_dst ? k : k - s->ndst;
        s->elems[k] = relay_plan_buffer_elems(p, is_dst, index, rank);
        if (s->elems[k] < 0) core_raise(RELAY_ERR_ARG);
        if (s->elems[k] < 0 || local_shape_of_slot(&s->shapes[k], p, is_dst, index, rank))
            return buffer_slots_free(s), -1;
    }
    return 0;
}

void buffer_slots_free(buffer_slots *s)
{
    PyMem_Free(s->elems);
    PyMem_Free(s->shapes);
    s->elems = NULL;
    s->shapes = NULL;
}

/* The element format of a view without its native byte-order prefix. */
static const char *bare_format(const Py_buffer *view)
{
    const char *f = view->format ? view->format : "B";
    return (*f == '@' || *f == '=' || *f == '<') ? f + 1 : f;
}

static const char *format_name(const char *f)
{
    for (size_t t = 0; t < sizeof element_formats / sizeof *element_formats; t++)
        if (strcmp(f, element_formats[t].format) == 0) return element_formats[t].dtype;
    return f;
}

/* "dst[1]" or "src" (a side of one slot). */
static void slot_name(char *out, size_t size, const buffer_slots *s, int k)
{
    int is_dst = k < s->ndst, n = is_dst ? s->ndst : s->nsrc, i = is_dst ? k : k - s->ndst;
    if (n == 1) snprintf(out, size, "%s", is_dst ? "dst" : "src");
    else snprintf(out, size, "%s[%d]", is_dst ? "dst" : "src", i);
}

/* ---- device arrays: __cuda_array_interface__ -------------------------------- */

static const char cuda_interface[] = "__cuda_array_interface__";

/* Whether obj presents itself as a device array: it has the attribute, or
 * reading it fails otherwise than by AttributeError (a PyTorch tensor that
 * requires grad, say: device_view_get then reports why).  No exception. */
static int is_device_array(PyObject *obj)
{
    PyObject *cai = PyObject_GetAttrString(obj, cuda_interface);
    int yes = cai != NULL || !PyErr_ExceptionMatches(PyExc_AttributeError);
    Py_XDECREF(cai);
    PyErr_Clear();
    return yes;
}

/* The element type of an array-interface typestr ("<f8", "|u1", ...):
 * the buffer protocol's format of relay's types ("d", "Zf", ...) or NULL,
 * its size in bytes (0 when unreadable), and a numpy-style name. */
static const char *typestr_format(const char *t, size_t *itemsize, char *name, size_t name_size)
{
    *itemsize = 0;
    snprintf(name, name_size, "%s", t);
    if (strlen(t) < 3 || !strchr("<>|=", t[0])) return NULL;
    char *end;
    long bytes = strtol(t + 2, &end, 10);
    if (*end || bytes <= 0 || bytes > 64) return NULL;
    *itemsize = (size_t)bytes;
    const char *kind = t[1] == 'f' ? "float" : t[1] == 'c' ? "complex" : t[1] == 'i' ? "int" : t[1] == 'u' ? "uint"
                     : t[1] == 'b' ? "bool" : NULL;
    if (kind && t[1] == 'b') snprintf(name, name_size, "bool");
    else if (kind) snprintf(name, name_size, "%s%ld%s", kind, bytes * 8, t[0] == '>' ? " (big-endian)" : "");
    if (t[0] == '>') return NULL;   /* relay's types are in the machine's (little-endian) order */
    if (t[1] == 'f' && bytes == 4) return "f";
    if (t[1] == 'f' && bytes == 8) return "d";
    if (t[1] == 'c' && bytes == 8) return "Zf";
    if (t[1] == 'c' && bytes == 16) return "Zd";
    return NULL;
}

/* A tuple of non-negative integers of the interface (shape or strides)
 * into out[ndim]; -1 when it is not one. */
static int int_tuple(PyObject *t, Py_ssize_t *out, Py_ssize_t ndim, int allow_negative)
{
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != ndim) return -1;
    for (Py_ssize_t i = 0; i < ndim; i++) {
        out[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, i));
        if (out[i] == -1 && PyErr_Occurred()) return PyErr_Clear(), -1;
        if (out[i] < 0 && !allow_negative) return -1;
    }
    return 0;
}

enum { DEVICE_MAX_DIMS = 64 };

/* Gets and checks slot k's device array obj (its __cuda_array_interface__)
 * into view: obj referenced, buf its device pointer, len its bytes.  -1
 * with BufferMismatch naming what was wrong. */
static int device_view_get(Py_buffer *view, const buffer_slots *s, int k, PyObject *obj, const char *name)
{
    int writable = k < s->ndst;
    long long want = (long long)s->elems[k];
    memset(view, 0, sizeof *view);
    PyObject *cai = PyObject_GetAttrString(obj, cuda_interface);
    if (!cai) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyObject *type, *value, *traceback;
            PyErr_Fetch(&type, &value, &traceback);
            core_buffer_error("%s's %s could not be read (%s): %S", name, cuda_interface, Py_TYPE(obj)->tp_name,
                              value ? value : Py_None);
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(traceback);
            return -1;
        }
        PyErr_Clear();
        if (PyObject_CheckBuffer(obj))
            return core_buffer_error("%s is host memory (%s, without %s) but this executor binds CUDA memory: "
                                     "expected a device array (CuPy, a PyTorch CUDA tensor, Numba) of at least %lld %s",
                                     name, Py_TYPE(obj)->tp_name, cuda_interface, want, s->dtype), -1;
        return core_buffer_error("%s must be a device array with %s (CuPy, a PyTorch CUDA tensor, Numba) of at least "
                                 "%lld %s, not %s", name, cuda_interface, want, s->dtype, Py_TYPE(obj)->tp_name), -1;
    }
    const char *malformed = NULL;
    PyObject *shape = NULL, *typestr = NULL, *data = NULL, *strides = NULL, *mask = NULL;
    if (!PyDict_Check(cai)) malformed = "not a dict";
    else {
        shape = PyDict_GetItemString(cai, "shape");
        typestr = PyDict_GetItemString(cai, "typestr");
        data = PyDict_GetItemString(cai, "data");
        strides = PyDict_GetItemString(cai, "strides");
        mask = PyDict_GetItemString(cai, "mask");
        if (!shape || !PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) > DEVICE_MAX_DIMS)
            malformed = "its shape is not a tuple of integers";
        else if (!typestr || !PyUnicode_Check(typestr)) malformed = "its typestr is not a string";
        else if (!data || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2)
            malformed = "its data is not a tuple (pointer, read-only)";
        else if (mask && mask != Py_None) malformed = "it has a mask (masked arrays are not replayed)";
    }
    int ndim = shape && !malformed ? (int)PyTuple_GET_SIZE(shape) : 0;
    Py_ssize_t dims[DEVICE_MAX_DIMS], steps[DEVICE_MAX_DIMS];
    if (!malformed && int_tuple(shape, dims, ndim, 0)) malformed = "its shape is not a tuple of non-negative integers";
    if (!malformed && strides && strides != Py_None && int_tuple(strides, steps, ndim, 1))
        malformed = "its strides are not a tuple of integers, one per dimension";
    void *ptr = NULL;
    int readonly = 0;
    if (!malformed) {
        ptr = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
        readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
        if (PyErr_Occurred() || readonly < 0) {
            PyErr_Clear();
            malformed = "its data is not a tuple (pointer, read-only)";
        }
    }
    const char *t = !malformed ? PyUnicode_AsUTF8(typestr) : NULL;
    if (!malformed && !t) {
        PyErr_Clear();
        malformed = "its typestr is not a string";
    }
    if (malformed) {
        core_buffer_error("%s's %s is malformed (%s): %s", name, cuda_interface, Py_TYPE(obj)->tp_name, malformed);
        Py_DECREF(cai);
        return -1;
    }
    char type_name[48];
    size_t itemsize;
    const char *f = typestr_format(t, &itemsize, type_name, sizeof type_name);
    long long have = 1;
    for (int i = 0; i < ndim; i++) have = dims[i] && have > LLONG_MAX / dims[i] ? LLONG_MAX : have * dims[i];
    if (!strides || strides == Py_None) {   /* C-contiguous */
        Py_ssize_t step = (Py_ssize_t)(itemsize ? itemsize : 1);
        for (int i = ndim - 1; i >= 0; i--) {
            steps[i] = step;
            step *= dims[i] ? dims[i] : 1;
        }
    }
    const char *problem = NULL;
    char why[768];
    if (writable && readonly) problem = "read-only";
    else if (!itemsize || (s->format ? !f || strcmp(f, s->format) != 0 : itemsize != s->itemsize))
        problem = "of another type";
    else if (!ptr && have > 0) problem = "at address 0";
    Py_DECREF(cai);
    if (problem)
        return core_buffer_error("%s is %s: expected a %sdevice array of %lld %s%s (%zu bytes each); got %lld %s (%s%s)",
                                 name, problem, writable ? "writable " : "", want, s->dtype,
                                 s->format ? "" : " of the plan's size", s->itemsize, have, type_name,
                                 Py_TYPE(obj)->tp_name, readonly ? ", read-only" : ""), -1;
    if (local_shape_check(&s->shapes[k], ndim, dims, steps, itemsize, want, why, sizeof why))
        return core_buffer_error("%s is %s (%s)", name, why, Py_TYPE(obj)->tp_name), -1;
    view->obj = Py_NewRef(obj);
    view->buf = ptr;
    view->itemsize = (Py_ssize_t)itemsize;
    view->len = local_shape_span(ndim, dims, steps, itemsize);
    view->readonly = readonly;
    return 0;
}

/* Gets and checks slot k's view of obj; -1 with BufferMismatch. */
static int view_get(Py_buffer *view, const buffer_slots *s, int k, PyObject *obj)
{
    char name[32];
    slot_name(name, sizeof name, s, k);
    int writable = k < s->ndst;
    long long want = (long long)s->elems[k];
    if (obj == Py_None) {
        view->obj = NULL;
        if (want == 0) return 0;
        return core_buffer_error("%s is None but this rank's buffer must hold %lld %s", name, want, s->dtype), -1;
    }
    if (s->memory == RELAY_MEMORY_CUDA) return device_view_get(view, s, k, obj, name);
    if (PyObject_GetBuffer(obj, view, PyBUF_STRIDES | PyBUF_FORMAT)) {
        PyErr_Clear();
        if (is_device_array(obj))
            return core_buffer_error("%s is a device array (%s, with %s) but this executor binds host memory: bind it "
                                     "with memory=\"cuda\" to replay over device arrays", name, Py_TYPE(obj)->tp_name,
                                     cuda_interface), -1;
        return core_buffer_error("%s must support the buffer protocol (a numpy array, say), not %s", name,
                                 Py_TYPE(obj)->tp_name), -1;
    }
    const char *f = bare_format(view);
    long long have = view->itemsize ? (long long)(view->len / view->itemsize) : 0;
    char why[768];   /* PyBUF_STRIDES: shape and strides given wherever ndim > 0 */
    if (writable && view->readonly)
        core_buffer_error("%s is read-only: expected a writable buffer of %lld %s; got %lld %s (read-only)", name, want,
                          s->dtype, have, format_name(f));
    else if (s->format ? strcmp(f, s->format) != 0 : (size_t)view->itemsize != s->itemsize)
        core_buffer_error("%s is of another type: expected %lld %s%s (%zu bytes each); got %lld %s", name, want, s->dtype,
                          s->format ? "" : " of the plan's size", s->itemsize, have, format_name(f));
    else if (local_shape_check(&s->shapes[k], view->ndim, view->shape, view->strides, (size_t)view->itemsize, want, why,
                               sizeof why))
        core_buffer_error("%s is %s", name, why);
    else
        return 0;
    PyBuffer_Release(view);
    return -1;
}

/* The n objects of one side: obj itself when n is 1 and it is a buffer,
 * else the items of a sequence of n. */
static PyObject *side_items(PyObject *obj, int n, const char *side, int device)
{
    if (n == 1 && (PyObject_CheckBuffer(obj) || obj == Py_None || is_device_array(obj))) return PyTuple_Pack(1, obj);
    PyObject *seq = PySequence_Check(obj) ? PySequence_Tuple(obj) : NULL;
    if (seq && PyTuple_GET_SIZE(seq) == n) return seq;
    Py_XDECREF(seq);
    PyErr_Clear();
    const char *what = device ? "device array" : "buffer";
    return core_buffer_error("%s must be %s%s%sa sequence of %d %ss, one per %s; got %s", side, n == 1 ? "a " : "",
                             n == 1 ? what : "", n == 1 ? " or " : "", n, what,
                             n == 1 || strcmp(side, "dst") == 0 ? "destination" : "source", Py_TYPE(obj)->tp_name);
}

/* The bytes a view reaches from its first element: its span when strided
 * (a logical view of a larger array), its length otherwise. */
static Py_ssize_t reach(const Py_buffer *v)
{
    return v->strides ? local_shape_span(v->ndim, v->shape, v->strides, (size_t)v->itemsize) : v->len;
}

static int overlaps(const Py_buffer *a, const Py_buffer *b)
{
    if (!a->obj || !b->obj) return 0;
    Py_ssize_t na = reach(a), nb = reach(b);
    const char *x = a->buf, *y = b->buf;
    return na && nb && x < y + nb && y < x + na;
}

/* -1 with BufferMismatch when a destination overlaps a source. */
static int check_no_overlap(const buffer_views *v, const buffer_slots *s)
{
    for (int i = 0; i < s->ndst; i++)
        for (int j = s->ndst; j < s->ndst + s->nsrc; j++)
            if (overlaps(&v->views[i], &v->views[j])) {
                char a[32], b[32];
                slot_name(a, sizeof a, s, i);
                slot_name(b, sizeof b, s, j);
                core_buffer_error("%s and %s overlap: a replay reads and writes different memory", a, b);
                return -1;
            }
    return 0;
}

static void release_first(buffer_views *v, int got)
{
    for (int k = 0; k < got; k++)
        if (!v->views[k].obj) continue;
        else if (v->device) Py_CLEAR(v->views[k].obj);
        else PyBuffer_Release(&v->views[k]);
    PyMem_Free(v->views);
    PyMem_Free(v->dst);
    memset(v, 0, sizeof *v);
}

int buffer_views_get(buffer_views *v, const buffer_slots *s, PyObject *dst, PyObject *src)
{
    int n = s->ndst + s->nsrc;
    memset(v, 0, sizeof *v);
    int device = s->memory == RELAY_MEMORY_CUDA;
    PyObject *d = side_items(dst, s->ndst, "dst", device), *r = d ? side_items(src, s->nsrc, "src", device) : NULL;
    v->views = r ? PyMem_Calloc((size_t)n, sizeof *v->views) : NULL;
    v->dst = v->views ? PyMem_Calloc((size_t)n, sizeof(void *)) : NULL;
    v->device = s->memory == RELAY_MEMORY_CUDA;
    if (r && !v->dst) PyErr_NoMemory();
    int got = 0;
    for (; v->dst && got < n; got++) {
        PyObject *obj = got < s->ndst ? PyTuple_GET_ITEM(d, got) : PyTuple_GET_ITEM(r, got - s->ndst);
        if (view_get(&v->views[got], s, got, obj)) break;
        v->dst[got] = v->views[got].obj ? v->views[got].buf : NULL;
    }
    Py_XDECREF(d);
    Py_XDECREF(r);
    if (got < n || check_no_overlap(v, s)) {
        release_first(v, got);
        return -1;
    }
    v->src = (const void **)v->dst + s->ndst;
    return 0;
}

void buffer_views_release(buffer_views *v, const buffer_slots *s)
{
    if (v->views) release_first(v, s->ndst + s->nsrc);
}
