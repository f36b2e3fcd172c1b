/* buffers.h — the buffers of one replay, read from Python objects with the
 * buffer protocol (numpy arrays, memoryviews, bytearrays ...), zero-copy.
 *
 * Each slot of a replay (dst[k], src[k]) wants its layout's local array
 * on this rank, or raw storage of at least as many elements
 * (local_shape.h), of one element type (any type of the right size for
 * BMMC plans, which move bytes), writable for destinations.  Anything else
 * is refused with relay.errors.BufferMismatch naming what was expected and
 * what was given: relay never copies a buffer behind the caller's back.
 *
 * Executors bound to CUDA memory take device arrays instead: objects with
 * __cuda_array_interface__ (CuPy arrays, PyTorch CUDA tensors, Numba
 * device arrays), read for their data pointer, shape, strides and element
 * type and checked alike (the layout's local array, the plan's type,
 * writable destinations).  Host buffers given to a CUDA executor,
 * and device arrays given to a host executor, are refused the same way. */
#ifndef RELAY_PY_BUFFERS_H
#define RELAY_PY_BUFFERS_H

#include "core.h"
#include "local_shape.h"

/* What each slot wants: set once, when the executor is bound. */
typedef struct {
    int ndst, nsrc;                /* slots of each side */
    int64_t *elems;                /* ndst + nsrc: the elements each must hold on this rank */
    local_shape *shapes;           /* ndst + nsrc: the local array each must be */
    relay_type type;               /* of alpha and beta */
    size_t itemsize;
    const char *format;            /* the buffer protocol's format of the elements, NULL: any of itemsize */
    const char *dtype;             /* its numpy name, for messages */
    relay_memory memory;           /* host: the buffer protocol; CUDA: __cuda_array_interface__ */
} buffer_slots;

/* The buffers of one replay: views held until buffer_views_release. */
typedef struct {
    Py_buffer *views;              /* ndst + nsrc; obj NULL where the slot is empty (None); for
                                      device arrays obj is a reference to the array and buf
                                      its device pointer, filled by relay (no buffer export) */
    int device;                    /* views of device arrays (released by reference) */
    void **dst;
    const void **src;
} buffer_views;

/* slots for a plan on `rank`; -1 with an exception. */
int buffer_slots_init(buffer_slots *s, const relay_plan *p, int rank);
void buffer_slots_free(buffer_slots *s);

/* Reads dst and src (each one buffer when its side has one slot, else a
 * sequence of that many) into v, checked against s (host buffers or device
 * arrays, as s->memory says); -1 with an exception and nothing held. */
int buffer_views_get(buffer_views *v, const buffer_slots *s, PyObject *dst, PyObject *src);
void buffer_views_release(buffer_views *v, const buffer_slots *s);

#endif
