/* algorithms.c — the plans of relay's two algorithms for Python: BMMC
 * permutations (relay/bmmc.h: the standard ones, composition, inverse,
 * planning and a plan's factors) and SUMMA/HSUMMA products (relay/hsumma.h:
 * parameters, planning, the cost model, a plan's facts and layouts).
 * A permutation travels as (n, columns, complement), HSUMMA parameters as
 * the tuple hsumma_params_read reads. */
/* Python.h first, as CPython requires. */
#include "core.h"

#include <string.h>

#include "words.h"

/* ---- BMMC permutations ------------------------------------------------------- */

static int bmmc_read(PyObject *obj, relay_bmmc *b)
{
    PyObject *columns;
    unsigned long long c;
    memset(b, 0, sizeof *b);
    if (!PyArg_ParseTuple(obj, "iOK", &b->n, &columns, &c)) return -1;
    Py_ssize_t n;
    int64_t *cols = core_int64_list(columns, &n, "columns", 0);
    if (!cols) return -1;
    int ok = b->n >= 1 && b->n <= RELAY_BMMC_MAX_BITS && n == b->n;
    if (!ok) core_argument_error("a BMMC permutation of n = %d bits (1 to %d) needs n columns, not %zd", b->n,
                                 RELAY_BMMC_MAX_BITS, n);
    for (Py_ssize_t j = 0; ok && j < n; j++) b->columns[j] = (uint64_t)cols[j];
    b->complement = c;
    PyMem_Free(cols);
    return ok ? 0 : -1;
}

static PyObject *bmmc_build(const relay_bmmc *b)
{
    PyObject *cols = PyTuple_New(b->n);
    for (int j = 0; cols && j < b->n; j++) PyTuple_SET_ITEM(cols, j, PyLong_FromUnsignedLongLong(b->columns[j]));
    return cols ? Py_BuildValue("iNK", b->n, cols, (unsigned long long)b->complement) : NULL;
}

static PyObject *bmmc_result(relay_status st, const relay_bmmc *b) { return st ? core_raise(st) : bmmc_build(b); }

/* bmmc_standard(name, n[, cols_log]): the standard permutations. */
static PyObject *bmmc_standard(PyObject *self, PyObject *args)
{
    const char *name;
    int n, second = -1;
    if (!PyArg_ParseTuple(args, "si|i", &name, &n, &second)) return NULL;
    static const struct {
        const char *name;
        relay_status (*make)(relay_bmmc *, int);
    } one_arg[] = {
        {"identity", relay_bmmc_identity}, {"bit_reversal", relay_bmmc_bit_reversal},
        {"vector_reversal", relay_bmmc_vector_reversal}, {"gray_code", relay_bmmc_gray_code},
        {"shuffle", relay_bmmc_shuffle}, {"unshuffle", relay_bmmc_unshuffle},
    };
    relay_bmmc b;
    if (strcmp(name, "transpose") == 0) return bmmc_result(relay_bmmc_transpose(&b, n, second), &b);
    for (size_t i = 0; i < sizeof one_arg / sizeof *one_arg; i++)
        if (strcmp(name, one_arg[i].name) == 0) return bmmc_result(one_arg[i].make(&b, n), &b);
    return core_argument_error("no standard BMMC permutation %s", name);
}

static PyObject *bmmc_compose(PyObject *self, PyObject *args)
{
    PyObject *x, *y;
    relay_bmmc a, b, out;
    if (!PyArg_ParseTuple(args, "OO", &x, &y) || bmmc_read(x, &a) || bmmc_read(y, &b)) return NULL;
    return bmmc_result(relay_bmmc_compose(&out, &a, &b), &out);
}

static PyObject *bmmc_inverse(PyObject *self, PyObject *x)
{
    relay_bmmc a, out;
    if (bmmc_read(x, &a)) return NULL;
    return bmmc_result(relay_bmmc_inverse(&out, &a), &out);
}

