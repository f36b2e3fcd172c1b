/* tune_pick.h — which of relay_exec_tune's timed choices a plan keeps
 * (tune_pick.c). */
#ifndef RELAY_TUNE_PICK_H
#define RELAY_TUNE_PICK_H

/* times[k * replays + r]: choice k's time in round r (every round times
 * every choice once), replays 1 to RELAY_TUNE_MAX_REPLAYS.  medians[k]
 * becomes choice k's median; returns the choice to keep. */
int rl_tune_pick(const double *times, int n, int replays, double *medians);

#endif
