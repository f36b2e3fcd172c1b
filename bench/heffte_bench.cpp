/* heffte_bench.cpp — relay's 3-D pencil reshapes against heFFTe's
 * own reshape3d, in one job.  C++ only because heFFTe's API is; relay is
 * called through its C API exactly as bench/nd_bench.c calls it.
 *
 *   pencil   an n^3 complex double array from x pencils (z, y, x) to y
 *            pencils (z, x, y), and from y pencils to z pencils (y, x, z),
 *            each pencil stored with its own axis fastest, on a q0 x q1
 *            mesh (q0 * q1 = ranks, near square), even chunks of ceil(n/p):
 *            nd_bench's pencil case.  relay (relay_plan_nd +
 *            relay_exec_run) against heffte::make_reshape3d<backend::fftw>
 *            with each of heFFTe's reshape algorithms (alltoallv, alltoall,
 *            p2p: MPI_Send + MPI_Irecv, p2p_plined: MPI_Isend + MPI_Irecv),
 *            the boxes' `order` making heFFTe transpose on unpack to the
 *            same storage as relay's.  heFFTe's reshape alone, no FFT.
 *
 * heFFTe's boxes use axes (x, y, z) = (0, 1, 2); order[0] is the fastest:
 * x pencils {0, 1, 2}, y pencils {1, 0, 2}, z pencils {2, 0, 1}.  Rank r is
 * mesh coordinate (r / q1, r % q1), as in relay's row-major mesh.
 *
 * relay's output is compared with every heFFTe variant's, byte for byte,
 * before timing.  Then two warm-ups each and `replays` rounds, each round
 * timing relay and every heFFTe variant in turn, each from a barrier as the
 * slowest rank's time; printed, a markdown row per variant: the medians
 * and relay / heFFTe (below 1: relay is faster; bench/record.py keeps the
 * table).
 *
 *   mpiexec -n P heffte_bench [replays] [n ...]      (default: 9 replays, n = 256 384)
 *
 * Built only where heFFTe is installed (bench/CMakeLists.txt,
 * -DCMAKE_PREFIX_PATH=<heFFTe prefix>); bench/heffte.sh builds heFFTe from a
 * source tree and runs this. */
#include <heffte.h>

#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "relay_case.h"
#include "relay/relay.h"

static int rank, nranks, replays = 9;

