/* executor.c — relay's executors for Python (relay/exec.h): binding a plan
 * to an mpi4py communicator, replays over buffers of the buffer protocol
 * with the GIL released while relay packs, waits and unpacks, split-phase
 * replays that hold their buffers until wait, timings, tuning and the
 * HSUMMA measurements.
 *
 * Communicators arrive as their Fortran handles (mpi4py's Comm.py2f()),
 * which every MPI converts back with MPI_Comm_f2c: relay._core needs no
 * mpi4py header and works with any object that has py2f.
 *
 * Memory kinds (relay_exec_create_with): an executor binds host memory
 * (buffers of the buffer protocol) or CUDA memory (device arrays with
 * __cuda_array_interface__, buffers.h), with a stream given as its handle
 * (an integer: the Python half reads CuPy's, PyTorch's and the CUDA stream
 * protocol's) and a transport.
 *
 * Thread rules: one executor serves one call at a time; a second thread's
 * call while one runs is refused (RuntimeError) rather than raced. */
#include "buffers.h"
#include "core.h"
#include "words.h"

typedef struct {
    PyObject_HEAD
    relay_exec *exec;
    buffer_slots slots;
    buffer_views held;       /* a split-phase replay's buffers, from start to wait */
    int in_flight;           /* between start and wait */
    int busy;                /* a call runs with the GIL released */
} core_exec;

/* Frees the executor after its replay in flight, if any, and lets go of
 * the buffers.  After MPI_Finalize nothing can be freed through MPI: the
 * executor is left to the process's end (relay.Executor closes its
 * executors before mpi4py finalizes). */
static void exec_release(core_exec *h)
{
    int finalized = 1;
    MPI_Finalized(&finalized);
    if (h->exec && !finalized) {
        if (h->in_flight) relay_exec_wait(h->exec);
        relay_exec_free(h->exec);
    }
    h->exec = NULL;
    h->in_flight = 0;
    buffer_views_release(&h->held, &h->slots);
}

static void exec_dealloc(PyObject *self)
{
    core_exec *h = (core_exec *)self;
    exec_release(h);
    buffer_slots_free(&h->slots);
    Py_TYPE(self)->tp_free(self);
}

PyTypeObject core_exec_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "relay._core.ExecutorHandle",
    .tp_basicsize = sizeof(core_exec),
    .tp_dealloc = exec_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A relay_exec.",
};

/* The communicator of a Fortran handle; -1 with an exception when MPI is
 * not running. */
static int comm_of(long long handle, MPI_Comm *comm)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized) {
        core_raise(rl_fail(RELAY_ERR_MPI, "MPI is %s: import mpi4py.MPI before binding or tuning a plan",
                           finalized ? "finalized" : "not initialized"));
        return -1;
    }
    *comm = MPI_Comm_f2c((MPI_Fint)handle);
    return 0;
}

static core_exec *exec_of(PyObject *obj)
{
    if (!Py_IS_TYPE(obj, &core_exec_type)) {
        PyErr_Format(PyExc_TypeError, "expected an executor handle, got %s", Py_TYPE(obj)->tp_name);
        return NULL;
    }
    core_exec *h = (core_exec *)obj;
    if (!h->exec) return (core_exec *)core_argument_error("the executor is closed");
    if (h->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the executor is in use by another thread: one call at a time");
        return NULL;
    }
    return h;
}

/* relay_memory and relay_transport by index. */
static const char *const memory_words[] = {"host", "cuda", NULL};
static const char *const transport_words[] = {"auto", "staged", "direct", NULL};

/* The options of exec_create's words and stream handle; -1 with an
 * exception (ArgumentError naming the words allowed). */
static int exec_options_of(relay_exec_options *opt, PyObject *memory, PyObject *stream, PyObject *transport)
{
    *opt = (relay_exec_options)RELAY_EXEC_OPTIONS_INIT;
    int m = core_word(memory, memory_words, "memory");
    int t = m < 0 ? -1 : core_word(transport, transport_words, "transport");
    if (m < 0 || t < 0) return -1;
    unsigned long long handle = 0;
    if (stream != Py_None) {
        handle = PyLong_Check(stream) ? PyLong_AsUnsignedLongLong(stream) : (unsigned long long)-1;
        if ((handle == (unsigned long long)-1 && (PyErr_Occurred() || !PyLong_Check(stream))) || handle > UINTPTR_MAX) {
            PyErr_Clear();
            core_argument_error("stream must be a CUDA stream handle (a non-negative integer of a pointer's size) or "
                                "None, not %R", stream);
            return -1;
        }
    }
    opt->memory = (relay_memory)m;
    opt->stream = (void *)(uintptr_t)handle;
    opt->transport = (relay_transport)t;
    return 0;
}

