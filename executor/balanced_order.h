/* balanced_order.h — the order in which rounds of timed calls take their
 * contestants: relay_exec_tune's candidates (tune.c) and the benchmarks'
 * contestants (bench/measure.h) alike.  Header-only, so that the
 * benchmarks, which see only relay's exported symbols, share it. */
#ifndef RELAY_BALANCED_ORDER_H
#define RELAY_BALANCED_ORDER_H

/* Which of n contestants round r calls at position s: a Williams design
 * (a balanced Latin square).  Row r % n is 0, 1, n-1, 2, n-2, ... shifted
 * by r; for odd n every other block of n rounds runs its rows backwards.
 * Over n rounds (2n for odd n) each contestant comes at each position
 * alike and, what matters, follows each other one equally often: a call
 * leaves the caches full of its data, pages freed, ranks out of step, and
 * a plain rotation (r + s) % n would always hand that to the same
 * successor.  The step from one round's last call to the next round's
 * first is not balanced (for n = 3, two contestants run twice in a row
 * once every 6 rounds). */
static inline int rl_balanced_order(int r, int s, int n)
{
    if (n % 2 && (r / n) % 2) s = n - 1 - s;
    int first = s % 2 ? (s + 1) / 2 : (n - s / 2) % n;
    return (first + r) % n;
}

#endif
