"""The layout shows the architecture: layers import downwards only, with no cycle, and imports sit at the top.

The layers, bottom to top (docs/architecture.md says why in this order):

    errors, files, cache, extras, _version   the ground every layer stands on
    game        cards, the shoe, the rules of the round
    render      exact values formatted once; one renderer per output format
    wagers      the features a wager reads, the condition language, pays, the catalogue
    engine      exact counts: round table, multiset tables, patterns, the walk
    analyses    pricing and what follows from it
    simulation  the reference simulator, records, check-sim, exposure, the cluster adapter
    documents   certificates, signing, tables, plots
    interfaces  the command line, the live page, the benchmark
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "exactodds"

#: Layer -> its height; a module may import only from its own height or below.
LAYERS = {
    "errors": 0, "files": 0, "cache": 0, "extras": 0, "_version": 0, "_build": 0,
    "game": 1, "render": 2, "wagers": 3, "engine": 4, "analyses": 5, "simulation": 6, "documents": 7,
    "cli": 8, "serve": 8, "benchmark": 8, "__init__": 8, "__main__": 8,
}

#: Libraries too slow to import on the way to ``exactodds analyze``: reached through exactodds.extras.
HEAVY = ("pyarrow", "scipy", "sympy", "pandas", "matplotlib", "dask", "jinja2", "flask", "pypdf", "cryptography")

#: At most this many imports written inside functions, across the package (each with its reason).
MOST_IMPORTS_IN_FUNCTIONS = 20


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        yield ".".join(parts).removesuffix(".__init__"), path


def _layer(module: str) -> str:
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def _is_module(dotted: str) -> bool:
    path = PACKAGE.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imports(tree: ast.Module) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement outside ``if TYPE_CHECKING:``, and whether it sits inside a function."""
    typing_only: set[int] = set()
    in_function: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only.update(id(n) for n in ast.walk(node))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            in_function.update(id(n) for n in ast.walk(node))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in typing_only:
            yield node, id(node) in in_function


def _targets(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "exactodds"]
    assert node.level == 0, f"relative import {ast.unparse(node)}: write exactodds.<layer>.<module>"
    module = node.module or ""
    if module.split(".")[0] != "exactodds":
        return []
    return [t for t in [module, *(f"{module}.{a.name}" for a in node.names)] if _is_module(t)]


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in _modules():
        graph[module] = set()
        for node, _ in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            graph[module].update(t for t in _targets(node) if t != module and not module.startswith(t + "."))
    return graph


def test_every_module_sits_in_a_known_layer() -> None:
    unknown = sorted({_layer(m) for m, _ in _modules()} - set(LAYERS))
    assert not unknown, f"modules outside the layers: {unknown} (add them to LAYERS and docs/architecture.md)"


def test_layers_import_downwards_only() -> None:
    upward = [f"{m} -> {t}" for m, targets in _graph().items() for t in targets
              if LAYERS[_layer(t)] > LAYERS[_layer(m)]]
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_the_import_graph_has_no_cycle() -> None:
    graph = _graph()
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_imports_sit_at_the_top_and_each_exception_says_why() -> None:
    inside = []
    for module, path in _modules():
        lines = path.read_text(encoding="utf-8").splitlines()
        for node, in_function in _imports(ast.parse("\n".join(lines))):
            if in_function:
                said = "#" in lines[node.lineno - 1] or lines[node.lineno - 2].strip().startswith("#")
                inside.append((f"{module}:{node.lineno}: {ast.unparse(node)}", said))
    unexplained = [where for where, said in inside if not said]
    assert not unexplained, "imports inside functions without a comment giving the reason:\n" + "\n".join(unexplained)
    assert len(inside) <= MOST_IMPORTS_IN_FUNCTIONS, "\n".join(where for where, _ in inside)


def test_heavy_libraries_are_imported_in_one_place() -> None:
    offenders = []
    for module, path in _modules():
        if module == "exactodds.extras":
            continue
        for node, _ in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            offenders += [f"{module}:{node.lineno}: {ast.unparse(node)}" for n in names if n.split(".")[0] in HEAVY
                          and not _single_home(n.split(".")[0], module)]
    assert not offenders, "heavy libraries imported outside exactodds.extras:\n" + "\n".join(offenders)


#: Libraries used by one module only, which imports them at its top: that module is their one place, and
#: it is never on the way to ``analyze``.
_HOMES = {"cryptography": "exactodds.documents.signing", "pypdf": "exactodds.documents.pages",
          "flask": "exactodds.serve"}


def _single_home(library: str, module: str) -> bool:
    return _HOMES.get(library) == module


def test_no_module_of_the_command_line_is_over_400_lines() -> None:
    cli = PACKAGE / "cli"
    modules = sorted(cli.glob("*.py")) if cli.is_dir() else [PACKAGE / "cli.py"]
    long = {p.name: n for p in modules if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert not long, f"command-line modules over 400 lines: {long}"


#: Modules `exactodds analyze` of the main wagers does not need, kept off its start-up: the second
#: route (the walk, for --route walk and the checks), and the vigorish table by bet size.
NOT_FOR_ANALYZE = ("exactodds.engine.walk", "exactodds.analyses.vigorish")


def _modules_loaded(argv: list[str], tmp_path: Path) -> tuple[list[str], str]:
    """The modules a cold ``exactodds ARGV`` has loaded when it ends, and whether the garbage collector
    was back on then (with what start-up made frozen)."""
    code = ("import gc, sys\nfrom exactodds.cli import main\nsys.argv = ['exactodds', *sys.argv[1:]]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(sys.modules), gc.isenabled(), gc.get_freeze_count() > 0, file=sys.stderr, sep='|')\n")
    run = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "EXACTODDS_CACHE_DIR": str(tmp_path)})
    assert run.returncode == 0, run.stderr
    modules, collector, frozen = run.stderr.strip().splitlines()[-1].split("|")
    return ast.literal_eval(modules), f"enabled={collector} frozen={frozen}"


@pytest.mark.parametrize("argv", [["analyze", "--decks", "1", "--wager", "banker"], ["analyze", "--decks", "8"]])
def test_analyze_loads_no_heavy_library(argv: list[str], tmp_path: Path) -> None:
    modules, collector = _modules_loaded(argv, tmp_path)
    assert sorted({m.split(".")[0] for m in modules} & set(HEAVY)) == []
    assert sorted(set(modules) & set(NOT_FOR_ANALYZE)) == []
    assert collector == "enabled=True frozen=True"     # start-up ran without it, the command with it
