/* local_shape.c — the local array a layout stores on a rank, and the rule
 * that says which arrays are that one (local_shape.h). */
/* Python.h first, as CPython requires. */
#include "local_shape.h"

#include <string.h>

#include "hsumma_dist.h"
#include "nd_layout.h"
#include "plan_internal.h"

/* ---- the local array of a layout ------------------------------------------- */

static void set_dims(Py_ssize_t *out, const int64_t *dims, int ndim)
{
    for (int k = 0; k < ndim; k++) out[k] = (Py_ssize_t)dims[k];
}

/* A block-cyclic layout's ScaLAPACK local array; ndim 0 for a grid layout
 * when `grid_is_raw`, else UnsupportedError. */
static int of_layout(local_shape *s, const relay_layout *l, int rank, int grid_is_raw)
{
    int64_t rows, cols, ld;
    relay_status st = relay_layout_local_shape(l, rank, &rows, &cols, &ld);
    memset(s, 0, sizeof *s);
    if (st == RELAY_ERR_UNSUPPORTED && grid_is_raw) return 0;
    if (st) return core_raise(st), -1;
    int col_major = l->order == RELAY_COL_MAJOR;
    s->ndim = 2;
    s->order = col_major ? 'F' : 'C';
    s->logical[0] = (Py_ssize_t)rows;
    s->logical[1] = (Py_ssize_t)cols;
    s->storage[0] = (Py_ssize_t)(col_major ? ld : rows);
    s->storage[1] = (Py_ssize_t)(col_major ? cols : ld);
    return 0;
}

/* An N-D layout's local array: its padded extents where the rank holds
 * elements and the layout pads, else its local extents. */
static int of_nd_layout(local_shape *s, const relay_nd_layout *l, int rank)
{
    int64_t extents[RELAY_ND_MAX_DIMS];
    relay_status st = relay_nd_layout_local_shape(l, rank, extents);
    memset(s, 0, sizeof *s);
    if (st) return core_raise(st), -1;
    s->ndim = l->ndims;
    s->order = l->order == RELAY_ROW_MAJOR ? 'C' : 'F';
    set_dims(s->logical, extents, l->ndims);
    int empty = 0;
    for (int k = 0; k < l->ndims; k++) empty |= extents[k] == 0;
    for (int k = 0; k < l->ndims; k++) s->storage[k] = (Py_ssize_t)(!empty && l->padded[k] ? l->padded[k] : extents[k]);
    return 0;
}

int local_shape_of_handle(local_shape *s, PyObject *layout, int rank)
{
    if (PyObject_TypeCheck(layout, &core_nd_layout_type))
        return of_nd_layout(s, ((core_nd_layout *)layout)->layout, rank);
    const relay_layout *l = core_layout_of(layout);
    return l ? of_layout(s, l, rank, 0) : -1;
}

/* HSUMMA's C (dst 0), A (src 0) and B (src 1): dense, column-major. */
static void of_hsumma(local_shape *s, const relay_plan *p, int is_dst, int index, int rank)
{
    int64_t dims[2];
    memset(s, 0, sizeof *s);
    rl_hsumma_local_dims(&p->hsumma->params, is_dst ? 2 : index, rank, &dims[0], &dims[1]);
    s->ndim = 2;
    s->order = 'F';
    set_dims(s->logical, dims, 2);
    set_dims(s->storage, dims, 2);
}

int local_shape_of_slot(local_shape *s, const relay_plan *p, int is_dst, int index, int rank)
{
    memset(s, 0, sizeof *s);
    switch (relay_plan_get_kind(p)) {
    case RELAY_PLAN_BMMC: return 0;
    case RELAY_PLAN_HSUMMA: return of_hsumma(s, p, is_dst, index, rank), 0;
    case RELAY_PLAN_ND: return of_nd_layout(s, is_dst ? relay_plan_nd_dst(p, index) : relay_plan_nd_src(p, index), rank);
    default: return of_layout(s, is_dst ? relay_plan_dst_layout(p, index) : relay_plan_src_layout(p, index), rank, 1);
    }
}

/* ---- the rule ------------------------------------------------------------- */

/* The byte strides of an X-contiguous array of shape dims. */
static void contiguous_strides(const local_shape *s, const Py_ssize_t *dims, size_t itemsize, Py_ssize_t *strides)
{
    Py_ssize_t step = (Py_ssize_t)itemsize;
    for (int j = 0; j < s->ndim; j++) {
        int k = s->order == 'C' ? s->ndim - 1 - j : j;
        strides[k] = step;
        step *= dims[k] ? dims[k] : 1;
    }
}

static int same(const Py_ssize_t *a, const Py_ssize_t *b, int n)
{
    for (int k = 0; k < n; k++)
        if (a[k] != b[k]) return 0;
    return 1;
}

/* Strides that agree with want[] wherever the extent is above 1 (numpy
 * gives any stride to a dimension of extent 1). */
static int same_strides(const Py_ssize_t *shape, const Py_ssize_t *got, const Py_ssize_t *want, int n)
{
    for (int k = 0; k < n; k++)
        if (shape[k] > 1 && got[k] != want[k]) return 0;
    return 1;
}

static long long count_of(int ndim, const Py_ssize_t *shape)
{
    long long n = 1;
    for (int k = 0; k < ndim; k++) n *= shape[k];
    return n;
}

