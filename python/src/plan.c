/* plan.c — relay's plans for Python: planning transforms (2-D and N-D,
 * single, batched, one rank's section), BMMC and HSUMMA plans, plan
 * algebra, files and bytes, and a plan's facts.  Planning, reading and
 * writing release the GIL: they touch no Python object. */
/* Python.h first, as CPython requires. */
#include "core.h"

#include "words.h"

/* ---- the handle type ------------------------------------------------------- */

static void plan_dealloc(PyObject *self)
{
    relay_plan_free(((core_plan *)self)->plan);
    Py_TYPE(self)->tp_free(self);
}

PyTypeObject core_plan_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "relay._core.PlanHandle",
    .tp_basicsize = sizeof(core_plan),
    .tp_dealloc = plan_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A relay_plan.",
};

PyObject *core_plan_wrap(relay_plan *p)
{
    core_plan *h = PyObject_New(core_plan, &core_plan_type);
    if (!h) {
        relay_plan_free(p);
        return NULL;
    }
    h->plan = p;
    return (PyObject *)h;
}

relay_plan *core_plan_of(PyObject *obj)
{
    if (Py_IS_TYPE(obj, &core_plan_type)) return ((core_plan *)obj)->plan;
    PyErr_Format(PyExc_TypeError, "expected a plan handle, got %s", Py_TYPE(obj)->tp_name);
    return NULL;
}

PyObject *core_plan_result(relay_status st, relay_plan *p) { return st ? core_raise(st) : core_plan_wrap(p); }

/* ---- what every transform planner reads --------------------------------------- */

/* The pairs of a batch: count handles of each side and an op word each. */
typedef struct {
    Py_ssize_t count;
    const void **dst, **src;     /* relay_layout or relay_nd_layout */
    relay_op *ops;
    relay_type type;
    relay_plan_options opts;
    int *node_map;
} batch_args;

static void batch_args_free(batch_args *b)
{
    PyMem_Free(b->dst);
    PyMem_Free(b->src);
    PyMem_Free(b->ops);
    PyMem_Free(b->node_map);
}

/* options: (relabel, schedule, node_of_rank, inter_node_weight, max_buffer_bytes, replicas) */
static int batch_args_read(batch_args *b, int nranks, PyObject *dst, PyObject *src, PyObject *ops, PyObject *type,
                           PyObject *options, int nd)
{
    *b = (batch_args){0};
    PyObject *relabel, *schedule, *node_of_rank, *replicas;
    double weight;
    long long cap;
    if (!PyArg_ParseTuple(options, "OOOdLO", &relabel, &schedule, &node_of_rank, &weight, &cap, &replicas)) return -1;
    if (core_plan_options(&b->opts, relabel, schedule, node_of_rank, weight, cap, replicas, &b->node_map)) return -1;
    /* relay reads nranks entries of the node map: a shorter one would be read past its end */
    Py_ssize_t nodes = b->node_map ? PySequence_Size(node_of_rank) : 0;
    if (b->node_map && nodes != nranks) {
        core_argument_error("node_of_rank has %zd entries for a plan of %d ranks (one per rank)", nodes, nranks);
        return -1;
    }
    int t = core_word(type, cli_type_words, "type");
    if (t < 0) return -1;
    b->type = (relay_type)t;
    b->count = PySequence_Size(dst);
    if (b->count < 1 || b->count > INT32_MAX || PySequence_Size(src) != b->count || PySequence_Size(ops) != b->count) {
        PyErr_Clear();
        core_argument_error("a batch needs as many sources and ops as destinations, at least one");
        return -1;
    }
    b->dst = PyMem_Calloc((size_t)b->count, sizeof *b->dst);
    b->src = PyMem_Calloc((size_t)b->count, sizeof *b->src);
    b->ops = PyMem_Calloc((size_t)b->count, sizeof *b->ops);
    if (!b->dst || !b->src || !b->ops) return PyErr_NoMemory(), -1;
    for (Py_ssize_t k = 0; k < b->count; k++) {
        PyObject *d = PySequence_GetItem(dst, k), *s = PySequence_GetItem(src, k), *o = PySequence_GetItem(ops, k);
        int op = d && s && o ? core_word(o, cli_op_words, "op") : -1;
        if (op >= 0) {
            b->ops[k] = (relay_op)op;
            b->dst[k] = nd ? (const void *)core_nd_layout_of(d) : (const void *)core_layout_of(d);
            b->src[k] = b->dst[k] ? (nd ? (const void *)core_nd_layout_of(s) : (const void *)core_layout_of(s)) : NULL;
        }
        Py_XDECREF(d);
        Py_XDECREF(s);
        Py_XDECREF(o);
        if (op < 0 || !b->dst[k] || !b->src[k]) return -1;
    }
    return 0;
}

