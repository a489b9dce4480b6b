"""Where the browser and PDF tests find Chromium, and what a test skipped for the want of it says.

exactodds prints PDFs (and the certificate tests render HTML) with the ``chromium`` command on PATH: the
distribution's package. The live page's Playwright tests use that Chromium too, or else Playwright's own
(``python -m playwright install chromium``).
"""

from __future__ import annotations

import shutil
from typing import Any

import pytest

__all__ = ["CHROMIUM", "NO_CHROMIUM", "needs_chromium", "launch"]

#: The Chromium exactodds itself runs (``--format pdf``, ``verify`` of a PDF), or None.
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

#: The reason of every test skipped for want of Chromium: what it needs and the command that installs it.
NO_CHROMIUM = ("needs Chromium, not found on PATH: install the distribution's package (apt-get install chromium "
               "on Debian); the live page's Playwright tests also run on Playwright's own: "
               "python -m playwright install chromium")

#: Skips a test that runs the ``chromium`` command, saying why.
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)

#: Flags of a headless Chromium in a container: no sandbox, no GPU, nothing fetched.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run"]


def launch(playwright: Any) -> Any:
    """A headless Chromium for a Playwright test: the one on PATH, else Playwright's own; if neither can be
    had, the test is skipped with :data:`NO_CHROMIUM`."""
    try:
        return playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
    except Exception as exc:                         # playwright's Error: no executable where it looked
        if CHROMIUM is None and "Executable doesn't exist" in str(exc):
            pytest.skip(NO_CHROMIUM)
        raise