/* exec_create(plan, comm_f2c_handle, memory word, stream handle or None, transport word) */
static PyObject *exec_create(PyObject *self, PyObject *args)
{
    PyObject *plan_obj, *memory, *stream, *transport;
    long long handle;
    if (!PyArg_ParseTuple(args, "OLOOO", &plan_obj, &handle, &memory, &stream, &transport)) return NULL;
    relay_exec_options opt;
    if (exec_options_of(&opt, memory, stream, transport)) return NULL;
    relay_plan *p = core_plan_of(plan_obj);
    MPI_Comm comm;
    if (!p || comm_of(handle, &comm)) return NULL;
    int rank;
    MPI_Comm_rank(comm, &rank);
    core_exec *h = PyObject_New(core_exec, &core_exec_type);
    if (!h) return NULL;
    h->exec = NULL;
    h->held = (buffer_views){0};
    h->in_flight = h->busy = 0;
    /* Binding is collective: a rank that cannot size its buffers (out of
     * memory, or a rank the plan does not have, which binding refuses on
     * every rank) still joins relay_exec_create. */
    int sized = rank < relay_plan_nranks(p) && !buffer_slots_init(&h->slots, p, rank);
    if (!sized) {
        PyErr_Clear();
        h->slots = (buffer_slots){0};
    }
    h->slots.memory = opt.memory;
    relay_status st;
    Py_BEGIN_ALLOW_THREADS
    st = relay_exec_create_with(&h->exec, p, comm, &opt);
    Py_END_ALLOW_THREADS
    if (!st && !sized) {
        relay_exec_free(h->exec);
        h->exec = NULL;
        st = rl_fail(RELAY_ERR_NOMEM, "rank %d cannot size its buffers for this plan", rank);
    }
    if (st) {
        Py_DECREF(h);
        return core_raise(st);
    }
    return (PyObject *)h;
}

/* A replay whose buffers or scalars this rank refuses (BufferMismatch,
 * ArgumentError, already raised) still takes part in the exchange, as a
 * start the C API refuses for its arguments does: relay_exec_start with
 * NULL arrays is refused and replays once over NaN buffers of relay's own
 * (stand_in.c), touching none of the caller's, so that the other ranks
 * complete instead of waiting for ever for this rank's messages.  The
 * pending exception is kept. */
static PyObject *exec_refused(core_exec *h)
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    h->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    relay_exec_start(h->exec, NULL, NULL, NULL, NULL);
    Py_END_ALLOW_THREADS
    h->busy = 0;
    PyErr_Restore(type, value, traceback);
    return NULL;
}

/* One replay or its start: reads the buffers and scalars, then calls
 * `call` with the GIL released.  Split-phase (keep) holds the views. */
static PyObject *exec_replay(PyObject *args, int keep,
                             relay_status (*call)(relay_exec *, void *const *, const void *const *, const void *,
                                                  const void *))
{
    PyObject *obj, *dst, *src, *alpha_obj, *beta_obj;
    if (!PyArg_ParseTuple(args, "OOOOO", &obj, &dst, &src, &alpha_obj, &beta_obj)) return NULL;
    core_exec *h = exec_of(obj);
    if (!h) return NULL;
    if (h->in_flight) return core_argument_error("a replay is in flight: wait() for it first");
    unsigned char alpha[16], beta[16];
    int has_alpha, has_beta;
    buffer_views v;
    relay_type type = h->slots.type;
    if (core_scalar(alpha_obj, type, alpha, &has_alpha, "alpha") || core_scalar(beta_obj, type, beta, &has_beta, "beta") ||
        buffer_views_get(&v, &h->slots, dst, src))
        return exec_refused(h);
    relay_status st;
    h->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    st = call(h->exec, v.dst, v.src, has_alpha ? alpha : NULL, has_beta ? beta : NULL);
    Py_END_ALLOW_THREADS
    h->busy = 0;
    if (keep && !st) {
        h->held = v;
        h->in_flight = 1;
    } else buffer_views_release(&v, &h->slots);
    return st ? core_raise(st) : Py_NewRef(Py_None);
}

static PyObject *exec_run(PyObject *self, PyObject *args) { return exec_replay(args, 0, relay_exec_run); }
static PyObject *exec_start(PyObject *self, PyObject *args) { return exec_replay(args, 1, relay_exec_start); }

