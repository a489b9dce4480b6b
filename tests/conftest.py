"""Hypothesis profiles (CI runs derandomized, so a red run reproduces); the quick subset; a word on skipped
browser tests."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import settings

from .browser import NO_CHROMIUM

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The notebooks (each runs in a kernel of its own) are slow: ``-m "not slow"`` leaves them out."""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.slow)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """However the run reports its skips, one line says how many tests wanted Chromium and how to get it."""
    wanting = [r for r in terminalreporter.stats.get("skipped", [])
               if isinstance(r.longrepr, tuple) and "chromium" in str(r.longrepr[-1]).lower()]
    if wanting:
        terminalreporter.write_line(f"{len(wanting)} browser and PDF test{'' if len(wanting) == 1 else 's'} "
                                    f"skipped: {NO_CHROMIUM}", yellow=True, bold=True)
