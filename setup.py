"""Build hook: fix the source commit into the package when a wheel is built (exactodds/_build.py).

Certificates name the commit the package was built from. It is read here, from
the repository this file sits at the top of, at build time — never later from
whatever git repository happens to surround the installed files. Metadata lives
in setup.cfg.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=20,
                             check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


class BuildWithProvenance(build_py):
    """build_py, then exactodds/_build.py with the commit and whether the tree was modified."""

    def run(self) -> None:
        super().run()
        top = _git("rev-parse", "--show-toplevel")
        commit = _git("rev-parse", "HEAD") if top and Path(top).resolve() == ROOT else None
        modified = bool(_git("status", "--porcelain", "--untracked-files=no")) if commit else None
        target = Path(self.build_lib) / "exactodds" / "_build.py"
        target.write_text('"""Written by setup.py when this package was built; never edited by hand."""\n'
                          f"SOURCE_COMMIT = {commit!r}\nSOURCE_MODIFIED = {modified!r}\n", encoding="utf-8")


#: The engine's compiled kernels (exactodds/engine/_core.c: plain C and the Python C API, nothing else to
#: install). Optional: where it cannot be built the package installs without it, and every command
#: gives the same exact numbers by the pure route (exactodds.engine.native says which is in use).
CORE = Extension("exactodds.engine._core", ["exactodds/engine/_core.c"], optional=True,
                 extra_compile_args=["-O2", "-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter"])

setup(cmdclass={"build_py": BuildWithProvenance}, ext_modules=[CORE])