/* plan_transform(nranks, dsts, srcs, ops, type, options, rank): rank -1
 * plans every section, else that rank's alone. */
static PyObject *plan_transform(PyObject *self, PyObject *args)
{
    int nranks, rank;
    PyObject *dst, *src, *ops, *type, *options;
    if (!PyArg_ParseTuple(args, "iOOOOOi", &nranks, &dst, &src, &ops, &type, &options, &rank)) return NULL;
    batch_args b;
    relay_plan *p = NULL;
    relay_status st = RELAY_OK;
    if (!batch_args_read(&b, nranks, dst, src, ops, type, options, 0)) {
        const relay_layout *const *d = (const relay_layout *const *)b.dst, *const *s = (const relay_layout *const *)b.src;
        Py_BEGIN_ALLOW_THREADS
        st = rank < 0 ? relay_plan_transform_batch(&p, nranks, (int)b.count, d, s, b.ops, b.type, &b.opts)
                      : relay_plan_transform_rank(&p, rank, nranks, (int)b.count, d, s, b.ops, b.type, &b.opts);
        Py_END_ALLOW_THREADS
    }
    batch_args_free(&b);
    return PyErr_Occurred() ? NULL : core_plan_result(st, p);
}

/* plan_nd(nranks, dsts, srcs, ops, perms (each None or a sequence), type, options) */
static PyObject *plan_nd(PyObject *self, PyObject *args)
{
    int nranks;
    PyObject *dst, *src, *ops, *perms, *type, *options;
    if (!PyArg_ParseTuple(args, "iOOOOOO", &nranks, &dst, &src, &ops, &perms, &type, &options)) return NULL;
    batch_args b;
    relay_plan *p = NULL;
    relay_status st = RELAY_OK;
    int **perm = NULL;
    if (!batch_args_read(&b, nranks, dst, src, ops, type, options, 1) && (perm = PyMem_Calloc((size_t)b.count, sizeof *perm))) {
        int ok = PySequence_Size(perms) == b.count;
        if (!ok) core_argument_error("perms needs one entry (None or a permutation) per pair");
        for (Py_ssize_t k = 0; ok && k < b.count; k++) {
            PyObject *item = PySequence_GetItem(perms, k);
            Py_ssize_t n;
            perm[k] = item ? core_int_list(item, &n, "perm", 0, RELAY_ND_MAX_DIMS - 1, 1) : NULL;
            Py_XDECREF(item);
            ok = !PyErr_Occurred();
            if (ok && perm[k] && n != relay_nd_layout_ndims(b.dst[k])) {
                core_argument_error("perm of pair %zd has %zd entries for %d dimensions", k, n,
                                    relay_nd_layout_ndims(b.dst[k]));
                ok = 0;
            }
        }
        if (ok) {
            Py_BEGIN_ALLOW_THREADS
            st = relay_plan_nd_batch(&p, nranks, (int)b.count, (const relay_nd_layout *const *)b.dst,
                                     (const relay_nd_layout *const *)b.src, b.ops, (const int *const *)perm, b.type,
                                     &b.opts);
            Py_END_ALLOW_THREADS
        }
    } else if (!PyErr_Occurred()) PyErr_NoMemory();
    for (Py_ssize_t k = 0; perm && k < b.count; k++) PyMem_Free(perm[k]);
    PyMem_Free(perm);
    batch_args_free(&b);
    return PyErr_Occurred() ? NULL : core_plan_result(st, p);
}

/* ---- facts ------------------------------------------------------------------ */