static PyObject *bmmc_apply(PyObject *self, PyObject *args)
{
    PyObject *x;
    unsigned long long index;
    relay_bmmc a;
    if (!PyArg_ParseTuple(args, "OK", &x, &index) || bmmc_read(x, &a)) return NULL;
    if (a.n < 64 && index >> a.n) return core_argument_error("index %llu has more than n = %d bits", index, a.n);
    return PyLong_FromUnsignedLongLong(relay_bmmc_apply(&a, index));
}

static PyObject *plan_bmmc(PyObject *self, PyObject *args)
{
    PyObject *x;
    int p, f;
    Py_ssize_t elem_size;
    relay_bmmc a;
    if (!PyArg_ParseTuple(args, "Oiin", &x, &p, &f, &elem_size) || bmmc_read(x, &a)) return NULL;
    if (elem_size < 1) return core_argument_error("elements of %zd bytes", elem_size);
    relay_plan *plan = NULL;
    relay_status st;
    Py_BEGIN_ALLOW_THREADS
    st = relay_plan_bmmc(&plan, &a, p, f, (size_t)elem_size);
    Py_END_ALLOW_THREADS
    return core_plan_result(st, plan);
}

static PyObject *plan_bmmc_info(PyObject *self, PyObject *h)
{
    relay_plan *p = core_plan_of(h);
    if (!p) return NULL;
    relay_bmmc_info info;
    relay_status st = relay_plan_bmmc_info(p, &info);
    if (st) return core_raise(st);
    return Py_BuildValue("{s:i,s:i,s:i,s:n,s:i,s:N,s:N,s:N}", "n", info.n, "p", info.p, "f", info.f, "elem_size",
                         (Py_ssize_t)info.elem_size, "rank", info.rank, "perm", bmmc_build(&info.perm), "v",
                         bmmc_build(&info.v), "w", bmmc_build(&info.w));
}

/* ---- SUMMA and HSUMMA ---------------------------------------------------------- */

static const char *const dist_words[] = {"checkerboard", "block_cyclic", NULL};
static const char *const groups_from_words[] = {"given", "model", "at_bind", "autotune", NULL};

static int network_read(PyObject *obj, relay_hsumma_network *net)
{
    PyObject *bcast;
    if (!PyArg_ParseTuple(obj, "ddO", &net->alpha, &net->beta, &bcast)) return -1;
    int b = core_word(bcast, cli_bcast_words, "bcast");
    net->bcast = (relay_bcast_model)b;
    return b < 0 ? -1 : 0;
}

static PyObject *network_build(const relay_hsumma_network *net)
{
    return Py_BuildValue("(dds)", net->alpha, net->beta, cli_bcast_words[net->bcast]);
}

/* (m, n, k, grid_rows, grid_cols, group_rows, group_cols, inner_block,
 *  outer_block, dist, dist_block, type, (alpha, beta, bcast)) */
static int hsumma_params_read(PyObject *obj, relay_hsumma_params *p)
{
    PyObject *dist, *type, *net;
    memset(p, 0, sizeof *p);
    if (!PyArg_ParseTuple(obj, "LLLiiiiLLOLOO", &p->m, &p->n, &p->k, &p->grid_rows, &p->grid_cols, &p->group_rows,
                          &p->group_cols, &p->inner_block, &p->outer_block, &dist, &p->dist_block, &type, &net))
        return -1;
    int d = core_word(dist, dist_words, "dist");
    int t = d < 0 ? -1 : core_word(type, cli_type_words, "type");
    if (t < 0 || network_read(net, &p->network)) return -1;
    p->dist = (relay_hsumma_dist)d;
    p->type = (relay_type)t;
    return 0;
}

static PyObject *hsumma_params_build(const relay_hsumma_params *p)
{
    return Py_BuildValue("{s:L,s:L,s:L,s:i,s:i,s:i,s:i,s:L,s:L,s:s,s:L,s:s,s:N}", "m", (long long)p->m, "n",
                         (long long)p->n, "k", (long long)p->k, "grid_rows", p->grid_rows, "grid_cols", p->grid_cols,
                         "group_rows", p->group_rows, "group_cols", p->group_cols, "inner_block",
                         (long long)p->inner_block, "outer_block", (long long)p->outer_block, "dist",
                         dist_words[p->dist], "dist_block", (long long)p->dist_block, "type", cli_type_words[p->type],
                         "network", network_build(&p->network));
}

