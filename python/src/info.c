/* info.c — a plan's inspection for Python: exactly what
 * `relay-dump FILE --json [--rank R] [--limit N]` prints, rendered by
 * relay-dump's own views into memory, and the rank-to-rank volumes its
 * --svg heat map draws. */
/* Python.h first, as CPython requires. */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>

#include "dump.h"

/* Raises relay.errors.ArgumentError (a usage error of the request) or
 * FormatError (the plan) with the views' message. */
static PyObject *raise_dump_error(const cli_error *e)
{
    return core_raise(rl_fail(e->status == CLI_USAGE ? RELAY_ERR_ARG : RELAY_ERR_FORMAT, "%s", e->msg));
}

/* plan_info_json(h, rank, limit) -> str: rank -1 for the whole plan. */
static PyObject *plan_info_json(PyObject *self, PyObject *args)
{
    PyObject *h;
    int rank;
    long long limit;
    if (!PyArg_ParseTuple(args, "OiL", &h, &rank, &limit)) return NULL;
    relay_plan *p = core_plan_of(h);
    if (!p) return NULL;
    if (rank >= relay_plan_nranks(p))
        return core_argument_error("rank %d: the plan has ranks 0 to %d", rank, relay_plan_nranks(p) - 1);
    if (limit < 0) return core_argument_error("limit %lld is negative (0: every entry)", limit);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out) return PyErr_NoMemory();
    dump_request r = {.path = "(in memory)", .json = 1, .rank = rank, .limit = limit, .out = out};
    cli_error e = {0};
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = dump_plan(&r, p, &e);
    Py_END_ALLOW_THREADS
    int write_failed = fclose(out);
    PyObject *result = status ? raise_dump_error(&e)
                       : write_failed ? PyErr_NoMemory() : PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "strict");
    free(text);
    return result;
}

/* plan_volumes(h) -> (nranks, nbins, bin_ranks, bytes): the heat map's
 * matrix, bytes as nbins * nbins doubles (sender rows, receiver columns). */
static PyObject *plan_volumes(PyObject *self, PyObject *h)
{
    relay_plan *p = core_plan_of(h);
    if (!p) return NULL;
    volume_matrix m;
    cli_error e = {0};
    if (dump_volume_matrix(p, &m, &e)) return raise_dump_error(&e);
    PyObject *bytes = PyBytes_FromStringAndSize((const char *)m.bytes, (Py_ssize_t)m.nbins * m.nbins * (Py_ssize_t)sizeof(double));
    PyObject *result = bytes ? Py_BuildValue("iiiN", m.nranks, m.nbins, m.bin_ranks, bytes) : NULL;
    volume_matrix_free(&m);
    return result;
}

PyMethodDef core_info_methods[] = {
    {"plan_info_json", plan_info_json, METH_VARARGS, NULL},
    {"plan_volumes", plan_volumes, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};
