#!/usr/bin/env python3
"""record.py — a benchmark's tables into its result files, with the machine,
the commit and the date of the run.

  BENCHMARK ... | python3 bench/record.py NAME [NAME ...]

Passes its input through to stdout unchanged and appends the rows of the
k-th markdown table it reads to bench/results/NAME_k.csv (the k-th NAME;
"-" records no table there).  A table past the names goes where the first
table of the same columns went (a program that prints one table per job),
or nowhere.
Every row starts with machine, commit and date; the other columns are the
table's.  A table whose columns differ from the file's extends the file's
columns (earlier rows keep their cells, the new ones are empty there).
bench/render.py makes docs/benchmarks.md from the result files.

  RELAY_BENCH_MACHINE   the machine's name (default: CPU model, cores, memory);
                        name it to keep one machine's runs together
  RELAY_BENCH_DATE      the run's date, UTC "YYYY-MM-DD HH:MM" (default: now);
                        a script that records several jobs sets it once
  RELAY_BENCH_COMMIT    the commit (default: git's HEAD here, "+dirty" when
                        tracked files differ from it)
  RELAY_BENCH_RESULTS   the folder of the result files (default: bench/results)

Debian's python3 alone; no package beyond the standard library.
"""

import csv
import datetime
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_COLUMNS = ["machine", "commit", "date"]


def machine():
    name = os.environ.get("RELAY_BENCH_MACHINE")
    if name:
        return name
    model, mem_kib = "unknown CPU", 0
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), model)
        with open("/proc/meminfo") as f:
            mem_kib = next((int(l.split()[1]) for l in f if l.startswith("MemTotal")), 0)
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {round(mem_kib / 2**20)} GiB"


def commit():
    given = os.environ.get("RELAY_BENCH_COMMIT")
    if given:
        return given

    def git(*args):
        return subprocess.run(["git", "-C", HERE, *args], capture_output=True, text=True).stdout.strip()
    try:
        head = git("rev-parse", "--short=7", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except OSError:
        return "unknown"
    return (head or "unknown") + ("+dirty" if dirty else "")


def run_date():
    return os.environ.get("RELAY_BENCH_DATE") or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def is_separator(line):
    return set(line.strip().replace("|", "").replace(" ", "")) <= set("-:") and "-" in line


def tables(lines):
    """Each markdown table of lines as (header, rows): a header is a row
    followed by a separator; the rows of its width that follow belong to it
    until the next header, whatever lines of text come between."""
    header, rows = None, []
    for i, line in enumerate(lines):
        if not line.lstrip().startswith("|") or is_separator(line):
            continue
        if i + 1 < len(lines) and is_separator(lines[i + 1]):
            if header:
                yield header, rows
            header, rows = cells(line), []
        elif header and len(cells(line)) == len(header):
            rows.append(cells(line))
    if header:
        yield header, rows


def append(path, header, rows, run):
    """Appends rows under header to the CSV at path, extending its columns."""
    old_columns, old_rows = [], []
    if os.path.exists(path):
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            old_columns, old_rows = list(reader.fieldnames or []), list(reader)
    columns = list(old_columns or RUN_COLUMNS)
    columns += [c for c in header if c not in columns]
    new_rows = [dict(zip(RUN_COLUMNS + header, run + row)) for row in rows]
    mode = "a" if columns == old_columns else "w"
    with open(path, mode, newline="") as f:
        writer = csv.DictWriter(f, columns, restval="", lineterminator="\n")
        if mode == "w":
            writer.writeheader()
            writer.writerows(old_rows)
        writer.writerows(new_rows)


def main(argv):
    if len(argv) < 2:
        print("usage: BENCHMARK | python3 bench/record.py NAME [NAME ...]", file=sys.stderr)
        return 2
    names = argv[1:]
    lines = []
    for line in sys.stdin:
        sys.stdout.write(line)
        sys.stdout.flush()
        lines.append(line.rstrip("\n"))
    folder = os.environ.get("RELAY_BENCH_RESULTS") or os.path.join(HERE, "results")
    os.makedirs(folder, exist_ok=True)
    run = [machine(), commit(), run_date()]
    found = list(tables(lines))
    name_of = {}
    for k, (header, rows) in enumerate(found):
        name = names[k] if k < len(names) else name_of.get(tuple(header), "-")
        name_of.setdefault(tuple(header), name)
        if name != "-" and rows:
            append(os.path.join(folder, name + ".csv"), header, rows, run)
    if len(found) < len(names):
        print(f"record.py: {len(found)} table(s) read, {len(names)} named: the rest recorded nothing",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
