/* shm_landing.c — landing areas that outlive executors (shm.h): one per
 * set of a node's ranks, shared by every executor created with
 * RL_EXEC_SHARED_LANDINGS over those ranks, freed at MPI_Finalize.
 *
 * Why: freeing a shared-memory window is collective over the node's ranks
 * and waits for them.  relay_scalapack frees executors when one process
 * alone prunes its cache, and BLACS frees grids in whatever order each
 * process exits them; a window per executor would hang there.  So the
 * drop-in's executors borrow their landing area instead:
 *
 *   one landing per set of ranks  the node's ranks of the executor's
 *                    communicator, as a set (MPI_Group_compare: ident or
 *                    similar).  A landing is made collectively over its
 *                    ranks and never freed before MPI_Finalize, so whether
 *                    one exists is the same on all of them whenever they
 *                    bind together: they agree without a message.  It
 *                    holds a group, not a communicator: its collective
 *                    steps run on the binding executor's node communicator
 *                    (relay_scalapack frees its communicators with the
 *                    grids, and tests count them);
 *   its window       each rank's segment is the most any executor bound
 *                    over the landing needs.  When one needs more, all
 *                    ranks of the landing allocate a new window together
 *                    (segments at least twice the old), and the old one
 *                    stays for the executors bound to it: what the
 *                    windows of a landing hold is less than twice its
 *                    largest;
 *   settling         executors over one window share its memory, so a
 *                    replay ends with a barrier of the landing's ranks
 *                    (shm_replay.c): no rank packs into another's segment
 *                    for the next call before that one has unpacked this
 *                    one's every message;
 *   allocating       rl_shm_allocate, the one step that makes a node's
 *                    window, here for landings and executors alike
 *                    (shm_window.c's own windows);
 *   MPI_Finalize     deletes an attribute of MPI_COMM_SELF whose callback
 *                    frees the windows landing by landing, newest landing
 *                    first and each one's newest window first, then the
 *                    landings.  Landings are made
 *                    collectively, so any two that share processes were
 *                    made in one order on all of them: every process frees
 *                    the windows it shares with another in the same order,
 *                    and no MPI_Win_free waits for a process that waits in
 *                    another. */
#include <stdlib.h>

#include "error.h"
#include "mpi_error.h"
#include "shm.h"

typedef struct {
    MPI_Win win;
    int locked;                  /* MPI_Win_lock_all held (it failed: the window is kept unlocked, to be
                                    freed with the others, collectively) */
} landing_window;

struct rl_landing {
    struct rl_landing *older;
    MPI_Group ranks;             /* its ranks, compared as a set */
    int nwindows;
    landing_window *windows;     /* oldest first; the last is the one lent */
    char *area;                  /* this rank's segment of the last */
    int64_t bytes;               /* ... and its size */
};

static rl_landing *landings;      /* newest first */
static int finalize_keyval = MPI_KEYVAL_INVALID;

/* ---- freed at MPI_Finalize --------------------------------------------- */

static void free_windows(rl_landing *l)
{
    for (int w = l->nwindows - 1; w >= 0; w--) {
        if (l->windows[w].locked) MPI_Win_unlock_all(l->windows[w].win);
        MPI_Win_free(&l->windows[w].win);
    }
    free(l->windows);
    l->windows = NULL;
    l->nwindows = 0;
}

/* The attribute's delete callback. */
static int free_at_finalize(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    for (rl_landing *l = landings; l; l = l->older) free_windows(l);
    while (landings) {
        rl_landing *l = landings;
        landings = l->older;
        MPI_Group_free(&l->ranks);
        free(l);
    }
    return MPI_SUCCESS;
}

static relay_status hook_finalize(void)
{
    if (finalize_keyval != MPI_KEYVAL_INVALID) return RELAY_OK;
    int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_at_finalize, &finalize_keyval, NULL);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "hooking the shared landing areas to MPI_Finalize");
}

/* ---- finding a landing --------------------------------------------------- */

/* The landing over ranks as a set, or NULL. */
static rl_landing *landing_over(MPI_Group ranks)
{
    for (rl_landing *l = landings; l; l = l->older) {
        int same = MPI_UNEQUAL;
        MPI_Group_compare(ranks, l->ranks, &same);
        if (same == MPI_IDENT || same == MPI_SIMILAR) return l;
    }
    return NULL;
}

relay_status rl_landing_find(rl_landing **out, MPI_Comm node)
{
    MPI_Group ranks;
    int rc = MPI_Comm_group(node, &ranks);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Comm_group of a node's ranks");
    *out = landing_over(ranks);
    relay_status st = *out ? RELAY_OK : hook_finalize();
    rl_landing *l = *out || st ? NULL : calloc(1, sizeof *l);
    if (!*out && !st && !l) st = RL_NOMEM();
    if (*out || st) {
        MPI_Group_free(&ranks);
        return st;
    }
    l->ranks = ranks;
    l->older = landings;
    landings = *out = l;
    return RELAY_OK;
}

/* ---- its window ---------------------------------------------------------- */

relay_status rl_shm_allocate(MPI_Comm node, int64_t bytes, char **area, MPI_Win *win, const char *what)
{
    MPI_Info info = MPI_INFO_NULL;
    int rc = MPI_Info_create(&info);
    /* Each segment on its own pages, near its owner: nothing needs them contiguous. */
    if (rc == MPI_SUCCESS) rc = MPI_Info_set(info, "alloc_shared_noncontig", "true");
    if (rc == MPI_SUCCESS) rc = MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, node, area, win);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    if (rc == MPI_SUCCESS) rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, *win);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, what);
}

/* A new window over node whose segment here is `bytes`.  A window made
 * whose lock failed is kept, unlocked, for MPI_Finalize to free with the
 * others (freeing it is collective: the ranks whose lock held go on with
 * it); this rank's segment then counts as empty, so that the next
 * executor that needs one makes a new window on all the landing's ranks
 * (rl_landing_reserve). */
static relay_status add_window(rl_landing *l, MPI_Comm node, int64_t bytes)
{
    landing_window *grown = realloc(l->windows, ((size_t)l->nwindows + 1) * sizeof *grown);
    if (!grown) return RL_NOMEM();
    l->windows = grown;
    char *area;
    landing_window *w = &grown[l->nwindows];
    w->win = MPI_WIN_NULL;
    relay_status st = rl_shm_allocate(node, bytes, &area, &w->win, "MPI_Win_allocate_shared of a shared landing area");
    w->locked = st == RELAY_OK;
    if (w->win != MPI_WIN_NULL) l->nwindows++;
    l->area = st == RELAY_OK ? area : NULL;
    l->bytes = st == RELAY_OK ? bytes : 0;
    return st;
}

relay_status rl_landing_reserve(rl_landing *l, MPI_Comm node, int64_t bytes, int uses, rl_landing_lease *lease)
{
    int mine[2] = {bytes > l->bytes, uses}, any[2];
    int rc = MPI_Allreduce(mine, any, 2, MPI_INT, MPI_MAX, node);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Allreduce of the shared landing's size");
    relay_status st = any[0] ? add_window(l, node, bytes > l->bytes ? (bytes > 2 * l->bytes ? bytes : 2 * l->bytes) : l->bytes)
                             : RELAY_OK;
    *lease = (rl_landing_lease){l->nwindows ? l->windows[l->nwindows - 1].win : MPI_WIN_NULL, l->area, any[1]};
    return st;
}
