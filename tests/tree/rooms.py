#!/usr/bin/env python3
"""rooms.py — the folders use each other as docs/design.md's map says, and
no files call each other round a circle.

  rooms.py SOURCE_DIR BUILD_DIR

The map (design.md, "The map of the house") names each room, a folder
such as `executor/`, and in its last column the rooms it may use, in
backticks ("all": every room); every room may use the public headers of
`include/relay/`.  What a file uses is read from the build, not from its
text: the headers its object was compiled with (the compiler's .d files)
and the functions and data its object takes from other objects (nm).
Fails, naming the files and what they use, on:
  - a file that includes a header of, or calls into, a room its own room
    may not use (rooms used through rooms they may use count too);
  - files that call each other, directly or round a circle of several
    (a strongly connected set of files), anywhere in the tree, and
    modules of the Python package that import each other so;
  - a source file outside every room of the map, or a build without
    objects (build the tree first).
"""

import os
import re
import subprocess
import sys
from collections import defaultdict

MAP_HEADING = re.compile(r"^## .*map of the house", re.I)
CONTRACT = "include/relay/"


# ---- the map -------------------------------------------------------------------------

def read_map(design_md):
    """{room: set of rooms it may use}, from the map's table."""
    rows, in_map = {}, False
    with open(design_md, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                in_map = bool(MAP_HEADING.match(line))
                continue
            if not in_map or not line.startswith("| `"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rooms = re.findall(r"`([^`]+/)`", cells[0])
            uses = "all" if cells[-1].strip() == "all" else set(re.findall(r"`([^`]+/)`", cells[-1]))
            for room in rooms:
                rows[room] = uses
    if not rows:
        sys.exit(f"rooms.py: no map table in {design_md}")
    every = set(rows)
    allowed = {room: set(every) if uses == "all" else set(uses) for room, uses in rows.items()}
    for room, uses in allowed.items():
        unknown = uses - every
        if unknown:
            sys.exit(f"rooms.py: the map lets {room} use {sorted(unknown)}, which it does not name")
    # Rooms used through rooms a room may use.
    changed = True
    while changed:
        changed = False
        for room in allowed:
            more = set().union(*(allowed[u] for u in allowed[room])) - allowed[room] - {room}
            if more:
                allowed[room] |= more
                changed = True
    for room in allowed:
        allowed[room] |= {room, CONTRACT}
    return allowed


def room_of(rel, rooms):
    best = None
    for room in rooms:
        if rel.startswith(room) and (best is None or len(room) > len(best)):
            best = room
    return best


# ---- what the build says each file uses --------------------------------------------

def depfiles(build):
    for folder, dirs, files in os.walk(build):
        dirs[:] = [d for d in dirs if not d.startswith("CMakeScratch") and not re.match(r"\d+\.\d+", d)]
        for name in files:
            if name.endswith(".o.d"):
                yield os.path.join(folder, name)


def read_depfile(path, source_dir, build_dir):
    """(source, headers) of an object, as paths relative to source_dir."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read().replace("\\\n", " ")
    _, _, deps = text.partition(":")
    inside = []
    for dep in deps.split():
        dep = os.path.realpath(dep if os.path.isabs(dep) else os.path.join(build_dir, dep))
        if dep.startswith(source_dir + os.sep) and not dep.startswith(build_dir + os.sep):
            inside.append(os.path.relpath(dep, source_dir))
    return (inside[0], inside[1:]) if inside else (None, [])


def symbols(objects):
    """{object: (defined, undefined)} of global symbols, from nm."""
    table = {o: (set(), set()) for o in objects}
    batch = 64
    for i in range(0, len(objects), batch):
        part = objects[i:i + batch]
        out = subprocess.run(["nm", "-A", "-P", "-g"] + part, capture_output=True, text=True).stdout
        for line in out.splitlines():
            where, _, rest = line.partition(": ")
            fields = rest.split()
            if len(fields) < 2 or where not in table:
                continue
            name, kind = fields[0], fields[1]
            if kind == "U":
                table[where][1].add(name)
            elif kind.isupper():
                table[where][0].add(name)
    return table


def c_uses(source_dir, build_dir):
    """{source: set of headers}, {source: {source it calls: symbols}}."""
    headers, objects_of = defaultdict(set), defaultdict(list)
    for d in depfiles(build_dir):
        source, deps = read_depfile(d, source_dir, build_dir)
        # An object whose source is gone (moved or deleted since it was built) is stale.
        if source and os.path.exists(d[:-2]) and os.path.exists(os.path.join(source_dir, source)):
            headers[source].update(deps)
            objects_of[source].append(d[:-2])
    objects = [o for objs in objects_of.values() for o in objs]
    table = symbols(objects)
    defined, undefined = defaultdict(set), defaultdict(set)
    for source, objs in objects_of.items():
        for o in objs:
            defined[source] |= table[o][0]
            undefined[source] |= table[o][1]
    definers = defaultdict(set)
    for source, names in defined.items():
        for name in names:
            if name != "main":
                definers[name].add(source)
    calls = defaultdict(lambda: defaultdict(set))
    for source, names in undefined.items():
        for name in names:
            for target in definers.get(name, ()):
                if target != source and (top(target) not in PROGRAMS or top(target) == top(source)):
                    calls[source][target].add(name)
    return headers, calls, len(objects)


# Folders of programs: what their files define serves their own programs
# alone (a test that wraps MPI_Comm_dup over PMPI is not called by the
# library it tests).
PROGRAMS = {"tests", "bench", "examples"}


def top(rel):
    return rel.split("/", 1)[0]


IMPORT = re.compile(r"^\s*(?:from\s+\.(\w*)\s+import\s+([\w, ()]+)|import\s+relay\.(\w+))", re.M)


def python_imports(source_dir, package="python/relay"):
    """{module file: {module file it imports: names}} inside the package."""
    folder = os.path.join(source_dir, package)
    modules = {n[:-3] for n in os.listdir(folder) if n.endswith(".py")} if os.path.isdir(folder) else set()
    imports = defaultdict(lambda: defaultdict(set))
    for m in sorted(modules):
        path = f"{package}/{m}.py"
        with open(os.path.join(source_dir, path), encoding="utf-8") as f:
            text = f.read()
        for match in IMPORT.finditer(text):
            base, names, absolute = match.groups()
            if absolute:
                targets = [absolute]
            elif base:
                targets = [base]
            else:
                targets = [n.strip(" ()") for n in names.split(",")]
            for t in targets:
                if t in modules and t != m:
                    imports[path][f"{package}/{t}.py"].add("import")
    return imports


# ---- circles ---------------------------------------------------------------------------

def circles(graph):
    """The strongly connected sets of more than one node (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]
    nodes = set(graph) | {t for ts in graph.values() for t in ts}

    def visit(v):
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        while work:
            node, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        group.append(w)
                        if w == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def sample(names, most=3):
    names = sorted(names)
    return ", ".join(names[:most]) + (f" (+{len(names) - most})" if len(names) > most else "")


def main(argv):
    if len(argv) != 3:
        print("usage: rooms.py SOURCE_DIR BUILD_DIR", file=sys.stderr)
        return 2
    source_dir, build_dir = (os.path.realpath(a) for a in argv[1:])
    allowed = read_map(os.path.join(source_dir, "docs", "design.md"))
    headers, calls, nobjects = c_uses(source_dir, build_dir)
    if nobjects < 50:
        print(f"rooms.py: {nobjects} objects under {build_dir}: build the tree first", file=sys.stderr)
        return 1
    problems = []
    for source in sorted(set(headers) | set(calls)):
        room = room_of(source, allowed)
        if room is None:
            problems.append(f"{source}: in no room of design.md's map")
            continue
        for h in sorted(headers[source]):
            other = room_of(h, allowed)
            if other is not None and other not in allowed[room]:
                problems.append(f"{source}: includes {h}, but {room} may not use {other}")
        for target, names in sorted(calls[source].items()):
            other = room_of(target, allowed)
            if other is not None and other not in allowed[room]:
                problems.append(f"{source}: calls {target} ({sample(names)}), but {room} may not use {other}")
    graph = {s: dict(t) for s, t in calls.items()}
    graph.update({s: dict(t) for s, t in python_imports(source_dir).items()})
    for group in circles(graph):
        edges = [f"{a} -> {b} ({sample(graph[a][b])})" for a in group for b in group if b in graph.get(a, {})]
        problems.append("files that call each other round a circle: " + "; ".join(edges))
    for p in problems:
        print(p)
    if problems:
        print(f"rooms.py: {len(problems)} problem(s) against docs/design.md's map ({nobjects} objects read)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