static PyObject *plan_facts(PyObject *self, PyObject *h)
{
    relay_plan *p = core_plan_of(h);
    if (!p) return NULL;
    relay_plan_stats s;
    relay_plan_get_stats(p, &s);
    return Py_BuildValue("{s:i,s:s,s:s,s:i,s:K,s:s,s:i,s:L,s:{s:L,s:L,s:L,s:L,s:L}}", "nranks", relay_plan_nranks(p),
                         "kind", cli_kind_words[relay_plan_get_kind(p)], "type", cli_type_words[relay_plan_type(p)],
                         "count", relay_plan_count(p), "fingerprint", (unsigned long long)relay_plan_fingerprint(p),
                         "schedule", cli_schedule_words[relay_plan_schedule(p)], "rounds", relay_plan_rounds(p),
                         "max_buffer_bytes", (long long)relay_plan_max_buffer_bytes(p), "stats", "bytes_total",
                         (long long)s.bytes_total, "bytes_remote", (long long)s.bytes_remote, "bytes_remote_identity",
                         (long long)s.bytes_remote_identity, "messages", (long long)s.messages, "pieces",
                         (long long)s.pieces);
}

static PyObject *plan_relabeling(PyObject *self, PyObject *h)
{
    relay_plan *p = core_plan_of(h);
    if (!p) return NULL;
    int n = relay_plan_nranks(p);
    int *sigma = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *sigma);
    if (!sigma) return PyErr_NoMemory();
    relay_status st = relay_plan_relabeling(p, sigma);
    PyObject *t = NULL;
    if (st) core_raise(st);
    else {
        t = PyTuple_New(n);
        for (int r = 0; t && r < n; r++) {
            PyObject *x = PyLong_FromLong(sigma[r]);
            if (!x) Py_CLEAR(t);
            else PyTuple_SET_ITEM(t, r, x);
        }
    }
    PyMem_Free(sigma);
    return t;
}

/* plan_layout(h, is_dst, index): the pair's layout (the relabeled
 * destination), a 2-D or N-D handle that keeps the plan alive. */
static PyObject *plan_layout(PyObject *self, PyObject *args)
{
    PyObject *h;
    int is_dst, index;
    if (!PyArg_ParseTuple(args, "Opi", &h, &is_dst, &index)) return NULL;
    relay_plan *p = core_plan_of(h);
    if (!p) return NULL;
    if (relay_plan_get_kind(p) == RELAY_PLAN_ND) {
        const relay_nd_layout *l = is_dst ? relay_plan_nd_dst(p, index) : relay_plan_nd_src(p, index);
        if (l) return core_nd_layout_wrap((relay_nd_layout *)l, h);
    } else if (relay_plan_get_kind(p) == RELAY_PLAN_TRANSFORM) {
        const relay_layout *l = is_dst ? relay_plan_dst_layout(p, index) : relay_plan_src_layout(p, index);
        if (l) return core_layout_wrap((relay_layout *)l, h);
    }
    return core_argument_error("the plan has no %s layout %d (a %s plan of %d pairs)", is_dst ? "destination" : "source",
                               index, cli_kind_words[relay_plan_get_kind(p)], relay_plan_count(p));
}

static PyObject *plan_nd_perm(PyObject *self, PyObject *args)
{
    PyObject *h;
    int index;
    if (!PyArg_ParseTuple(args, "Oi", &h, &index)) return NULL;
    relay_plan *p = core_plan_of(h);
    if (!p) return NULL;
    int perm[RELAY_ND_MAX_DIMS];
    relay_status st = relay_plan_nd_perm(p, index, perm);
    if (st) return core_raise(st);
    PyObject *t = PyTuple_New(relay_nd_layout_ndims(relay_plan_nd_dst(p, index)));
    for (Py_ssize_t k = 0; t && k < PyTuple_GET_SIZE(t); k++) PyTuple_SET_ITEM(t, k, PyLong_FromLong(perm[k]));
    return t;
}

static PyObject *plan_buffer_elems(PyObject *self, PyObject *args)
{
    PyObject *h;
    int is_dst, index, rank;
    if (!PyArg_ParseTuple(args, "Opii", &h, &is_dst, &index, &rank)) return NULL;
    relay_plan *p = core_plan_of(h);
    if (!p) return NULL;
    int64_t n = relay_plan_buffer_elems(p, is_dst, index, rank);
    return n < 0 ? core_raise(RELAY_ERR_ARG) : PyLong_FromLongLong(n);
}

