/* progress.c — the progress line of relay-plan (see plan.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "plan.h"

static double seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The realtime deadline (what pthread_cond_timedwait takes) `after` seconds
 * from the start of the step. */
static struct timespec deadline(const progress *p, int after)
{
    double at = seconds(CLOCK_REALTIME) + (p->start + after - seconds(CLOCK_MONOTONIC));
    struct timespec t = {(time_t)at, (long)((at - (double)(time_t)at) * 1e9)};
    return t;
}

static void *watch(void *arg)
{
    progress *p = arg;
    pthread_mutex_lock(&p->lock);
    for (int after = 1; !p->done; after++) {
        struct timespec t = deadline(p, after);
        int timed_out = 0;
        while (!p->done && !timed_out) timed_out = pthread_cond_timedwait(&p->wake, &p->lock, &t) != 0;
        if (p->done) break;
        fprintf(stderr, "\r%s... %d s", p->what, after);
        fflush(stderr);
        p->shown = 1;
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

void progress_start(progress *p, const char *what)
{
    *p = (progress){.what = what, .start = seconds(CLOCK_MONOTONIC)};
    if (!isatty(STDERR_FILENO)) return;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    p->watching = pthread_create(&p->thread, NULL, watch, p) == 0;
    if (!p->watching) {
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->wake);
    }
}

double progress_stop(progress *p)
{
    double elapsed = seconds(CLOCK_MONOTONIC) - p->start;
    if (!p->watching) return elapsed;
    pthread_mutex_lock(&p->lock);
    p->done = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    if (p->shown) fprintf(stderr, "\r%s... done (%.1f s)\n", p->what, elapsed);
    return elapsed;
}
