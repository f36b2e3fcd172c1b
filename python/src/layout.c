/* layout.c — relay's layouts for Python: the 2-D layouts of relay/layout.h
 * (block-cyclic and grid) and the N-D layouts of relay/nd.h, their facts,
 * and where each rank's local elements sit globally (for the package's
 * helpers that fill and check local arrays). */
/* Python.h first, as CPython requires. */
#include "core.h"

#include "layout_internal.h"
#include "nd_layout.h"
#include "plan_internal.h"
#include "words.h"

/* ---- the handle types -------------------------------------------------------- */

static void layout_dealloc(PyObject *self)
{
    core_layout *h = (core_layout *)self;
    if (h->owner) Py_DECREF(h->owner);
    else relay_layout_free(h->layout);
    Py_TYPE(self)->tp_free(self);
}

static void nd_layout_dealloc(PyObject *self)
{
    core_nd_layout *h = (core_nd_layout *)self;
    if (h->owner) Py_DECREF(h->owner);
    else relay_nd_layout_free(h->layout);
    Py_TYPE(self)->tp_free(self);
}

PyTypeObject core_layout_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "relay._core.LayoutHandle",
    .tp_basicsize = sizeof(core_layout),
    .tp_dealloc = layout_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A relay_layout (2-D).",
};

PyTypeObject core_nd_layout_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "relay._core.NDLayoutHandle",
    .tp_basicsize = sizeof(core_nd_layout),
    .tp_dealloc = nd_layout_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A relay_nd_layout.",
};

PyObject *core_layout_wrap(relay_layout *l, PyObject *owner)
{
    core_layout *h = PyObject_New(core_layout, &core_layout_type);
    if (!h) {
        if (!owner) relay_layout_free(l);
        return NULL;
    }
    h->layout = l;
    h->owner = Py_XNewRef(owner);
    return (PyObject *)h;
}

PyObject *core_nd_layout_wrap(relay_nd_layout *l, PyObject *owner)
{
    core_nd_layout *h = PyObject_New(core_nd_layout, &core_nd_layout_type);
    if (!h) {
        if (!owner) relay_nd_layout_free(l);
        return NULL;
    }
    h->layout = l;
    h->owner = Py_XNewRef(owner);
    return (PyObject *)h;
}

relay_layout *core_layout_of(PyObject *obj)
{
    if (Py_IS_TYPE(obj, &core_layout_type)) return ((core_layout *)obj)->layout;
    PyErr_Format(PyExc_TypeError, "expected a 2-D layout handle, got %s", Py_TYPE(obj)->tp_name);
    return NULL;
}

relay_nd_layout *core_nd_layout_of(PyObject *obj)
{
    if (Py_IS_TYPE(obj, &core_nd_layout_type)) return ((core_nd_layout *)obj)->layout;
    PyErr_Format(PyExc_TypeError, "expected an N-D layout handle, got %s", Py_TYPE(obj)->tp_name);
    return NULL;
}

/* A 2-D or N-D layout's fingerprint (the package's layout equality). */
static PyObject *layout_fingerprint(PyObject *self, PyObject *h)
{
    uint64_t v;
    if (Py_IS_TYPE(h, &core_nd_layout_type)) v = rl_nd_layout_hash(((core_nd_layout *)h)->layout);
    else {
        relay_layout *l = core_layout_of(h);
        if (!l) return NULL;
        v = rl_layout_hash(l);
    }
    return v ? PyLong_FromUnsignedLongLong(v) : PyErr_NoMemory();
}

/* ---- 2-D layouts ------------------------------------------------------------- */

/* lld: one leading dimension for every rank (relay_layout_block_cyclic),
 * or a sequence of one per rank (relay_layout_block_cyclic_lds). */
