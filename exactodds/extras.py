"""The heavy and the optional libraries, each imported here, in one place, when first used.

``exactodds analyze`` starts in about twice the time of a bare ``import numpy`` because
nothing below is imported until a task needs it: Arrow for simulator records, SciPy for
check-sim's tests, sympy for symbols, Jinja2 and tabulate for rendering, and the extras' pandas,
matplotlib, Dask and openpyxl (a certificate's workbook). (A library that only one module uses, off
the way to ``analyze``, is imported at that module's top instead: cryptography in
documents/signing.py, pypdf in documents/pages.py, Flask in serve.py.) A library that an extra brings
is, when missing, one line naming the extra:

>>> LIBRARIES["dask.distributed"]
'cluster'
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType

from exactodds.errors import ExactOddsError

__all__ = ["load", "missing", "LIBRARIES", "EXTRAS"]

#: Module -> the extra that installs it (None: a base dependency, deferred only because it is slow to import).
LIBRARIES: dict[str, str | None] = {
    **dict.fromkeys(("pyarrow", "pyarrow.compute", "pyarrow.csv", "pyarrow.json", "pyarrow.parquet"), "sim"),
    **dict.fromkeys(("scipy.special", "scipy.stats"), "sim"),
    "sympy": None,
    "jinja2": None,
    "jsonschema": None,
    "tabulate": None,
    "pandas": "notebooks",
    "matplotlib.pyplot": "notebooks",
    "dask.distributed": "cluster",
    "openpyxl": "xlsx",
}


#: The top-level module of each library an extra brings -> the extra: what a command module that imports
#: one at its top needs (named in one line when it is missing; see :func:`missing`).
EXTRAS: dict[str, str] = {
    "pyarrow": "sim", "scipy": "sim", "cryptography": "pdf", "rfc8785": "pdf", "pypdf": "pdf", "flask": "serve",
    "waitress": "serve", "pandas": "notebooks", "matplotlib": "notebooks", "dask": "cluster",
    "openpyxl": "xlsx",
}


def missing(exc: ImportError) -> ExactOddsError | None:
    """The one-line error for an extra's library that is not installed, or None if ``exc`` is not one."""
    top = (exc.name or "").split(".")[0]
    if top not in EXTRAS:
        return None
    return ExactOddsError(f"this needs {top}: pip install 'exactodds[{EXTRAS[top]}]'")


@functools.cache
def load(name: str) -> ModuleType:
    """The library ``name``, imported on first use; a missing one is an :class:`ExactOddsError` naming its extra."""
    if name not in LIBRARIES:
        raise KeyError(f"{name!r} is not one of exactodds' deferred libraries")
    try:
        return importlib.import_module(name)
    except ImportError:
        extra = LIBRARIES[name]
        top = name.split(".")[0]
        if extra is None:
            raise ExactOddsError(f"{top} is missing from this installation: reinstall exactodds") from None
        raise ExactOddsError(f"this needs {top}: pip install 'exactodds[{extra}]'") from None
