"""The README's Python example, run as the README says.

Takes the README's first ```python fence and the `mpiexec -n N python3
FILE` line that introduces it, saves the fence as FILE in a fresh folder
and runs it there on N ranks under this build's launcher, which must end
with the example's own check printed by rank 0 ("... on N ranks:
checked"): an example that stopped checking, or lost its launch line,
fails here.

    usage: python3 readme_example.py README MPIEXEC NUMPROC_FLAG [PREFLAGS...]
"""

import pathlib
import re
import subprocess
import sys
import tempfile


def example_of(readme: str) -> tuple[int, str, str]:
    """(ranks, file name, code) of the first Python fence and its launch line."""
    fence = re.search(r"`mpiexec -n (\d+) python3 (\S+\.py)`[^`]*?```python\n(.*?)```", readme, re.S)
    if not fence:
        sys.exit("FAIL: the README has no ```python fence introduced by `mpiexec -n N python3 FILE.py`")
    return int(fence.group(1)), fence.group(2), fence.group(3)


def main() -> None:
    readme, launcher = pathlib.Path(sys.argv[1]), sys.argv[2:]
    ranks, name, code = example_of(readme.read_text())
    with tempfile.TemporaryDirectory() as folder:
        (pathlib.Path(folder) / name).write_text(code)
        command = [launcher[0], launcher[1], str(ranks), *launcher[2:], sys.executable, name]
        print(" ".join(command), flush=True)
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=600)
    print(done.stdout + done.stderr)
    if done.returncode != 0:
        sys.exit(f"FAIL: the example exited with {done.returncode}")
    if f"on {ranks} ranks: checked" not in done.stdout:
        sys.exit(f"FAIL: the example did not print its check on {ranks} ranks")


if __name__ == "__main__":
    main()