static PyObject *layout_block_cyclic(PyObject *self, PyObject *args)
{
    long long m, n, mb, nb;
    int nprow, npcol, rsrc, csrc;
    PyObject *grid_order, *lld, *elem_order;
    if (!PyArg_ParseTuple(args, "LLLLiiOiiOO", &m, &n, &mb, &nb, &nprow, &npcol, &grid_order, &rsrc, &csrc, &lld,
                          &elem_order))
        return NULL;
    int go = core_word(grid_order, cli_order_words, "grid_order");
    int eo = go < 0 ? -1 : core_word(elem_order, cli_order_words, "order");
    if (eo < 0) return NULL;
    relay_layout *l;
    relay_status st;
    if (PyLong_Check(lld)) {
        long long shared = PyLong_AsLongLong(lld);
        if (shared == -1 && PyErr_Occurred()) return NULL;
        st = relay_layout_block_cyclic(&l, m, n, mb, nb, nprow, npcol, (relay_order)go, rsrc, csrc, shared,
                                       (relay_order)eo);
    } else {
        Py_ssize_t count;
        int64_t *lds = core_int64_list(lld, &count, "lld", 0);
        if (!lds) return NULL;
        if (nprow < 1 || npcol < 1 || count != (Py_ssize_t)nprow * npcol) {
            PyMem_Free(lds);
            return core_argument_error("lld as a sequence needs one entry per rank of the %d x %d grid (got %zd)",
                                       nprow, npcol, count);
        }
        st = relay_layout_block_cyclic_lds(&l, m, n, mb, nb, nprow, npcol, (relay_order)go, rsrc, csrc, lds,
                                           (relay_order)eo);
        PyMem_Free(lds);
    }
    return st ? core_raise(st) : core_layout_wrap(l, NULL);
}

/* The arrays of a grid layout, read from Python sequences. */
typedef struct {
    int64_t *row_splits, *col_splits, *offsets, *lds;
    int *owners;
    Py_ssize_t nrs, ncs, nowners, noffsets, nlds;
} grid_arrays;

static void grid_arrays_free(grid_arrays *g)
{
    PyMem_Free(g->row_splits);
    PyMem_Free(g->col_splits);
    PyMem_Free(g->offsets);
    PyMem_Free(g->lds);
    PyMem_Free(g->owners);
}

static int grid_arrays_read(grid_arrays *g, PyObject *rs, PyObject *cs, PyObject *owners, PyObject *offsets,
                            PyObject *lds)
{
    *g = (grid_arrays){0};
    if (!(g->row_splits = core_int64_list(rs, &g->nrs, "row_splits", 0))) return -1;
    if (!(g->col_splits = core_int64_list(cs, &g->ncs, "col_splits", 0))) return -1;
    if (!(g->owners = core_int_list(owners, &g->nowners, "owners", INT32_MIN, INT32_MAX, 0))) return -1;
    g->offsets = core_int64_list(offsets, &g->noffsets, "offsets", 1);
    if (PyErr_Occurred()) return -1;
    g->lds = core_int64_list(lds, &g->nlds, "lds", 1);
    if (PyErr_Occurred()) return -1;
    Py_ssize_t blocks = (g->nrs - 1) * (g->ncs - 1);
    if (g->nrs < 2 || g->ncs < 2 || g->nrs - 1 > INT32_MAX || g->ncs - 1 > INT32_MAX) {
        core_argument_error("row_splits and col_splits need 2 to 2^31 entries each (got %zd and %zd)", g->nrs, g->ncs);
        return -1;
    }
    if (g->nowners != blocks || (g->offsets && g->noffsets != blocks) || (g->lds && g->nlds != blocks)) {
        core_argument_error("owners, offsets and lds need one entry per block, %zd (got %zd, %zd, %zd)", blocks,
                            g->nowners, g->noffsets, g->nlds);
        return -1;
    }
    if (!g->offsets != !g->lds) {
        core_argument_error("offsets and lds go together: give both or neither");
        return -1;
    }
    return 0;
}