static void format_tuple(char *out, size_t size, const Py_ssize_t *v, int n)
{
    size_t at = (size_t)snprintf(out, size, "(");
    for (int k = 0; k < n && at < size; k++)
        at += (size_t)snprintf(out + at, size - at, "%zd%s", v[k], n == 1 ? "," : k + 1 < n ? ", " : "");
    if (at < size) snprintf(out + at, size - at, ")");
}

int local_shape_check(const local_shape *s, int ndim, const Py_ssize_t *shape, const Py_ssize_t *strides,
                      size_t itemsize, long long need, char *why, size_t why_size)
{
    Py_ssize_t want[RELAY_ND_MAX_DIMS];
    if (need == 0) return 0;
    contiguous_strides(s, s->storage, itemsize, want);
    if (s->ndim && ndim == s->ndim) {
        if (same_strides(shape, strides, want, ndim) && (same(shape, s->storage, ndim) || same(shape, s->logical, ndim)))
            return 0;
    }
    if (ndim == 1 && (shape[0] <= 1 || strides[0] == (Py_ssize_t)itemsize)) {
        if (shape[0] >= need) return 0;
        snprintf(why, why_size, "too small: expected at least %lld elements; got %zd", need, shape[0]);
        return -1;
    }
    char got_shape[200], got_strides[200];
    format_tuple(got_shape, sizeof got_shape, shape, ndim);
    format_tuple(got_strides, sizeof got_strides, strides, ndim);
    if (!s->ndim) {
        snprintf(why, why_size, "not raw storage: expected a 1-D contiguous array of at least %lld elements (this "
                 "slot has no single local array); got shape %s, strides %s", need, got_shape, got_strides);
        return -1;
    }
    char storage[200], logical[200], steps[200];
    format_tuple(storage, sizeof storage, s->storage, s->ndim);
    format_tuple(logical, sizeof logical, s->logical, s->ndim);
    format_tuple(steps, sizeof steps, want, s->ndim);
    size_t at = (size_t)snprintf(why, why_size, "of another shape or order: expected the layout's %c-ordered local array "
                                 "of shape %s (strides %s)", s->order, storage, steps);
    if (!same(s->logical, s->storage, s->ndim) && at < why_size)
        at += (size_t)snprintf(why + at, why_size - at, ", its view %s at those strides", logical);
    if (at < why_size)
        snprintf(why + at, why_size - at, ", or 1-D raw storage of at least %lld elements; got shape %s, strides %s "
                 "(%lld elements)", need, got_shape, got_strides, count_of(ndim, shape));
    return -1;
}

Py_ssize_t local_shape_span(int ndim, const Py_ssize_t *shape, const Py_ssize_t *strides, size_t itemsize)
{
    Py_ssize_t last = 0;
    for (int k = 0; k < ndim; k++) {
        if (shape[k] == 0) return 0;
        last += (shape[k] - 1) * strides[k];
    }
    return last + (Py_ssize_t)itemsize;
}

/* ---- Python: local_shape(layout, rank) --------------------------------------- */

static PyObject *dims_tuple(const Py_ssize_t *v, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int k = 0; t && k < n; k++) {
        PyObject *x = PyLong_FromSsize_t(v[k]);
        if (!x) Py_CLEAR(t);
        else PyTuple_SET_ITEM(t, k, x);
    }
    return t;
}

static PyObject *local_shape_py(PyObject *self, PyObject *args)
{
    PyObject *h;
    int rank;
    local_shape s;
    if (!PyArg_ParseTuple(args, "Oi", &h, &rank) || local_shape_of_handle(&s, h, rank)) return NULL;
    return Py_BuildValue("NNC", dims_tuple(s.storage, s.ndim), dims_tuple(s.logical, s.ndim), s.order);
}

/* The elements rank's buffer must hold for a layout of either kind. */
static long long layout_elems(PyObject *h, int rank)
{
    if (PyObject_TypeCheck(h, &core_nd_layout_type))
        return (long long)relay_nd_layout_local_elems(((core_nd_layout *)h)->layout, rank);
    const relay_layout *l = core_layout_of(h);
    return l ? (long long)relay_layout_local_elems(l, rank) : -1;
}

/* local_array_check(layout, rank, array) -> None: BufferMismatch unless the
 * array is rank's local array of the layout by the rule above. */
static PyObject *local_array_check_py(PyObject *self, PyObject *args)
{
    PyObject *h, *array;
    int rank;
    local_shape s;
    if (!PyArg_ParseTuple(args, "OiO", &h, &rank, &array) || local_shape_of_handle(&s, h, rank)) return NULL;
    long long need = layout_elems(h, rank);
    Py_buffer view;
    if (need < 0 || PyObject_GetBuffer(array, &view, PyBUF_STRIDES | PyBUF_FORMAT)) return NULL;
    char why[768];
    int bad = local_shape_check(&s, view.ndim, view.shape, view.strides, (size_t)view.itemsize, need, why, sizeof why);
    PyBuffer_Release(&view);
    if (bad) return core_buffer_error("rank %d's local array is %s", rank, why);
    Py_RETURN_NONE;
}

PyMethodDef core_local_shape_methods[] = {
    {"local_shape", local_shape_py, METH_VARARGS, NULL},
    {"local_array_check", local_array_check_py, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
