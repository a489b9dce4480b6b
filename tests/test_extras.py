"""Issue 28, item 5: a light base install for pricing, extras for the rest, a missing extra named in one line."""

from __future__ import annotations

import configparser
import subprocess
import sys
from pathlib import Path

import pytest

from exactodds.extras import EXTRAS, LIBRARIES

ROOT = Path(__file__).resolve().parents[1]
#: Every library an extra brings (blocked below, as if not installed).
OPTIONAL = sorted(EXTRAS)


def _run(blocked: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    code = (f"import sys\nfor name in {blocked!r}: sys.modules[name] = None\n"
            f"sys.argv = ['exactodds', *{list(args)!r}]\nfrom exactodds.cli import main\nmain()")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)


@pytest.mark.slow
def test_pricing_counting_and_designing_need_no_extra() -> None:
    for args in (["analyze", "--decks", "8"], ["analyze", "--wager", "perfect-pairs-player", "--remove", "Ks,Kh"],
                 ["design", "--wager", "tie", "--target-edge", "5%"], ["eor", "--wager", "dragon-7-insurance"],
                 ["vigorish"], ["list"], ["--help"]):
        done = _run(OPTIONAL, *args)
        assert done.returncode == 0 and done.stdout, (args, done.stderr)


@pytest.mark.slow
@pytest.mark.parametrize(("library", "args", "extra"), [
    ("flask", ["serve", "--port", "0"], "serve"),
    ("pypdf", ["verify", "README.md"], "pdf"),
    ("cryptography", ["keygen", "--output", "/nonexistent/k"], "pdf"),
    ("pyarrow", ["check-sim", "examples/counts.json"], "sim"),
    ("scipy", ["check-sim", "examples/counts.json", "--counts"], "sim"),
    ("pyarrow", ["simulate", "--rounds", "10", "--output", "-"], "sim"),
])
def test_a_missing_extra_is_one_line_naming_it(library: str, args: list[str], extra: str) -> None:
    done = _run([library], *args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"exactodds: error: this needs {library}: pip install 'exactodds[{extra}]'\n"


def test_the_extras_declared_are_the_extras_named() -> None:
    """setup.cfg's extras hold what extras.py says each library comes from; 'all' and 'test' hold every one."""
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    declared = {name: [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
                for name, text in cfg["options.extras_require"].items()}
    for library, extra in {**EXTRAS, **{k.split(".")[0]: v for k, v in LIBRARIES.items() if v}}.items():
        assert any(req.lower().startswith(library) for req in declared[extra]), (library, extra)
    for bundle in ("all", "test"):
        assert {"pdf", "sim", "serve", "notebooks", "cluster"} <= set(
            declared[bundle][0].split("[", 1)[1].rstrip("]").split(",")), bundle
    base = cfg["options"]["install_requires"]
    assert not any(library in base for library in EXTRAS)
