/* progress.h — a progress line on stderr for a step of relay-plan that
 * takes longer than a second ("relay-plan: planning... 3 s", then
 * "relay-plan: planning... done (3.4 s)"), shown only when stderr is a
 * terminal.  A watcher thread wakes once a second until the step stops. */
#ifndef RELAY_PROGRESS_H
#define RELAY_PROGRESS_H

#include <pthread.h>

typedef struct {
    const char *what;
    double start;            /* monotonic seconds */
    int watching;            /* the watcher thread runs */
    int shown;               /* the line is on the terminal */
    int done;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
} progress;

void progress_start(progress *p, const char *what);

/* Ends the step; returns its duration in seconds. */
double progress_stop(progress *p);

#endif