/* ---- tuning ------------------------------------------------------------------- */

/* None, or {ranks_per_node: (min, max), replays, best, choices: [(schedule, packed, forward, seconds, window)],
 * machine ("" unless predicted)} */
static PyObject *plan_tuning(PyObject *self, PyObject *h)
{
    relay_plan *p = core_plan_of(h);
    if (!p) return NULL;
    relay_tuning t;
    relay_status st = relay_plan_tuning(p, &t);
    if (st) return core_raise(st);
    if (!t.ntimed) return Py_NewRef(Py_None);
    PyObject *choices = PyList_New(t.ntimed);
    for (int i = 0; choices && i < t.ntimed; i++) {
        const relay_tuning_choice *c = &t.choices[i];
        PyObject *row = Py_BuildValue("(siidi)", cli_schedule_words[c->schedule], c->packed, c->forward, c->seconds, c->window);
        if (!row) Py_CLEAR(choices);
        else PyList_SET_ITEM(choices, i, row);
    }
    if (!choices) return NULL;
    return Py_BuildValue("{s:(ii),s:i,s:i,s:N,s:s}", "ranks_per_node", t.ranks_per_node_min, t.ranks_per_node_max,
                         "replays", t.replays, "best", t.best, "choices", choices, "machine", t.machine);
}

/* plan_set_tuning(h, None | (ranks_per_node_min, max, replays, best, [(schedule, packed, forward, seconds[, window])],
 * machine)) */
static PyObject *plan_set_tuning(PyObject *self, PyObject *args)
{
    PyObject *h, *tuning;
    if (!PyArg_ParseTuple(args, "OO", &h, &tuning)) return NULL;
    relay_plan *p = core_plan_of(h);
    if (!p) return NULL;
    relay_tuning t = {0};
    PyObject *choices;
    const char *machine = "";
    if (tuning != Py_None) {
        if (!PyArg_ParseTuple(tuning, "iiiiOs", &t.ranks_per_node_min, &t.ranks_per_node_max, &t.replays, &t.best,
                              &choices, &machine))
            return NULL;
        if (strlen(machine) >= sizeof t.machine)
            return core_argument_error("a tuning's machine name has at most %d bytes", (int)sizeof t.machine - 1);
        memcpy(t.machine, machine, strlen(machine));
        Py_ssize_t n = PySequence_Size(choices);
        if (n < 0 || n > RELAY_TUNING_MAX_CHOICES)
            return PyErr_Clear(), core_argument_error("a tuning holds 0 to %d choices", RELAY_TUNING_MAX_CHOICES);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *row = PySequence_GetItem(choices, i), *schedule;
            relay_tuning_choice *c = &t.choices[i];
            int ok = row && PyArg_ParseTuple(row, "Oiid|i", &schedule, &c->packed, &c->forward, &c->seconds, &c->window);
            Py_XDECREF(row);
            int s = ok ? core_word(schedule, cli_schedule_words, "schedule") : -1;
            if (s < 0) return NULL;
            c->schedule = (relay_schedule)s;
        }
        t.ntimed = (int)n;
    }
    relay_status st = relay_plan_set_tuning(p, tuning == Py_None ? NULL : &t);
    return st ? core_raise(st) : Py_NewRef(Py_None);
}

/* ---- algebra ----------------------------------------------------------------- */

static PyObject *plan_algebra(PyObject *args, relay_status (*two)(relay_plan **, const relay_plan *, const relay_plan *))
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b)) return NULL;
    relay_plan *x = core_plan_of(a), *y = x ? core_plan_of(b) : NULL, *out = NULL;
    if (!y) return NULL;
    relay_status st;
    Py_BEGIN_ALLOW_THREADS
    st = two(&out, x, y);
    Py_END_ALLOW_THREADS
    return core_plan_result(st, out);
}

static PyObject *plan_compose(PyObject *self, PyObject *args) { return plan_algebra(args, relay_plan_compose); }
static PyObject *plan_concat(PyObject *self, PyObject *args) { return plan_algebra(args, relay_plan_concat); }