static void die(const char *what)
{
    std::fprintf(stderr, "heffte_bench: %s: %s\n", what, relay_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* ---- relay's side, as nd_bench.c ------------------------------------------- */

static relay_nd_layout *layout(int ndims, const int64_t *shape, int mesh_ndims, const int *mesh, const relay_placement *place)
{
    return relay_case_layout(nranks, ndims, shape, mesh_ndims, mesh, place);
}

static void relay_setup(relay_case *c, relay_nd_layout *dst, relay_nd_layout *src, const int *perm, relay_type t)
{
    const char *failed = relay_case_setup(c, rank, nranks, dst, src, perm, t);
    if (failed) die(failed);
}

static void relay_replay(void *ctx)
{
    if (relay_case_replay((relay_case *)ctx)) die("replay");
}

static void relay_done(relay_case *c) { relay_case_done(c); }

/* ---- heFFTe's side ------------------------------------------------------------- */

/* One of heFFTe's algorithms with an output and a workspace of its own:
 * shared, the variants timed after the first found them in the caches
 * (at 96^3 they are a few MiB) where relay's buffers, touched before, had
 * been evicted. */
struct heffte_case {
    const char *name;
    std::unique_ptr<heffte::reshape3d_base<int>> reshape;
    const std::complex<double> *src;
    std::vector<std::complex<double>> out, workspace;
    std::complex<double> *dst, *work;
};

static void heffte_replay(void *ctx)
{
    heffte_case *h = (heffte_case *)ctx;
    h->reshape->apply(1, h->src, h->dst, h->work);
}

/* ---- timing, as nd_bench.c ------------------------------------------------------ */

static double timed(void (*run)(void *), void *ctx)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = now();
    run(ctx);
    t = now() - t, MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

static void load(const char *when)
{
    if (rank) return;
    char line[128] = "?";
    if (FILE *f = std::fopen("/proc/loadavg", "r")) {
        if (!std::fgets(line, sizeof line, f)) std::strcpy(line, "?\n");
        std::fclose(f);
    }
    std::printf("  load average %s: %s", when, line);
}

/* ---- one pencil reshape ------------------------------------------------------------ */

/* Even chunks (ceil) of n over p at coordinate c, as relay's Shard with block 0. */
static void chunk(int64_t n, int p, int c, int64_t *lo, int64_t *hi)
{
    int64_t b = (n + p - 1) / p;
    *lo = c * b < n ? c * b : n;
    *hi = (c + 1) * b < n ? (c + 1) * b : n;
}

/* The heFFTe box of rank r: relay's array dimension k is physical axis
 * axes[k] (x 0, y 1, z 2), sharded on mesh dimension place[k] (-1: whole);
 * C order, so the last relay dimension is heFFTe's fastest. */
static heffte::box3d<int> box_of(int64_t n, const int *q, int r, const int *axes, const int *place)
{
    int c[2] = {r / q[1], r % q[1]};
    std::array<int, 3> low{}, high{};
    for (int k = 0; k < 3; k++) {
        int64_t lo = 0, hi = n;
        if (place[k] >= 0) chunk(n, q[place[k]], c[place[k]], &lo, &hi);
        low[axes[k]] = (int)lo, high[axes[k]] = (int)hi - 1; /* heFFTe's high is inclusive */
    }
    return heffte::box3d<int>(low, high, {axes[2], axes[1], axes[0]});
}

static const struct {
    const char *name;
    heffte::reshape_algorithm alg;
} algorithms[] = {
    {"heFFTe alltoallv", heffte::reshape_algorithm::alltoallv},
    {"heFFTe alltoall", heffte::reshape_algorithm::alltoall},
    {"heFFTe p2p", heffte::reshape_algorithm::p2p},
    {"heFFTe p2p_plined", heffte::reshape_algorithm::p2p_plined},
};
enum { NALG = sizeof algorithms / sizeof algorithms[0] };

/* `from` and `to` give each relay array dimension's mesh dimension (-1:
 * whole); axes_in: each input dimension's physical axis; perm as relay's. */
static void pencil(int64_t n, const int *q, const int *from, const int *to, const int *axes_in, const int *perm, const char *what)
{
    int64_t shape[3] = {n, n, n};
    int axes_out[3];
    relay_placement pin[2], pout[2];
    for (int k = 0; k < 3; k++) {
        axes_out[k] = axes_in[perm[k]]; /* A's dimension k is B's perm[k] */
        if (from[k] >= 0) pin[from[k]] = relay_placement{RELAY_SHARD, k, 0, nullptr};
        if (to[k] >= 0) pout[to[k]] = relay_placement{RELAY_SHARD, k, 0, nullptr};
    }
    relay_case c;
    relay_setup(&c, layout(3, shape, 2, q, pout), layout(3, shape, 2, q, pin), perm, RELAY_CDOUBLE);

    std::vector<heffte::box3d<int>> inboxes, outboxes;
    for (int r = 0; r < nranks; r++) {
        inboxes.push_back(box_of(n, q, r, axes_in, from));
        outboxes.push_back(box_of(n, q, r, axes_out, to));
    }
    if (inboxes[rank].count() != c.b_elems || outboxes[rank].count() != c.a_elems) die("heFFTe's boxes and relay's layouts differ in size");

    heffte_case h[NALG];
    for (int v = 0; v < NALG; v++) {
        heffte::plan_options o = heffte::default_options<heffte::backend::fftw>();
        o.algorithm = algorithms[v].alg;
        double t0 = now();
        h[v].reshape = heffte::make_reshape3d<heffte::backend::fftw>(nullptr, inboxes, outboxes, MPI_COMM_WORLD, o);
        double planned = now() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &planned, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (rank == 0) std::printf("  %s plan %.2f ms\n", algorithms[v].name, planned * 1e3);
        if (!h[v].reshape) die("heFFTe made no reshape");
        h[v].name = algorithms[v].name;
        h[v].out.resize((size_t)c.a_elems + 1);
        h[v].workspace.resize(h[v].reshape->size_workspace() + 1);
        h[v].src = (const std::complex<double> *)c.b;
        h[v].dst = h[v].out.data();
        h[v].work = h[v].workspace.data();
    }

    char name[80];
    std::snprintf(name, sizeof name, "pencil %lld^3 complex %s", (long long)n, what);

    /* Same bytes: relay once, then each heFFTe variant into an output of NaNs. */
    relay_replay(&c);
    for (auto &x : h) {
        std::memset((void *)x.out.data(), 0xff, x.out.size() * sizeof x.out[0]);
        heffte_replay(&x);
        int bad = std::memcmp(c.a, x.out.data(), (size_t)c.a_elems * sizeof x.out[0]) != 0;
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (bad) {
            if (rank == 0) std::fprintf(stderr, "heffte_bench: %s: relay and %s disagree\n", name, x.name);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    if (rank == 0) std::printf("  %s: relay's output equals every heFFTe variant's, byte for byte\n", name);

    /* Two warm-ups each, then `replays` rounds of relay and every variant,
     * each round starting one further along, so that none is always the
     * one after another's. */
    std::vector<double> tr(replays), th[NALG];
    for (auto &t : th) t.resize(replays);
    for (int w = 0; w < 2; w++) {
        timed(relay_replay, &c);
        for (auto &x : h) timed(heffte_replay, &x);
    }
    for (int i = 0; i < replays; i++)
        for (int turn = 0; turn <= NALG; turn++) {
            int v = (i + turn) % (NALG + 1); /* NALG: relay */
            if (v == NALG) tr[i] = timed(relay_replay, &c);
            else th[v][i] = timed(heffte_replay, &h[v]);
        }
    double mr = median_of(tr.data(), replays);
    for (int v = 0; v < NALG; v++) {
        double mh = median_of(th[v].data(), replays);
        if (rank == 0)
            std::printf("| %s | %d | %.3f | heFFTe %s | %.3f | %.2f |\n", name, nranks, mr * 1e3, h[v].name, mh * 1e3,
                        mr / mh);
    }
    std::fflush(stdout);
    relay_done(&c);
}

static void pencils(int64_t n)
{
    int q[2] = {1, nranks};
    for (int a = 1; a * a <= nranks; a++)
        if (nranks % a == 0) q[0] = a, q[1] = nranks / a;
    if (rank == 0) std::printf("pencils %lld^3 on a %d x %d mesh\n", (long long)n, q[0], q[1]);
    /* x pencils (z, y, x): z on mesh 0, y on mesh 1; y pencils (z, x, y): z, x; z pencils (y, x, z): y, x. */
    int x_from[3] = {0, 1, -1}, y_to[3] = {0, 1, -1}, xy[3] = {0, 2, 1}, x_axes[3] = {2, 1, 0};
    int y_from[3] = {0, 1, -1}, z_to[3] = {0, 1, -1}, yz[3] = {2, 1, 0}, y_axes[3] = {2, 0, 1};
    pencil(n, q, x_from, y_to, x_axes, xy, "x->y");
    pencil(n, q, y_from, z_to, y_axes, yz, "y->z");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc > 1) replays = std::atoi(argv[1]) > 0 ? std::atoi(argv[1]) : replays;
    std::vector<int64_t> sizes;
    for (int i = 2; i < argc; i++)
        if (std::atoll(argv[i]) > 0) sizes.push_back(std::atoll(argv[i]));
    if (sizes.empty()) sizes = {256, 384};
    if (rank == 0)
        std::printf("heffte_bench: %d ranks, median of %d replays each, heFFTe %d.%d.%d\n", nranks, replays, Heffte_VERSION_MAJOR,
                    Heffte_VERSION_MINOR, Heffte_VERSION_PATCH);
    load("at start");
    if (rank == 0)
        std::printf("\n| case | ranks | relay ms | baseline | baseline ms | relay / baseline |\n|---|---|---|---|---|---|\n");
    for (int64_t n : sizes) pencils(n);
    load("at end");
    MPI_Finalize();
    return 0;
}