static PyObject *exec_wait(PyObject *self, PyObject *obj)
{
    core_exec *h = exec_of(obj);
    if (!h) return NULL;
    if (!h->in_flight) return core_argument_error("no replay is in flight: start() one first");
    relay_status st;
    h->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    st = relay_exec_wait(h->exec);
    Py_END_ALLOW_THREADS
    h->busy = 0;
    h->in_flight = 0;
    buffer_views_release(&h->held, &h->slots);
    return st ? core_raise(st) : Py_NewRef(Py_None);
}

static PyObject *exec_in_flight(PyObject *self, PyObject *obj)
{
    core_exec *h = exec_of(obj);
    return h ? PyBool_FromLong(h->in_flight) : NULL;
}

/* exec_close(h): frees the executor (collective), after its replay. */
static PyObject *exec_close(PyObject *self, PyObject *obj)
{
    if (!Py_IS_TYPE(obj, &core_exec_type)) return PyErr_Format(PyExc_TypeError, "expected an executor handle");
    core_exec *h = (core_exec *)obj;
    if (h->busy) return PyErr_Format(PyExc_RuntimeError, "the executor is in use by another thread");
    exec_release(h);
    return Py_NewRef(Py_None);
}

/* exec_slots(h) -> ((dst elems...), (src elems...), itemsize, dtype name) */
static PyObject *exec_slots(PyObject *self, PyObject *obj)
{
    core_exec *h = exec_of(obj);
    if (!h) return NULL;
    PyObject *d = PyTuple_New(h->slots.ndst), *s = PyTuple_New(h->slots.nsrc);
    for (int k = 0; d && s && k < h->slots.ndst + h->slots.nsrc; k++) {
        PyObject *x = PyLong_FromLongLong(h->slots.elems[k]);
        if (k < h->slots.ndst) PyTuple_SET_ITEM(d, k, x);
        else PyTuple_SET_ITEM(s, k - h->slots.ndst, x);
    }
    return Py_BuildValue("NNns", d, s, (Py_ssize_t)h->slots.itemsize, h->slots.dtype);
}

static PyObject *exec_memory(PyObject *self, PyObject *obj)
{
    core_exec *h = exec_of(obj);
    if (!h) return NULL;
    relay_exec_memory m;
    relay_status st = relay_exec_get_memory(h->exec, &m);
    return st ? core_raise(st) : Py_BuildValue("LL", (long long)m.extra_bytes, (long long)m.remote_bytes);
}

static PyObject *exec_schedule(PyObject *self, PyObject *obj)
{
    core_exec *h = exec_of(obj);
    if (!h) return NULL;
    relay_schedule s;
    int packed;
    relay_status st = relay_exec_schedule(h->exec, &s, &packed);
    return st ? core_raise(st) : Py_BuildValue("si", cli_schedule_words[s], packed);
}

/* check_buffers(plan, rank, memory word, dst, src) -> ((dst addresses), (src addresses)):
 * the checks a replay of an executor of that memory kind makes on `rank`,
 * without MPI or an executor (the tests' view of device arrays where no
 * GPU is). */
static PyObject *check_buffers(PyObject *self, PyObject *args)
{
    PyObject *plan_obj, *memory, *dst, *src;
    int rank;
    if (!PyArg_ParseTuple(args, "OiOOO", &plan_obj, &rank, &memory, &dst, &src)) return NULL;
    relay_plan *p = core_plan_of(plan_obj);
    int m = p ? core_word(memory, memory_words, "memory") : -1;
    if (m < 0) return NULL;
    if (rank < 0 || rank >= relay_plan_nranks(p)) return core_argument_error("rank %d is not in the plan", rank);
    buffer_slots slots;
    if (buffer_slots_init(&slots, p, rank)) return NULL;
    slots.memory = (relay_memory)m;
    buffer_views v;
    PyObject *out = NULL;
    if (!buffer_views_get(&v, &slots, dst, src)) {
        PyObject *d = PyTuple_New(slots.ndst), *r = PyTuple_New(slots.nsrc);
        for (int k = 0; d && r && k < slots.ndst + slots.nsrc; k++) {
            PyObject *x = PyLong_FromVoidPtr(k < slots.ndst ? v.dst[k] : (void *)v.src[k - slots.ndst]);
            PyTuple_SET_ITEM(k < slots.ndst ? d : r, k < slots.ndst ? k : k - slots.ndst, x);
        }
        out = d && r ? PyTuple_Pack(2, d, r) : NULL;
        Py_XDECREF(d);
        Py_XDECREF(r);
        buffer_views_release(&v, &slots);
    }
    buffer_slots_free(&slots);
    return out;
}

