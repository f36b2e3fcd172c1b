/* local_shape.h — the local array a layout stores on a rank, and whether an
 * array given by its shape and strides is laid out as that.
 *
 * A layout stores rank r's part in order X ('C' or 'F') in a storage array
 * of shape S, of which a logical part of shape L holds the layout's
 * elements: S = L for a tight N-D layout, S the padded extents of a padded
 * one; for a column-major block-cyclic layout S = (lld, LOCc) and
 * L = (LOCr, LOCc), as ScaLAPACK's local arrays (row-major: S = (LOCr, lld)).
 * A replay takes, for host buffers and device arrays alike:
 *   - the storage array: shape S, X-contiguous;
 *   - its logical view: shape L at the storage array's strides (a[:LOCr, :]
 *     of an lld x LOCc array, the unpadded view of a padded one);
 *   - raw storage: a 1-D contiguous array of at least the elements the plan
 *     needs there;
 * and refuses anything else, so that an array in the other order, a
 * transpose (a.T), a strided slice or another shape is never replayed as
 * if it were the layout's.  Slots with no single local array (grid layouts,
 * whose blocks sit at offsets of their own; BMMC's vectors) take raw
 * storage only.  A slot that needs no element takes any array. */
#ifndef RELAY_PY_LOCAL_SHAPE_H
#define RELAY_PY_LOCAL_SHAPE_H

#include "core.h"

typedef struct {
    int ndim;                              /* 0: raw storage only */
    char order;                            /* 'C' or 'F' */
    Py_ssize_t storage[RELAY_ND_MAX_DIMS]; /* S */
    Py_ssize_t logical[RELAY_ND_MAX_DIMS]; /* L */
} local_shape;

/* The local array of a 2-D or N-D layout (a handle of either kind) on
 * rank; -1 with an exception (UnsupportedError for a grid layout). */
int local_shape_of_handle(local_shape *s, PyObject *layout, int rank);
/* The local array of buffer `index` of one side of plan p on rank (a grid
 * layout's or a BMMC plan's: ndim 0); -1 with an exception. */
int local_shape_of_slot(local_shape *s, const relay_plan *p, int is_dst, int index, int rank);

/* Whether an array of shape[ndim] at byte strides[ndim], itemsize bytes an
 * element, is slot s's local array, holding at least `need` elements:
 * 0 when it is; else -1 with why[] saying what was expected and given. */
int local_shape_check(const local_shape *s, int ndim, const Py_ssize_t *shape, const Py_ssize_t *strides,
                      size_t itemsize, long long need, char *why, size_t why_size);

/* The span in bytes from an array's first element to one past its last
 * (0 for an empty array), for strides >= 0. */
Py_ssize_t local_shape_span(int ndim, const Py_ssize_t *shape, const Py_ssize_t *strides, size_t itemsize);

#endif