static PyObject *layout_grid(PyObject *self, PyObject *args)
{
    int nranks;
    long long m, n;
    PyObject *rs, *cs, *owners, *offsets, *lds, *order;
    if (!PyArg_ParseTuple(args, "iLLOOOOOO", &nranks, &m, &n, &rs, &cs, &owners, &offsets, &lds, &order)) return NULL;
    int eo = core_word(order, cli_order_words, "order");
    if (eo < 0) return NULL;
    grid_arrays g;
    PyObject *result = NULL;
    if (!grid_arrays_read(&g, rs, cs, owners, offsets, lds)) {
        relay_layout *l;
        relay_status st = relay_layout_grid(&l, nranks, m, n, (int)g.nrs - 1, g.row_splits, (int)g.ncs - 1,
                                            g.col_splits, g.owners, g.offsets, g.lds, (relay_order)eo);
        result = st ? core_raise(st) : core_layout_wrap(l, NULL);
    }
    grid_arrays_free(&g);
    return result;
}

static PyObject *layout_facts(PyObject *self, PyObject *h)
{
    relay_layout *l = core_layout_of(h);
    if (!l) return NULL;
    return Py_BuildValue("iLLs", relay_layout_nranks(l), (long long)relay_layout_rows(l),
                         (long long)relay_layout_cols(l), cli_order_words[l->order]);
}

static PyObject *layout_local_elems(PyObject *self, PyObject *args)
{
    PyObject *h;
    int rank;
    if (!PyArg_ParseTuple(args, "Oi", &h, &rank)) return NULL;
    relay_layout *l = core_layout_of(h);
    return l ? PyLong_FromLongLong(relay_layout_local_elems(l, rank)) : NULL;
}

static PyObject *layout_locate(PyObject *self, PyObject *args)
{
    PyObject *h;
    long long i, j;
    if (!PyArg_ParseTuple(args, "OLL", &h, &i, &j)) return NULL;
    relay_layout *l = core_layout_of(h);
    if (!l) return NULL;
    int rank;
    int64_t index;
    relay_status st = relay_layout_locate(l, i, j, &rank, &index);
    return st ? core_raise(st) : Py_BuildValue("iL", rank, (long long)index);
}

/* A writable buffer of n int64 values from Python, or NULL with an exception. */
static int64_t *int64_out(PyObject *obj, Py_buffer *view, int64_t n, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS)) return NULL;
    if (view->len != n * (Py_ssize_t)sizeof(int64_t)) {
        PyBuffer_Release(view);
        return (int64_t *)core_buffer_error("%s must hold %lld int64 values", what, (long long)n);
    }
    return view->buf;
}

/* global_indices(h, rank, rows, cols): rows[k], cols[k] = the global
 * element at position k of rank's buffer, -1 and -1 where it holds none. */
static PyObject *layout_global_indices(PyObject *self, PyObject *args)
{
    PyObject *h, *rows_obj, *cols_obj;
    int rank;
    if (!PyArg_ParseTuple(args, "OiOO", &h, &rank, &rows_obj, &cols_obj)) return NULL;
    relay_layout *l = core_layout_of(h);
    if (!l) return NULL;
    int64_t n = relay_layout_local_elems(l, rank);
    Py_buffer rv, cv;
    int64_t *rows = int64_out(rows_obj, &rv, n, "rows");
    if (!rows) return NULL;
    int64_t *cols = int64_out(cols_obj, &cv, n, "cols");
    if (!cols) {
        PyBuffer_Release(&rv);
        return NULL;
    }
    rl_buffer_map *map = NULL;
    relay_status st = n ? rl_buffer_map_new(&map, l, rank) : RELAY_OK;
    for (int64_t pos = 0; !st && pos < n;) {
        int64_t i, j, run = 1;
        if (!rl_layout_element_run(map, pos, &i, &j, &run)) {
            rows[pos] = cols[pos] = -1;
            pos++;
            continue;
        }
        for (int64_t k = 0; k < run && pos + k < n; k++) {
            rows[pos + k] = l->order == RELAY_COL_MAJOR ? i + k : i;
            cols[pos + k] = l->order == RELAY_COL_MAJOR ? j : j + k;
        }
        pos += run;
    }
    rl_buffer_map_free(map);
    PyBuffer_Release(&rv);
    PyBuffer_Release(&cv);
    return st ? core_raise(st) : Py_NewRef(Py_None);
}

