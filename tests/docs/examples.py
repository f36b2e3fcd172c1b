#!/usr/bin/env python3
"""examples.py — every C and Fortran example of relay's docs (README.md and
docs/*.md), compiled, and run where it is a program fragment.

A code fence is checked according to an HTML comment on the line before it
(Markdown shows neither the comment nor anything of it):

  <!-- example: declarations -->
      (C) a listing of the API as the headers declare it.  Its function
      prototypes are compiled after relay's headers, which they must match;
      its type and macro definitions (typedef ..., enum {...};, #define)
      must appear in relay's headers token for token, comments aside.
  <!-- example: frame NAME -->
      a fragment of a program: the lines of tests/docs/frames/NAME with the
      fence in place of the line `@EXAMPLE@` (indented as that line is),
      compiled and run under mpiexec at the rank count the frame's first
      line gives (`ranks: N`).  The frame declares what the fragment uses
      and no more (a Fortran frame takes its kinds from iso_fortran_env, so
      that the fragment's own `use relay` must give it c_int64_t and the
      like), fills the fragment's inputs and checks its results against its
      own formulas.

A ```c or ```fortran fence without such a comment fails the test, so that no
example goes unchecked.  Other languages' fences are left to their own
checkers: add one to CHECKERS (Python's fences, in docs/python.md, belong to
the Python package's tests).

usage: examples.py CONFIG   (CONFIG: a JSON file of the build's compilers,
flags and launcher, written by tests/CMakeLists.txt)
"""
import json
import os
import re
import subprocess
import sys

