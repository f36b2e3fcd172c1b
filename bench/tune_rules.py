#!/usr/bin/env python3
"""tune_rules.py — rules for keeping one of relay_exec_tune's choices, tried
on the times bench/tune_rules saves (CSV: one row per round, one column per
choice, seconds), as tune_rules judges relay's own: each rule picks from
every window of W consecutive rounds, and the pick's cost is its median
(and mean) over the rounds outside the window divided by the best choice's
there.  Prints each file's mean costs and their sums per rule, as a
markdown table (bench/record.py keeps it).

    python3 bench/tune_rules.py [W] CSV...          (W 5)
"""
import csv
import math
import statistics
import sys


def load(path):
    """The choices' names and, per choice, its times round by round."""
    with open(path) as f:
        rows = [r for r in csv.reader(f) if r]
    names, times = rows[0], [[float(x) for x in r] for r in rows[1:]]
    return names, [list(column) for column in zip(*times)]


def upper_quartile(v):
    return sorted(v)[(3 * len(v) + 3) // 4 - 1]  # the nearest rank, ceil(3n/4)


def lowest(scores):
    return scores.index(min(scores))  # the first on a tie


def untuned(w):
    return 0


def fastest_median(w):  # relay's rule (executor/tune_pick.c)
    return lowest([statistics.median(v) for v in w])


def lowest_mean(w):
    return lowest([statistics.fmean(v) for v in w])


def lowest_upper_quartile(w):
    return lowest([upper_quartile(v) for v in w])


def paired_ratio(w):
    """The lowest median, over rounds, of a choice's time over the first's."""
    return lowest([statistics.median(a / b for a, b in zip(v, w[0])) for v in w])


def paired_log_ratio(w):
    return lowest([sum(math.log(a / b) for a, b in zip(v, w[0])) for v in w])


def steady_or_default(w):
    """The first unless another wins most rounds against it and its upper
    quartile is below the first's median; of those, the lowest median."""
    medians, best = [statistics.median(v) for v in w], 0
    for k, v in enumerate(w[1:], 1):
        wins = sum(a < b for a, b in zip(v, w[0]))
        if 2 * wins > len(v) and upper_quartile(v) < medians[0] and medians[k] < medians[best]:
            best = k
    return best


RULES = [untuned, fastest_median, lowest_mean, lowest_upper_quartile, paired_ratio, paired_log_ratio,
         steady_or_default]


def costs(times, rule, width):
    """The mean, over windows, of the pick's median and mean cost outside the window."""
    by_median, by_mean = [], []
    for start in range(len(times[0]) - width + 1):
        k = rule([v[start:start + width] for v in times])
        rest = [v[:start] + v[start + width:] for v in times]
        medians, means = [statistics.median(v) for v in rest], [statistics.fmean(v) for v in rest]
        by_median.append(medians[k] / min(medians))
        by_mean.append(means[k] / min(means))
    return statistics.fmean(by_median), statistics.fmean(by_mean)


def main(argv):
    width = int(argv[0]) if argv and argv[0].isdigit() else 5
    paths = argv[1:] if argv and argv[0].isdigit() else argv
    if not paths:
        sys.exit(__doc__)
    total = {rule.__name__: [0.0, 0.0] for rule in RULES}
    print("Mean cost over the windows of each file, median / mean:\n")
    print("| file | " + " | ".join(rule.__name__ for rule in RULES) + " |")
    print("|" + "---|" * (len(RULES) + 1))
    for path in paths:
        _, times = load(path)
        row = []
        for rule in RULES:
            c = costs(times, rule, width)
            total[rule.__name__][0] += c[0]
            total[rule.__name__][1] += c[1]
            row.append(f"{c[0]:.3f} / {c[1]:.3f}")
        print(f"| {path} | " + " | ".join(row) + " |")
    print("| sum | " + " | ".join(f"{a:.3f} / {b:.3f}" for a, b in total.values()) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