/* ---- N-D layouts -------------------------------------------------------------- */

/* What an N-D description holds, read from Python. */
typedef struct {
    relay_nd_desc d;
    relay_placement places[RELAY_ND_MAX_MESH];
    int64_t *shape, *padded, *splits[RELAY_ND_MAX_MESH];
    int *mesh_shape, *mesh_ranks;
} nd_arrays;

static void nd_arrays_free(nd_arrays *a)
{
    PyMem_Free(a->shape);
    PyMem_Free(a->padded);
    PyMem_Free(a->mesh_shape);
    PyMem_Free(a->mesh_ranks);
    for (int k = 0; k < RELAY_ND_MAX_MESH; k++) PyMem_Free(a->splits[k]);
}

static const char *const placement_words[] = {"shard", "replicate", "partial", NULL};

/* placements: a sequence of (kind, dim, block, splits or None). */
static int nd_placements_read(nd_arrays *a, PyObject *placements, Py_ssize_t mesh_ndims)
{
    if (mesh_ndims > RELAY_ND_MAX_MESH) {  /* before filling places[] and splits[], RELAY_ND_MAX_MESH each */
        core_argument_error("a mesh of %zd dimensions (at most %d)", mesh_ndims, RELAY_ND_MAX_MESH);
        return -1;
    }
    PyObject *seq = PySequence_Fast(placements, "placements must be a sequence");
    if (!seq) return -1;
    int ok = PySequence_Fast_GET_SIZE(seq) == mesh_ndims;
    if (!ok) core_argument_error("%zd placements for a mesh of %zd dimensions", PySequence_Fast_GET_SIZE(seq), mesh_ndims);
    for (Py_ssize_t k = 0; ok && k < mesh_ndims; k++) {
        PyObject *kind, *splits;
        long long block;
        int dim;
        ok = PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, k), "OiLO", &kind, &dim, &block, &splits);
        int word = ok ? core_word(kind, placement_words, "placement kind") : -1;
        Py_ssize_t ns;
        if (word >= 0) a->splits[k] = core_int64_list(splits, &ns, "splits", 1);
        ok = word >= 0 && !PyErr_Occurred();
        if (ok && a->splits[k] && ns != (Py_ssize_t)a->mesh_shape[k] + 1) {  /* relay reads p+1 split points */
            core_argument_error("mesh dimension %zd of %d coordinates needs %lld split points, not %zd", k,
                                a->mesh_shape[k], (long long)a->mesh_shape[k] + 1, ns);
            ok = 0;
        }
        if (ok) a->places[k] = (relay_placement){(relay_placement_kind)word, dim, block, a->splits[k]};
    }
    Py_DECREF(seq);
    return ok ? 0 : -1;
}