static PyObject *plan_hsumma(PyObject *self, PyObject *obj)
{
    relay_hsumma_params params;
    if (hsumma_params_read(obj, &params)) return NULL;
    relay_plan *p = NULL;
    relay_status st;
    Py_BEGIN_ALLOW_THREADS
    st = relay_plan_hsumma(&p, &params);
    Py_END_ALLOW_THREADS
    return core_plan_result(st, p);
}

static PyObject *plan_hsumma_info(PyObject *self, PyObject *h)
{
    relay_plan *p = core_plan_of(h);
    if (!p) return NULL;
    relay_hsumma_info info;
    relay_status st = relay_plan_hsumma_info(p, &info);
    if (st) return core_raise(st);
    return Py_BuildValue("{s:N,s:s,s:L,s:L}", "params", hsumma_params_build(&info.params), "groups_from",
                         groups_from_words[info.groups_from], "outer_steps", (long long)info.outer_steps, "inner_steps",
                         (long long)info.inner_steps);
}

static PyObject *plan_hsumma_layout(PyObject *self, PyObject *args)
{
    PyObject *h;
    int which;
    if (!PyArg_ParseTuple(args, "Oi", &h, &which)) return NULL;
    relay_plan *p = core_plan_of(h);
    if (!p) return NULL;
    relay_layout *l;
    relay_status st = relay_plan_hsumma_layout(p, which, &l);
    return st ? core_raise(st) : core_layout_wrap(l, NULL);
}

/* hsumma_model(params, group_rows, group_cols, network) -> (seconds, latency, bandwidth) */
static PyObject *hsumma_model(PyObject *self, PyObject *args)
{
    PyObject *params, *net;
    int rows, cols;
    relay_hsumma_params p;
    relay_hsumma_network n;
    if (!PyArg_ParseTuple(args, "OiiO", &params, &rows, &cols, &net) || hsumma_params_read(params, &p) ||
        network_read(net, &n))
        return NULL;
    double seconds, latency, bandwidth;
    relay_status st = relay_hsumma_model(&p, rows, cols, &n, &seconds, &latency, &bandwidth);
    return st ? core_raise(st) : Py_BuildValue("(ddd)", seconds, latency, bandwidth);
}

static PyObject *hsumma_best_groups(PyObject *self, PyObject *args)
{
    PyObject *params, *net;
    relay_hsumma_params p;
    relay_hsumma_network n;
    if (!PyArg_ParseTuple(args, "OO", &params, &net) || hsumma_params_read(params, &p) || network_read(net, &n))
        return NULL;
    int rows, cols;
    relay_status st = relay_hsumma_best_groups(&p, &n, &rows, &cols);
    return st ? core_raise(st) : Py_BuildValue("(ii)", rows, cols);
}

PyMethodDef core_algorithms_methods[] = {
    {"bmmc_standard", bmmc_standard, METH_VARARGS, NULL},
    {"bmmc_compose", bmmc_compose, METH_VARARGS, NULL},
    {"bmmc_inverse", bmmc_inverse, METH_O, NULL},
    {"bmmc_apply", bmmc_apply, METH_VARARGS, NULL},
    {"plan_bmmc", plan_bmmc, METH_VARARGS, NULL},
    {"plan_bmmc_info", plan_bmmc_info, METH_O, NULL},
    {"plan_hsumma", plan_hsumma, METH_O, NULL},
    {"plan_hsumma_info", plan_hsumma_info, METH_O, NULL},
    {"plan_hsumma_layout", plan_hsumma_layout, METH_VARARGS, NULL},
    {"hsumma_model", hsumma_model, METH_VARARGS, NULL},
    {"hsumma_best_groups", hsumma_best_groups, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
