"""The documentation site builds with warnings as errors, and every README command runs."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from exactodds.cli import cli

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_docs_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocs_click")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    cli_page = (tmp_path / "site" / "cli" / "index.html").read_text()
    for command in ("analyze", "eor", "exposure", "certificate", "verify", "check-sim", "serve"):
        assert command in cli_page
    assert "Sentinel" not in cli_page and not (tmp_path / "site" / "griffe_doctests.py").exists()
    api = (tmp_path / "site" / "api" / "index.html").read_text()
    assert "effects_of_removal" in api and "language-pycon" in api
    _no_raw_role(tmp_path)


#: README commands this test leaves to others: a cluster, a server, another program, shards to make.
_ELSEWHERE = ("--scheduler", "exactodds serve", "other-simulator", "check-sim 'shards", "dask ", "pip install")


def _readme_commands(path: Path = ROOT / "README.md", skip: int = 1) -> list[str]:
    text = path.read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)[skip:]       # the README's first block: the set-up
    commands = []
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("exactodds ") and not any(s in line for s in _ELSEWHERE):
                commands.append(line)
    return commands


@pytest.mark.slow
def test_every_readme_command_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README is the first place a user copies from: its commands run in order, in one directory,
    each exiting 0 (or 1 where a check may flag)."""
    commands = _readme_commands()
    assert len(commands) >= 35
    _run_in_order(commands, tmp_path, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("guide", sorted(p.name for p in (ROOT / "docs" / "howto").glob("*.md")))
def test_every_how_to_command_runs(guide: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: each how-to guide's commands run as written, in order (the live page's is shown as text)."""
    commands = _readme_commands(ROOT / "docs" / "howto" / guide, skip=0)
    assert commands or guide == "watch-live.md"
    _run_in_order(commands, tmp_path, monkeypatch)


def _no_raw_role(tmp_path: Path) -> None:
    """Issue 28: the API reference renders docstrings' Sphinx roles as code, never as ':func:`...`'."""
    role = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const|ref|term):`")
    raw = {str(p.relative_to(tmp_path)): role.findall(p.read_text()) for p in (tmp_path / "site").rglob("*.html")}
    assert not {k: v for k, v in raw.items() if v}
    assert "material" in (tmp_path / "site" / "index.html").read_text()     # the theme


def _run_in_order(commands: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    for command in commands:
        args = shlex.split(command)[1:]
        target = None
        if ">" in args:
            k = args.index(">")
            args, target = args[:k], args[k + 1]
        r = CliRunner().invoke(cli, args)
        assert r.exit_code in (0, 1), (command, r.output[-800:], r.exception)
        if target:
            Path(target).write_text(r.stdout)


def test_i42_the_readme_starts_with_its_set_up_then_says_what_the_tests_need_and_offers_a_quick_subset() -> None:
    """Issue 42: the whole suite took 58 minutes on a busy machine and skipped 21 browser tests without a word.
    The README still starts with its two set-up commands (CI runs the second), then names Chromium and how to
    get it, and shows the quick subset beside the whole suite; the marker is registered and leaves out the
    notebooks."""
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    assert text.startswith("# exactodds\n\n```sh\n") and blocks[0] == (
        "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/exactodds analyze --decks 8\n"
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest\n")
    setup = text[:text.index("\n## ")]                                  # before the first section
    assert "apt-get install chromium" in setup and "python -m playwright install chromium" in setup
    assert '.venv/bin/python -m pytest -m "not slow"' in blocks[1] and ".venv/bin/python -m pytest  " in blocks[1]
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                        "-m", "not slow", "--strict-markers", "notebooks", "tests/test_cards.py"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "tests/test_cards.py::" in r.stdout and ".ipynb" not in r.stdout, r.stdout[-2000:]