/* exec_options(h) -> (memory word, stream handle, transport word), as bound */
static PyObject *exec_options(PyObject *self, PyObject *obj)
{
    core_exec *h = exec_of(obj);
    if (!h) return NULL;
    relay_exec_options o;
    relay_status st = relay_exec_options_get(h->exec, &o);
    if (st) return core_raise(st);
    if ((unsigned)o.memory > RELAY_MEMORY_CUDA || (unsigned)o.transport > RELAY_TRANSPORT_DIRECT)
        return PyErr_Format(PyExc_RuntimeError, "relay_exec_options_get: unknown memory kind %d or transport %d",
                            (int)o.memory, (int)o.transport);
    return Py_BuildValue("sNs", memory_words[o.memory], PyLong_FromVoidPtr(o.stream), transport_words[o.transport]);
}

/* memory_supported(word) -> bool */
static PyObject *memory_supported(PyObject *self, PyObject *obj)
{
    int m = core_word(obj, memory_words, "memory");
    if (m < 0) return NULL;
    int yes = 0;
    relay_status st = relay_memory_supported((relay_memory)m, &yes);
    return st ? core_raise(st) : PyBool_FromLong(yes);
}

/* The MPI library this module is compiled against, named from its mpi.h
 * (relay/comms.py compares it with mpi4py's).  Not asked of MPI at
 * run time: MPI_Get_library_version could resolve to the library another
 * module loaded first, the very mix-up the comparison is there to catch. */
#if defined(OMPI_MAJOR_VERSION)
#define CORE_MPI_LIBRARY \
    "Open MPI " Py_STRINGIFY(OMPI_MAJOR_VERSION) "." Py_STRINGIFY(OMPI_MINOR_VERSION) "." Py_STRINGIFY(OMPI_RELEASE_VERSION)
#elif defined(MPICH_VERSION)
#define CORE_MPI_LIBRARY "MPICH " MPICH_VERSION
#else
#define CORE_MPI_LIBRARY "an MPI-" Py_STRINGIFY(MPI_VERSION) "." Py_STRINGIFY(MPI_SUBVERSION) " library"
#endif

/* mpi_library() -> str */
static PyObject *mpi_library(PyObject *self, PyObject *unused)
{
    return PyUnicode_FromString(CORE_MPI_LIBRARY);
}

static PyObject *exec_time(PyObject *self, PyObject *args)
{
    PyObject *obj;
    int on;
    if (!PyArg_ParseTuple(args, "Op", &obj, &on)) return NULL;
    core_exec *h = exec_of(obj);
    if (!h) return NULL;
    if (h->in_flight) return core_argument_error("a replay is in flight: wait() for it first");
    relay_status st = relay_exec_time(h->exec, on);
    return st ? core_raise(st) : Py_NewRef(Py_None);
}

/* exec_set_deadline(h, seconds): relay_exec_set_deadline (0: none). */
static PyObject *exec_set_deadline(PyObject *self, PyObject *args)
{
    PyObject *obj;
    double seconds;
    if (!PyArg_ParseTuple(args, "Od", &obj, &seconds)) return NULL;
    core_exec *h = exec_of(obj);
    if (!h) return NULL;
    if (h->in_flight) return core_argument_error("a replay is in flight: wait() for it first");
    relay_status st = relay_exec_set_deadline(h->exec, seconds);
    return st ? core_raise(st) : Py_NewRef(Py_None);
}

static const char *const timing_words[] = {"send", "recv", "local", "completion", NULL};

/* exec_timings(h) -> (replays, [(kind, peer, bytes, pack_s, wait_s, unpack_s)]) */
static PyObject *exec_timings(PyObject *self, PyObject *obj)
{
    core_exec *h = exec_of(obj);
    if (!h) return NULL;
    int64_t replays;
    int count = 0;
    relay_status st = relay_exec_timings(h->exec, &replays, NULL, &count);
    if (st) return core_raise(st);
    relay_exec_timing *rows = PyMem_Calloc((size_t)(count ? count : 1), sizeof *rows);
    if (!rows) return PyErr_NoMemory();
    st = relay_exec_timings(h->exec, &replays, rows, &count);
    PyObject *list = st ? core_raise(st) : PyList_New(count);
    for (int i = 0; list && i < count; i++) {
        const relay_exec_timing *r = &rows[i];
        PyObject *row = Py_BuildValue("(siLddd)", timing_words[r->kind], r->peer, (long long)r->bytes, r->pack_s,
                                      r->wait_s, r->unpack_s);
        if (!row) Py_CLEAR(list);
        else PyList_SET_ITEM(list, i, row);
    }
    PyMem_Free(rows);
    return list ? Py_BuildValue("LN", (long long)replays, list) : NULL;
}

