/* dropin_routines.c — the table of the routines the drop-in takes over
 * (dropin.h): each one's ScaLAPACK name, and the symbol of ScaLAPACK's own
 * routine that runs what relay does not.  The entry points, the fallback
 * and the statistics all read it; it calls nothing. */
#include "dropin.h"

static const struct {
    const char *name;      /* lower case, as in messages and statistics */
    const char *symbol;    /* ScaLAPACK's own routine (dropin_fallback.c) */
} routines[RL_DROPIN_ROUTINES] = {
    [RL_PSGEMR2D] = {"psgemr2d", "Cpsgemr2d"}, [RL_PDGEMR2D] = {"pdgemr2d", "Cpdgemr2d"},
    [RL_PCGEMR2D] = {"pcgemr2d", "Cpcgemr2d"}, [RL_PZGEMR2D] = {"pzgemr2d", "Cpzgemr2d"},
    [RL_PSTRAN] = {"pstran", "pstran_"},       [RL_PDTRAN] = {"pdtran", "pdtran_"},
    [RL_PCTRANU] = {"pctranu", "pctranu_"},    [RL_PZTRANU] = {"pztranu", "pztranu_"},
    [RL_PCTRANC] = {"pctranc", "pctranc_"},    [RL_PZTRANC] = {"pztranc", "pztranc_"},
};

const char *rl_dropin_name(rl_dropin_routine r) { return routines[r].name; }

const char *rl_dropin_scalapack_symbol(rl_dropin_routine r) { return routines[r].symbol; }