static PyObject *nd_layout_create(PyObject *self, PyObject *args)
{
    PyObject *shape, *mesh_shape, *mesh_ranks, *placements, *order, *padded;
    if (!PyArg_ParseTuple(args, "OOOOOO", &shape, &mesh_shape, &mesh_ranks, &placements, &order, &padded)) return NULL;
    nd_arrays a = {0};
    Py_ssize_t ndims, mesh_ndims, nranks, npadded;
    PyObject *result = NULL;
    int eo = core_word(order, cli_order_words, "order");
    if (eo >= 0 && (a.shape = core_int64_list(shape, &ndims, "shape", 0)) &&
        (a.mesh_shape = core_int_list(mesh_shape, &mesh_ndims, "mesh shape", 1, INT32_MAX, 0)) &&
        (a.mesh_ranks = core_int_list(mesh_ranks, &nranks, "mesh ranks", INT32_MIN, INT32_MAX, 0)) &&
        ((a.padded = core_int64_list(padded, &npadded, "padded", 1)) || !PyErr_Occurred()) &&
        !nd_placements_read(&a, placements, mesh_ndims)) {
        int64_t size = 1;
        Py_ssize_t k = 0;
        for (; k < mesh_ndims && size <= nranks; k++) size *= a.mesh_shape[k]; /* stops before it can overflow */
        if (size != nranks)
            core_argument_error("the mesh has %s%lld places but %zd ranks were given", k < mesh_ndims ? "over " : "",
                                (long long)size, nranks);
        else if (a.padded && npadded != ndims) core_argument_error("padded has %zd entries for %zd dimensions", npadded, ndims);
        else if (ndims > RELAY_ND_MAX_DIMS || mesh_ndims > RELAY_ND_MAX_MESH)
            core_argument_error("%zd array dimensions (at most %d) on a mesh of %zd (at most %d)", ndims,
                                RELAY_ND_MAX_DIMS, mesh_ndims, RELAY_ND_MAX_MESH);
        else {
            a.d = (relay_nd_desc){(int)ndims, a.shape, (int)mesh_ndims, a.mesh_shape, a.mesh_ranks, a.places,
                                  (relay_order)eo, a.padded};
            relay_nd_layout *l;
            relay_status st = relay_nd_layout_create(&l, &a.d);
            result = st ? core_raise(st) : core_nd_layout_wrap(l, NULL);
        }
    }
    nd_arrays_free(&a);
    return result;
}

