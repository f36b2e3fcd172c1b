/* buffers.c — checking and holding the buffers of one replay (buffers.h). */
/* Python.h first, as CPython requires. */
#include "buffers.h"

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
    if (!s->elems) return PyErr_NoMemory(), -1;
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
        int is_dst = k < s->ndst;
        s->elems[k] = relay_plan_buffer_elems(p, is_dst, is_dst ? k : k - s->ndst, rank);
        if (s->elems[k] < 0) {
            buffer_slots_free(s);
            return core_raise(RELAY_ERR_ARG), -1;
        }
    }
    return 0;
}

void buffer_slots_free(buffer_slots *s)
{
    PyMem_Free(s->elems);
    s->elems = NULL;
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
    if (PyObject_GetBuffer(obj, view, PyBUF_STRIDES | PyBUF_FORMAT)) {
        PyErr_Clear();
        return core_buffer_error("%s must support the buffer protocol (a numpy array, say), not %s", name,
                                 Py_TYPE(obj)->tp_name), -1;
    }
    const char *f = bare_format(view);
    long long have = view->itemsize ? (long long)(view->len / view->itemsize) : 0;
    const char *problem = NULL;
    if (writable && view->readonly) problem = "read-only";
    else if (!PyBuffer_IsContiguous(view, 'A')) problem = "not contiguous";
    else if (s->format ? strcmp(f, s->format) != 0 : (size_t)view->itemsize != s->itemsize) problem = "of another type";
    else if (have < want) problem = "too small";
    if (!problem) return 0;
    core_buffer_error("%s is %s: expected a %scontiguous buffer of at least %lld %s%s (%zu bytes each); got %lld %s "
                      "(%s%s)", name, problem, writable ? "writable " : "", want, s->dtype,
                      s->format ? "" : " of the plan's size", s->itemsize, have, format_name(f),
                      view->readonly ? "read-only, " : "",
                      PyBuffer_IsContiguous(view, 'A') ? "contiguous" : "strided");
    PyBuffer_Release(view);
    return -1;
}

/* The n objects of one side: obj itself when n is 1 and it is a buffer,
 * else the items of a sequence of n. */
static PyObject *side_items(PyObject *obj, int n, const char *side)
{
    if (n == 1 && (PyObject_CheckBuffer(obj) || obj == Py_None)) return PyTuple_Pack(1, obj);
    PyObject *seq = PySequence_Check(obj) ? PySequence_Tuple(obj) : NULL;
    if (seq && PyTuple_GET_SIZE(seq) == n) return seq;
    Py_XDECREF(seq);
    PyErr_Clear();
    return core_buffer_error("%s must be %s%d buffers, one per %s; got %s", side, n == 1 ? "a buffer or a sequence of " : "a sequence of ",
                             n, n == 1 || strcmp(side, "dst") == 0 ? "destination" : "source", Py_TYPE(obj)->tp_name);
}

static int overlaps(const Py_buffer *a, const Py_buffer *b)
{
    if (!a->obj || !b->obj || !a->len || !b->len) return 0;
    const char *x = a->buf, *y = b->buf;
    return x < y + b->len && y < x + a->len;
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
        if (v->views[k].obj) PyBuffer_Release(&v->views[k]);
    PyMem_Free(v->views);
    PyMem_Free(v->dst);
    memset(v, 0, sizeof *v);
}

int buffer_views_get(buffer_views *v, const buffer_slots *s, PyObject *dst, PyObject *src)
{
    int n = s->ndst + s->nsrc;
    memset(v, 0, sizeof *v);
    PyObject *d = side_items(dst, s->ndst, "dst"), *r = d ? side_items(src, s->nsrc, "src") : NULL;
    v->views = r ? PyMem_Calloc((size_t)n, sizeof *v->views) : NULL;
    v->dst = v->views ? PyMem_Calloc((size_t)n, sizeof(void *)) : NULL;
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
