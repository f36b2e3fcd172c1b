#!/usr/bin/env python3
"""render.py — docs/benchmarks.md from the benchmarks' result files.

  python3 bench/render.py           writes docs/benchmarks.md
  python3 bench/render.py --check   writes nothing; exits 1, with a diff, when
                                    docs/benchmarks.md is not what it would write

The page is bench/results/page.md with each line `{{table NAME}}` replaced
by the newest run, per machine, of bench/results/NAME.csv (bench/record.py
writes them): a line naming the machine, the date and the commit, then the
run's rows as a table, newest machine first.  A run is the rows of one
machine and one date; its columns are the file's less those it left empty.

Debian's python3 alone; no package beyond the standard library.
"""

import csv
import difflib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
TEMPLATE = os.path.join(RESULTS, "page.md")
PAGE = os.path.join(os.path.dirname(HERE), "docs", "benchmarks.md")
MARKER = re.compile(r"^\{\{table ([\w.-]+)\}\}$")
RUN_COLUMNS = ("machine", "commit", "date")


def newest_runs(path):
    """[(machine, date, commits, columns, rows)], newest machine first."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        columns = [c for c in reader.fieldnames or [] if c not in RUN_COLUMNS]
        rows = list(reader)
    if not rows:
        raise SystemExit(f"render.py: {path} holds no rows")
    newest = {}
    for row in rows:
        m = row["machine"]
        newest[m] = max(newest.get(m, ""), row["date"])
    runs = []
    # Newest first; a date not recorded sorts as the oldest.
    for m, date in sorted(newest.items(), key=lambda md: (md[1][:1].isdigit(), md[1], md[0]), reverse=True):
        run = [r for r in rows if r["machine"] == m and r["date"] == date]
        used = [c for c in columns if any(r.get(c) for r in run)]
        commits = sorted({r["commit"] for r in run})
        runs.append((m, date, commits, used, [[r.get(c, "") for c in used] for r in run]))
    return runs


def cell(text):
    return text.replace("|", "\\|") if text else " "


def table(name):
    path = os.path.join(RESULTS, name + ".csv")
    if not os.path.exists(path):
        raise SystemExit(f"render.py: page.md names {name}, but {path} does not exist")
    out = []
    for machine, date, commits, columns, rows in newest_runs(path):
        out.append(f"*{machine}*, {date} UTC, commit {', '.join(commits)}:")
        out.append("")
        out.append("| " + " | ".join(cell(c) for c in columns) + " |")
        out.append("|" + "---|" * len(columns))
        out.extend("| " + " | ".join(cell(v) for v in row) + " |" for row in rows)
        out.append("")
    return out[:-1]


def render():
    with open(TEMPLATE, encoding="utf-8") as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        m = MARKER.match(line.strip())
        out.extend(table(m.group(1)) if m else [line])
    return "\n".join(out) + "\n"


def main(argv):
    page = render()
    if argv[1:] == ["--check"]:
        with open(PAGE, encoding="utf-8") as f:
            committed = f.read()
        if committed == page:
            return 0
        sys.stdout.writelines(difflib.unified_diff(committed.splitlines(True), page.splitlines(True),
                                                   "docs/benchmarks.md", "rendered from bench/results"))
        print("render.py: docs/benchmarks.md is not what bench/results renders; run python3 bench/render.py",
              file=sys.stderr)
        return 1
    if argv[1:]:
        print("usage: python3 bench/render.py [--check]", file=sys.stderr)
        return 2
    with open(PAGE, "w", encoding="utf-8") as f:
        f.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