static PyObject *int64_tuple(const int64_t *v, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (!x) Py_CLEAR(t);
        else PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

static PyObject *int_tuple(const int *v, int64_t n)
{
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (int64_t i = 0; t && i < n; i++) {
        PyObject *x = PyLong_FromLong(v[i]);
        if (!x) Py_CLEAR(t);
        else PyTuple_SET_ITEM(t, (Py_ssize_t)i, x);
    }
    return t;
}

/* describe(h) -> (shape, mesh_shape, mesh_ranks, ((kind, dim, block, splits|None), ...), order, padded|None) */
static PyObject *nd_layout_describe(PyObject *self, PyObject *h)
{
    relay_nd_layout *l = core_nd_layout_of(h);
    if (!l) return NULL;
    relay_nd_desc d;
    relay_placement places[RELAY_ND_MAX_MESH];
    rl_nd_layout_describe(l, &d, places);
    int64_t size = 1;
    for (int k = 0; k < d.mesh_ndims; k++) size *= d.mesh_shape[k];
    PyObject *plist = PyTuple_New(d.mesh_ndims);
    for (int k = 0; plist && k < d.mesh_ndims; k++) {
        PyObject *splits = places[k].splits ? int64_tuple(places[k].splits, d.mesh_shape[k] + 1) : Py_NewRef(Py_None);
        PyObject *p = splits ? Py_BuildValue("siLN", placement_words[places[k].kind], places[k].dim,
                                             (long long)places[k].block, splits)
                             : NULL;
        if (!p) Py_CLEAR(plist);
        else PyTuple_SET_ITEM(plist, k, p);
    }
    if (!plist) return NULL;
    PyObject *padded = d.padded ? int64_tuple(d.padded, d.ndims) : Py_NewRef(Py_None);
    return Py_BuildValue("NNNNsN", int64_tuple(d.shape, d.ndims), int_tuple(d.mesh_shape, d.mesh_ndims),
                         int_tuple(d.mesh_ranks, size), plist, cli_order_words[d.order], padded);
}

static PyObject *nd_layout_rank_facts(PyObject *self, PyObject *args)
{
    PyObject *h;
    int rank;
    if (!PyArg_ParseTuple(args, "Oi", &h, &rank)) return NULL;
    relay_nd_layout *l = core_nd_layout_of(h);
    if (!l) return NULL;
    int64_t extents[RELAY_ND_MAX_DIMS];
    relay_status st = relay_nd_layout_local_shape(l, rank, extents);
    if (st) return core_raise(st);
    return Py_BuildValue("NL", int64_tuple(extents, relay_nd_layout_ndims(l)),
                         (long long)relay_nd_layout_local_elems(l, rank));
}

static PyObject *nd_layout_locate(PyObject *self, PyObject *args)
{
    PyObject *h, *index;
    int rank;
    if (!PyArg_ParseTuple(args, "OiO", &h, &rank, &index)) return NULL;
    relay_nd_layout *l = core_nd_layout_of(h);
    if (!l) return NULL;
    Py_ssize_t n;
    int64_t *idx = core_int64_list(index, &n, "index", 0);
    if (!idx) return NULL;
    int held = 0;
    int64_t position = 0;
    relay_status st = n == relay_nd_layout_ndims(l) ? relay_nd_layout_locate(l, rank, idx, &held, &position)
                                                    : rl_fail(RELAY_ERR_ARG, "an index of %zd entries for %d dimensions",
                                                              n, relay_nd_layout_ndims(l));
    PyMem_Free(idx);
    if (st) return core_raise(st);
    return held ? PyLong_FromLongLong(position) : Py_NewRef(Py_None);
}

typedef struct {
    int64_t *out;
    int64_t n;
} index_fill;

static void fill_block(int64_t lo, int64_t hi, void *ctx)
{
    index_fill *f = ctx;
    for (int64_t g = lo; g < hi; g++) f->out[f->n++] = g;
}

/* dim_indices(h, rank, k, out): the global indices of dimension k that
 * rank holds, in local order, into out (its local extent of int64). */
static PyObject *nd_layout_dim_indices(PyObject *self, PyObject *args)
{
    PyObject *h, *out;
    int rank, k;
    if (!PyArg_ParseTuple(args, "OiiO", &h, &rank, &k, &out)) return NULL;
    relay_nd_layout *l = core_nd_layout_of(h);
    if (!l) return NULL;
    int64_t extents[RELAY_ND_MAX_DIMS];
    relay_status st = relay_nd_layout_local_shape(l, rank, extents);
    if (!st && (k < 0 || k >= relay_nd_layout_ndims(l))) st = rl_fail(RELAY_ERR_ARG, "no dimension %d", k);
    if (st) return core_raise(st);
    Py_buffer v;
    index_fill f = {int64_out(out, &v, extents[k], "out"), 0};
    if (!f.out) return NULL;
    int64_t position = rl_nd_position_of(l, rank);
    if (position >= 0) {
        int coords[RELAY_ND_MAX_MESH];
        rl_nd_mesh_coords(l, position, coords);
        rl_nd_for_each_block(l, k, rl_nd_dim_coord(l, k, coords), fill_block, &f);
    }
    PyBuffer_Release(&v);
    return Py_NewRef(Py_None);
}

PyMethodDef core_layout_methods[] = {
    {"layout_block_cyclic", layout_block_cyclic, METH_VARARGS, NULL},
    {"layout_grid", layout_grid, METH_VARARGS, NULL},
    {"layout_facts", layout_facts, METH_O, NULL},
    {"layout_fingerprint", layout_fingerprint, METH_O, NULL},
    {"layout_local_elems", layout_local_elems, METH_VARARGS, NULL},
    {"layout_locate", layout_locate, METH_VARARGS, NULL},
    {"layout_global_indices", layout_global_indices, METH_VARARGS, NULL},
    {"nd_layout_create", nd_layout_create, METH_VARARGS, NULL},
    {"nd_layout_describe", nd_layout_describe, METH_O, NULL},
    {"nd_layout_rank_facts", nd_layout_rank_facts, METH_VARARGS, NULL},
    {"nd_layout_locate", nd_layout_locate, METH_VARARGS, NULL},
    {"nd_layout_dim_indices", nd_layout_dim_indices, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