static PyObject *exec_hsumma_report(PyObject *self, PyObject *obj)
{
    core_exec *h = exec_of(obj);
    if (!h) return NULL;
    relay_hsumma_report r;
    relay_status st = relay_exec_hsumma_report(h->exec, &r);
    if (st) return core_raise(st);
    return Py_BuildValue("{s:(ii),s:(dds),s:d,s:d}", "groups", r.group_rows, r.group_cols, "measured",
                         r.measured.alpha, r.measured.beta, cli_bcast_words[r.measured.bcast], "comm_seconds",
                         r.comm_seconds, "compute_seconds", r.compute_seconds);
}

/* ---- collective measurements: tuning and HSUMMA's network ------------------ */

static PyObject *exec_tune(PyObject *self, PyObject *args)
{
    PyObject *plan_obj;
    long long handle;
    int replays;
    if (!PyArg_ParseTuple(args, "OLi", &plan_obj, &handle, &replays)) return NULL;
    relay_plan *p = core_plan_of(plan_obj);
    MPI_Comm comm;
    if (!p || comm_of(handle, &comm)) return NULL;
    relay_status st;
    Py_BEGIN_ALLOW_THREADS
    st = relay_exec_tune(p, comm, replays);
    Py_END_ALLOW_THREADS
    return st ? core_raise(st) : Py_NewRef(Py_None);
}

static PyObject *hsumma_measure_network(PyObject *self, PyObject *args)
{
    long long handle;
    if (!PyArg_ParseTuple(args, "L", &handle)) return NULL;
    MPI_Comm comm;
    if (comm_of(handle, &comm)) return NULL;
    relay_hsumma_network net;
    relay_status st;
    Py_BEGIN_ALLOW_THREADS
    st = relay_hsumma_measure_network(comm, &net);
    Py_END_ALLOW_THREADS
    return st ? core_raise(st) : Py_BuildValue("(dds)", net.alpha, net.beta, cli_bcast_words[net.bcast]);
}

static PyObject *hsumma_autotune(PyObject *self, PyObject *args)
{
    PyObject *plan_obj;
    long long handle;
    int steps;
    if (!PyArg_ParseTuple(args, "OLi", &plan_obj, &handle, &steps)) return NULL;
    relay_plan *p = core_plan_of(plan_obj), *out = NULL;
    MPI_Comm comm;
    if (!p || comm_of(handle, &comm)) return NULL;
    relay_status st;
    Py_BEGIN_ALLOW_THREADS
    st = relay_hsumma_autotune(&out, p, comm, steps);
    Py_END_ALLOW_THREADS
    return core_plan_result(st, out);
}

PyMethodDef core_exec_methods[] = {
    {"exec_create", exec_create, METH_VARARGS, NULL},
    {"exec_run", exec_run, METH_VARARGS, NULL},
    {"exec_start", exec_start, METH_VARARGS, NULL},
    {"exec_wait", exec_wait, METH_O, NULL},
    {"exec_in_flight", exec_in_flight, METH_O, NULL},
    {"exec_close", exec_close, METH_O, NULL},
    {"exec_slots", exec_slots, METH_O, NULL},
    {"exec_memory", exec_memory, METH_O, NULL},
    {"exec_schedule", exec_schedule, METH_O, NULL},
    {"exec_options", exec_options, METH_O, NULL},
    {"memory_supported", memory_supported, METH_O, NULL},
    {"mpi_library", mpi_library, METH_NOARGS, NULL},
    {"check_buffers", check_buffers, METH_VARARGS, NULL},
    {"exec_time", exec_time, METH_VARARGS, NULL},
    {"exec_set_deadline", exec_set_deadline, METH_VARARGS, NULL},
    {"exec_timings", exec_timings, METH_O, NULL},
    {"exec_hsumma_report", exec_hsumma_report, METH_O, NULL},
    {"exec_tune", exec_tune, METH_VARARGS, NULL},
    {"hsumma_measure_network", hsumma_measure_network, METH_VARARGS, NULL},
    {"hsumma_autotune", hsumma_autotune, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