static PyObject *plan_invert(PyObject *self, PyObject *h)
{
    relay_plan *p = core_plan_of(h), *out = NULL;
    if (!p) return NULL;
    relay_status st;
    Py_BEGIN_ALLOW_THREADS
    st = relay_plan_invert(&out, p);
    Py_END_ALLOW_THREADS
    return core_plan_result(st, out);
}

/* ---- files and bytes ----------------------------------------------------------- */

static PyObject *plan_save(PyObject *self, PyObject *args)
{
    PyObject *h, *path;
    if (!PyArg_ParseTuple(args, "OO&", &h, PyUnicode_FSConverter, &path)) return NULL;
    relay_plan *p = core_plan_of(h);
    relay_status st = RELAY_OK;
    if (p) {
        const char *s = PyBytes_AS_STRING(path);
        Py_BEGIN_ALLOW_THREADS
        st = relay_plan_save(p, s);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(path);
    if (!p) return NULL;
    return st ? core_raise(st) : Py_NewRef(Py_None);
}

static PyObject *plan_load(PyObject *self, PyObject *args)
{
    PyObject *path;
    int rank;
    if (!PyArg_ParseTuple(args, "O&i", PyUnicode_FSConverter, &path, &rank)) return NULL;
    relay_plan *p = NULL;
    relay_status st;
    const char *s = PyBytes_AS_STRING(path);
    Py_BEGIN_ALLOW_THREADS
    st = relay_plan_load(&p, s, rank);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    return core_plan_result(st, p);
}

static PyObject *plan_file_nranks(PyObject *self, PyObject *args)
{
    PyObject *path;
    if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path)) return NULL;
    int n = 0;
    relay_status st = relay_plan_file_nranks(PyBytes_AS_STRING(path), &n);
    Py_DECREF(path);
    return st ? core_raise(st) : PyLong_FromLong(n);
}

static PyObject *plan_encode(PyObject *self, PyObject *h)
{
    relay_plan *p = core_plan_of(h);
    if (!p) return NULL;
    void *buf = NULL;
    size_t len = 0;
    relay_status st;
    Py_BEGIN_ALLOW_THREADS
    st = relay_plan_encode(p, &buf, &len);
    Py_END_ALLOW_THREADS
    if (st) return core_raise(st);
    PyObject *bytes = PyBytes_FromStringAndSize(buf, (Py_ssize_t)len);
    free(buf);
    return bytes;
}

/* plan_decode(buffer, rank): any object with the buffer protocol. */
static PyObject *plan_decode(PyObject *self, PyObject *args)
{
    Py_buffer view;
    int rank;
    if (!PyArg_ParseTuple(args, "y*i", &view, &rank)) return NULL;
    relay_plan *p = NULL;
    relay_status st;
    Py_BEGIN_ALLOW_THREADS
    st = relay_plan_decode(&p, view.buf, (size_t)view.len, rank);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return core_plan_result(st, p);
}

PyMethodDef core_plan_methods[] = {
    {"plan_transform", plan_transform, METH_VARARGS, NULL},
    {"plan_nd", plan_nd, METH_VARARGS, NULL},
    {"plan_facts", plan_facts, METH_O, NULL},
    {"plan_relabeling", plan_relabeling, METH_O, NULL},
    {"plan_layout", plan_layout, METH_VARARGS, NULL},
    {"plan_nd_perm", plan_nd_perm, METH_VARARGS, NULL},
    {"plan_buffer_elems", plan_buffer_elems, METH_VARARGS, NULL},
    {"plan_tuning", plan_tuning, METH_O, NULL},
    {"plan_set_tuning", plan_set_tuning, METH_VARARGS, NULL},
    {"plan_compose", plan_compose, METH_VARARGS, NULL},
    {"plan_concat", plan_concat, METH_VARARGS, NULL},
    {"plan_invert", plan_invert, METH_O, NULL},
    {"plan_save", plan_save, METH_VARARGS, NULL},
    {"plan_load", plan_load, METH_VARARGS, NULL},
    {"plan_file_nranks", plan_file_nranks, METH_VARARGS, NULL},
    {"plan_encode", plan_encode, METH_O, NULL},
    {"plan_decode", plan_decode, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
