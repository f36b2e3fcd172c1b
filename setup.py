"""setup.py — how pip builds relay: the extension module relay._core comes
from the project's own CMake build (python/CMakeLists.txt), configured for
the interpreter running pip; setuptools packages it with python/relay/.
The metadata lives in pyproject.toml.

The module links relay's objects statically and exports its entry point
alone, so the wheel loads nothing of relay from elsewhere; MPI is the
machine's (the one CMake finds, as for the C libraries), and the CUDA
runtime, where a toolkit is found, is linked in too.

Environment: CMAKE_ARGS, extra configure arguments (for MPICH beside Open
MPI on Debian: CMAKE_ARGS=-DMPI_EXECUTABLE_SUFFIX=.mpich);
CMAKE_BUILD_PARALLEL_LEVEL, the compile jobs (default: all cores).
"""

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
# The CMake build folder, where setuptools keeps its work folders too: not
# build/, which the README's CMake build uses.  A build tree by its
# CMakeCache.txt, which the checks of the source tree leave out.
BUILD_BASE = "build-python"


class CMakeExtension(Extension):
    """An extension module that a CMake target builds."""

    def __init__(self, name: str, target: str):
        super().__init__(name, sources=[])
        self.target = target


class BuildWithCMake(build_ext):
    """Configures the project for this interpreter and builds the module's
    target.  The build folder stays: a later build recompiles what changed,
    and for another interpreter the module alone, not relay."""

    def build_extension(self, ext: CMakeExtension) -> None:
        build_dir = Path(BUILD_BASE).resolve()
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir),
            # FindPython keeps what it found (its _Python3_* cache entries)
            # when told another interpreter: forgotten, to be found anew.
            "-U", "_Python3_*",
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DPython3_EXECUTABLE={sys.executable}",
            "-DRELAY_BUILD_PYTHON=ON", "-DRELAY_BUILD_TESTS=OFF", "-DRELAY_BUILD_BENCH=OFF",
            "-DRELAY_BUILD_FORTRAN=OFF", "-DRELAY_CUDA_RUNTIME=static",
            *shlex.split(os.environ.get("CMAKE_ARGS", "")),
        ]
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", ext.target, "--parallel", jobs], check=True)

        # python/CMakeLists.txt assembles the package in the build's python/.
        module = build_dir.joinpath("python", *ext.name.split(".")).with_suffix(sysconfig.get_config_var("EXT_SUFFIX"))
        if not module.exists():
            sys.exit(f"relay: CMake built no {module} (configured for another Python than {sys.executable}?)")
        destination = Path(self.get_ext_fullpath(ext.name))
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(module, destination)


Path(BUILD_BASE).mkdir(exist_ok=True)  # egg_info writes there and wants it made
setup(
    ext_modules=[CMakeExtension("relay._core", target="relay_python")],
    cmdclass={"build_ext": BuildWithCMake},
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
)