MARKER = re.compile(r"^\s*<!--\s*example:\s*(\S+)\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
HEADERS = ["relay/relay.h", "relay/exec.h", "relay/scalapack.h", "relay/predict.h"]


class Fence:
    """One fenced block: where it is, its language, its lines and its marker."""

    def __init__(self, path, line, lang, lines, marker):
        self.path, self.line, self.lang, self.lines, self.marker = path, line, lang, lines, marker

    def where(self):
        return f"{self.path}:{self.line}"


def fences(path, shown):
    """The fenced blocks of the Markdown file at path, in order."""
    with open(path, encoding="utf-8") as f:
        text = f.read().splitlines()
    k = 0
    while k < len(text):
        opening = FENCE.match(text[k])
        if not opening:
            k += 1
            continue
        indent, lang = opening.group(1), opening.group(2)
        end = k + 1
        while end < len(text) and text[end].strip() != "```":
            end += 1
        previous = next((t for t in reversed(text[:k]) if t.strip()), "")
        marker = MARKER.match(previous)
        body = [t[len(indent):] if t.startswith(indent) else t.lstrip() for t in text[k + 1:end]]
        yield Fence(shown, k + 1, lang, body, marker.groups() if marker else None)
        k = end + 1


def run(command, what, cwd):
    """Runs command; on failure the lines saying why."""
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    if done.returncode == 0:
        return []
    return [f"{what} failed ({done.returncode}): {' '.join(command)}", done.stdout[-4000:]]


# ---- declarations: prototypes compiled, definitions found in the headers ----

def tokens(text):
    """C tokens of text, comments dropped."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.findall(r"[A-Za-z_]\w*|\d[\w.]*|\S", text)


def definitions_and_rest(lines):
    """The fence's type and macro definitions (each a string) and the rest."""
    text = "\n".join(lines)
    found = []
    pattern = re.compile(r"#define[^\n]*|typedef\s+(?:struct|enum|union)\s*\{.*?\}\s*\w+\s*;|"
                         r"enum\s*\{.*?\}\s*;|typedef[^;{]*;", re.S)
    rest = pattern.sub(lambda m: found.append(m.group(0)) or "", text)
    return found, rest


def contains(haystack, needle):
    """Whether the token list needle appears in haystack, contiguously."""
    n = len(needle)
    return any(haystack[k:k + n] == needle for k in range(len(haystack) - n + 1))


def check_declarations(fence, config, work):
    header_tokens = []
    folder = os.path.join(config["include"], "relay")
    for h in sorted(os.listdir(folder)):
        with open(os.path.join(folder, h), encoding="utf-8") as f:
            header_tokens += tokens(f.read())
    definitions, rest = definitions_and_rest(fence.lines)
    problems = [f"{fence.where()}: not in relay's headers as written: {' '.join(tokens(d))}"
                for d in definitions if not contains(header_tokens, tokens(d))]
    source = os.path.join(work, f"declarations_{os.path.basename(fence.path)}_{fence.line}.c")
    with open(source, "w", encoding="utf-8") as f:
        f.write("".join(f"#include <{h}>\n" for h in HEADERS) + f'#line {fence.line + 1} "{fence.path}"\n' + rest + "\n")
    problems += run([config["cc"], "-std=c17", "-fsyntax-only", "-I" + config["include"], *config["cflags"], source],
                    f"{fence.where()}: compiling its declarations", work)
    return problems


# ---- frames: fragments compiled into a program and run ----------------------

def framed(fence, frame_path):
    """The frame's lines with the fence in place of its @EXAMPLE@ line, and
    the rank count its first line names."""
    with open(frame_path, encoding="utf-8") as f:
        frame = f.read().splitlines()
    ranks = re.search(r"ranks:\s*(\d+)", frame[0])
    slot = next(k for k, t in enumerate(frame) if t.strip() == "@EXAMPLE@")
    indent = frame[slot][:len(frame[slot]) - len(frame[slot].lstrip())]
    body = [indent + t if t.strip() else "" for t in fence.lines]
    return frame[:slot] + body + frame[slot + 1:], int(ranks.group(1)) if ranks else 1


def check_frame(fence, config, work, compile_command):
    name = fence.marker[1]
    frame_path = os.path.join(config["source"], "tests", "docs", "frames", name)
    if not os.path.isfile(frame_path):
        return [f"{fence.where()}: no frame tests/docs/frames/{name}"]
    lines, ranks = framed(fence, frame_path)
    stem = f"{os.path.basename(fence.path)}_{fence.line}_{os.path.splitext(name)[0]}"
    source = os.path.join(work, stem + os.path.splitext(name)[1])
    with open(source, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    program = os.path.join(work, stem)
    problems = run(compile_command(source, program), f"{fence.where()}: compiling it in its frame ({source})", work)
    if not problems:
        launcher = [config["mpiexec"], config["np_flag"], str(ranks), *config["mpiexec_flags"], program]
        problems = run(launcher, f"{fence.where()}: running it in its frame", work)
    return problems


def c_command(config):
    return lambda source, program: [config["cc"], "-std=c17", "-Wall", "-Werror", "-I" + config["include"],
                                    *config["cflags"], source, "-o", program, *config["libs"], "-lm"]


def fortran_command(config):
    return lambda source, program: [config["fc"], "-Wall", "-Werror", "-I" + config["fortran_modules"],
                                    *config["fflags"], source, "-o", program, *config["flibs"]]


def checker(lang):
    """The check of a marked fence of lang: (fence, config, work) -> problems."""
    def check(fence, config, work):
        kind = fence.marker[0]
        if kind == "declarations" and lang == "c":
            return check_declarations(fence, config, work)
        if kind == "frame":
            return check_frame(fence, config, work, c_command(config) if lang == "c" else fortran_command(config))
        return [f"{fence.where()}: unknown example kind '{kind}' for ```{lang}"]
    return check


# The languages whose fences are checked; a fence of another language is
# skipped.  Add Python's ('python': its checker) to check docs/python.md's.
CHECKERS = {"c": checker("c"), "fortran": checker("fortran")}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        config = json.load(f)
    if not config.get("fc"):
        del CHECKERS["fortran"]
    work = config["work"]
    os.makedirs(work, exist_ok=True)
    docs = ["README.md"] + sorted(os.path.join("docs", d) for d in os.listdir(os.path.join(config["source"], "docs"))
                                  if d.endswith(".md"))
    problems, checked = [], 0
    for doc in docs:
        for fence in fences(os.path.join(config["source"], doc), doc):
            check = CHECKERS.get(fence.lang)
            if not check:
                continue
            if not fence.marker:
                problems.append(f"{fence.where()}: a ```{fence.lang} fence without an <!-- example: ... --> comment "
                                "before it (tests/docs/examples.py says which)")
                continue
            found = check(fence, config, work)
            checked += 1
            print(f"{'FAIL' if found else 'ok'}: {fence.where()} ({fence.lang}, {' '.join(fence.marker).strip()})")
            problems += found
    print("\n".join(problems))
    print(f"{checked} examples checked, {len(problems)} problem(s)")
    return 1 if problems or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
