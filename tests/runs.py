"""Runs of ``python -m exactodds`` that keep a checkpoint, started apart to be stopped from outside (SIGKILL,
SIGTERM): the kill tests of exposure and check-sim (issue 39)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def written_anew(args: list[str], state: Path, *, every: str, text: bool = False,
                 timeout: float = 60) -> subprocess.Popen:
    """``exactodds ARGS --checkpoint STATE --checkpoint-every EVERY`` started in a process of its own, returned
    once it has written STATE anew (a state to resume that this run made), or ended, or ``timeout`` passed."""
    before = state.stat().st_mtime_ns if state.exists() else None
    p = subprocess.Popen([sys.executable, "-m", "exactodds", *args, "--checkpoint", str(state), "--checkpoint-every",
                          every], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=text,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + timeout
    while p.poll() is None and time.monotonic() < deadline and (
            not state.exists() or state.stat().st_mtime_ns == before):
        time.sleep(0.01)
    return p


def killed(args: list[str], state: Path, *, pause: float, wait: bool = True, done: bool = False) -> None:
    """The run of :func:`written_anew` (``--checkpoint-every 0``; with ``wait``, once it wrote STATE anew) killed
    with SIGKILL ``pause`` seconds later: no handler runs, no last write is made. With ``done``, a run that ended
    on its own before (its last write made) passes too."""
    p = written_anew(args, state, every="0", timeout=60 if wait else 0)
    time.sleep(pause)
    p.send_signal(signal.SIGKILL)
    p.wait()
    said = p.stderr.read() if p.stderr else ""
    if p.stderr:
        p.stderr.close()
    assert p.returncode == -signal.SIGKILL or done and p.returncode == 0, (p.returncode, said)
