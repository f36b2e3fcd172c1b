#!/usr/bin/env python3
"""references.py — what shipped text may not say, checked over the source tree.

  references.py ROOT

A reader outside the project cannot follow a reference to its tracker or
its internal contract, so code, docs and tests cite papers by name
(docs/references.md) and upstream bugs by URL.  Fails, listing each place,
on:
  - tracker references: "issue 33", "issues 16 and 32", "(#33)", "the
    issue's example", "finding 5" (upstream issues are URLs: .../issues/N);
  - the papers' file numbers ("paper 004") and the contract's name
    ("SPEC section 6", "the SPEC case", its path in a folder beside the
    repository);
  - timings in the library's comments ("took 47 ms", "0.7 ms", "1.5-1.8x a
    memcpy"): the reasoning stays in the comment, the numbers go to
    docs/benchmarks.md.
Left out: .git, build trees (a CMakeCache.txt), binary files, CHANGES.md
(a dated record), this file (it spells the patterns), and a timing quoted
as an output's format ("0.213 ms").
"""

import os
import re
import sys

# Text anywhere in the tree.
PRIVATE = [
    (re.compile(r"\bissues?\s+#?\d+", re.I), "a tracker issue"),
    (re.compile(r"\bissues?\s+\d+(,\s*\d+)*\s+and\s+\d+", re.I), "tracker issues"),
    (re.compile(r"(?<![\w\"'&/])#\d{2,5}\b(?![0-9a-fA-F])"), "a tracker number"),
    (re.compile(r"\bthe issue(?:'s)?\s+(?:names|example|iterative|says)", re.I), "the tracker's issue"),
    (re.compile(r"\bfindings?\s+\d+", re.I), "a finding of a tracker issue"),
    (re.compile(r"\bpapers?\s+0\d\d\b", re.I), "a paper by its file number (cite it by name)"),
    (re.compile(r"\bSPEC(?:\s+(?:section|case|keys|table)|'s\b|\.md\b)"), "the internal contract"),
    (re.compile(r"\bshared/(?:SPEC|papers)\b"), "the internal contract's folder"),
]

# Comments in the library's folders (not tests, benchmarks or tools).
LIBRARY = ("include", "plan_format", "planner", "executor", "scalapack", "fortran", "python/relay",
           "python/src", "predict", "inspect")
TIMING = [
    (re.compile(r"\b\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)?\s?(?:ns|us|µs|ms)\b"), "a timing"),
    (re.compile(r"\btook\s+(?:about\s+|over\s+|only\s+)?\d"), "a timing"),
    (re.compile(r"\b\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)?x\s+(?:longer|faster|slower|the|its|a memcpy|memcpy)\b"),
     "a measured ratio"),
    (re.compile(r"\b\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)?%\s+(?:faster|slower)\b"), "a measured ratio"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:s|seconds|minutes)\s+(?:against|instead|of CPU|a schedule)\b"), "a timing"),
    (re.compile(r"\bwithin\s+\d+\s+(?:seconds|minutes|hours)\b"), "a timing"),
]
C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
HASH_COMMENT = re.compile(r"(?m)#[^\n]*$")
# A comment's continuation marks (" * ", "# "), blanked so that a phrase
# broken across lines still matches; offsets stay.
CONTINUATION = re.compile(r"\n[ \t]*(?:\*(?!/)|#|//)")

SKIPPED_FILES = {"CHANGES.md", os.path.join("tests", "tree", "references.py")}


def source_files(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != ".git" and d != "__pycache__"
                         and not os.path.exists(os.path.join(folder, d, "CMakeCache.txt")))
        for name in sorted(files):
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            if rel in SKIPPED_FILES or os.path.islink(path):
                continue
            with open(path, "rb") as f:
                data = f.read()
            if b"\0" in data:
                continue
            yield rel, data.decode("utf-8", "replace")


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def comments(rel, text):
    """(offset, comment) of each comment of a library source file."""
    if rel.endswith((".c", ".h", ".cu", ".cpp")):
        pattern = C_COMMENT
    elif rel.endswith(".py"):
        pattern = HASH_COMMENT
    else:
        return []
    return [(m.start(), CONTINUATION.sub(lambda c: "\n" + " " * (len(c.group(0)) - 1), m.group(0)))
            for m in pattern.finditer(text)]


def in_library(rel):
    return any(rel == d or rel.startswith(d + os.sep) for d in LIBRARY)


def problems(rel, text):
    for pattern, what in PRIVATE:
        for m in pattern.finditer(text):
            yield line_of(text, m.start()), what, m.group(0)
    if in_library(rel):
        for start, comment in comments(rel, text):
            for pattern, what in TIMING:
                for m in pattern.finditer(comment):
                    if comment[m.start() - 1:m.start()] != '"':  # "0.213 ms": an output's format
                        yield line_of(text, start + m.start()), what + " in a library comment", m.group(0)


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    root = argv[1]
    found = 0
    for rel, text in source_files(root):
        for line, what, match in sorted(set(problems(rel, text))):
            print(f"{rel}:{line}: {what}: '{' '.join(match.split())}'")
            found += 1
    if found:
        print(f"references.py: {found} private reference(s) or timing(s) in shipped text; cite papers by name "
              f"(docs/references.md), upstream bugs by URL, and put timings in docs/benchmarks.md", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
