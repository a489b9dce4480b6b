"""Issue 40, item 2: the command's entry point (exactodds/__main__.py) answers Ctrl-C and SIGTERM first.

An interrupt while the command started printed a KeyboardInterrupt traceback. The entry point now installs
its one-line handlers before anything heavy is imported; the command takes the signals over inside the
block that answers them, and hands them back; once the run is over a late signal leaves its status.
What Python does before the first line of exactodds (its start-up, the console script's ``import re``) is
out of any code's reach: the tests send their signals from the moment the entry point's handler is in place
(the process's SigCgt shows SIGTERM caught).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import exactodds.__main__ as entry
from exactodds.cli import cli
from exactodds.errors import Interrupted

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = Path(sys.executable).with_name("exactodds")


def _env(tmp: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
                EXACTODDS_CACHE_DIR=str(tmp / "cache"))


def test_the_entry_point_imports_nothing_heavy_before_its_handlers() -> None:
    """Importing the entry point (as the console script does) loads the package's light __init__ and the signal
    module, not click, NumPy, typing or any other module of exactodds."""
    code = ("import sys\nbefore = set(sys.modules)\nimport exactodds.__main__\n"
            "print(' '.join(sorted(set(sys.modules) - before)))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT,
                         env=_env(ROOT))
    loaded = set(run.stdout.split())
    assert run.returncode == 0, run.stderr
    assert {m for m in loaded if m.startswith("exactodds")} == {"exactodds", "exactodds._version",
                                                                 "exactodds.__main__"}, loaded
    assert not loaded & {"click", "numpy", "typing", "importlib.util", "lazy_loader"}, loaded


def test_importing_the_package_installs_no_handler(tmp_path: Path) -> None:
    """A library never takes over signals on import (the package once did, when argv[0] was 'exactodds')."""
    script = tmp_path / "exactodds"
    script.write_text("import signal, exactodds\nprint(signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)\n")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                         env=_env(tmp_path))
    assert run.stdout.strip() == "True", run.stderr


def _caught_sigterm(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    caught = next((ln for ln in status.read_text().splitlines() if ln.startswith("SigCgt:")), "SigCgt: 0")
    return bool(int(caught.split()[1], 16) >> (signal.SIGTERM - 1) & 1)


#: When each signal is sent, in seconds after the entry point's handler is in place: while the command's
#: modules are imported, while it runs, as it ends and after (the run takes about 0.3 s on an idle machine).
#: The last ones let a run end first on a busy machine too (a cold analyze with an empty cache took over 0.8 s there).
DELAYS = (0.0, 0.002, 0.005, 0.01, 0.02, 0.04, 0.07, 0.1, 0.15, 0.2, 0.3, 0.45, 0.6, 0.8, 1.5, 3.0)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads which signals a process catches in /proc")
@pytest.mark.parametrize("how", ["console script", "python -m exactodds"])
def test_a_signal_at_any_moment_after_the_entry_point_begins_is_one_line(tmp_path: Path, how: str) -> None:
    """Bounded: 16 runs, each at most 60 s; SIGINT and SIGTERM in turn."""
    if how == "console script" and not SCRIPT.exists():
        pytest.skip("no exactodds console script beside this Python")
    argv = [str(SCRIPT)] if how == "console script" else [sys.executable, "-m", "exactodds"]
    seen = []
    for i, delay in enumerate(DELAYS):
        signum = (signal.SIGINT, signal.SIGTERM)[i % 2]
        run = subprocess.Popen([*argv, "analyze", "--wager", "tie"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, env=_env(tmp_path))
        deadline = time.monotonic() + 60
        while run.poll() is None and not _caught_sigterm(run.pid) and time.monotonic() < deadline:
            time.sleep(0.001)
        with contextlib.suppress(subprocess.TimeoutExpired):         # the delay, or less where the run ends first
            run.wait(timeout=delay)
        if run.poll() is None:
            run.send_signal(signum)
        _, err = run.communicate(timeout=60)
        word = "interrupted" if signum == signal.SIGINT else "terminated"
        seen.append((delay, signum, run.returncode, err))
        assert "Traceback" not in err and "KeyboardInterrupt" not in err, seen[-1]
        assert (run.returncode, err) in ((128 + signum, f"exactodds: {word}\n"), (0, "")), seen[-1]
    assert any(s[2] != 0 for s in seen) and any(s[2] == 0 for s in seen), seen    # both ends were reached


@pytest.fixture()
def handlers_kept() -> object:
    """The test's own SIGINT and SIGTERM handlers, put back however the entry point left them."""
    kept = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield kept
    for s, h in kept.items():
        signal.signal(s, h)


def _run_entry(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Run the entry point in this process (its os._exit made an exception): the status and what it wrote."""
    class Exited(BaseException):
        pass

    def exit_now(status: int) -> None:
        raise Exited(status)

    monkeypatch.setattr(entry.os, "_exit", exit_now)
    monkeypatch.setattr(sys, "argv", ["exactodds", *argv])
    try:
        entry.main()
        status = 0
    except SystemExit as exc:
        status = int(exc.code or 0)
    except Exited as exc:
        status = exc.args[0]
    out = capfd.readouterr()
    return status, out.err


def test_a_signal_while_an_error_is_being_reported_is_still_one_line(monkeypatch: pytest.MonkeyPatch,
                                                                      capfd: pytest.CaptureFixture[str],
                                                                      handlers_kept: object) -> None:
    """A Ctrl-C landing as the command prints its own error (in the block that answers errors, where the command
    cannot answer it again) reached Python as a traceback; the entry point answers it."""
    import exactodds.cli.core as core

    def interrupted_echo(message: object = None, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(core.click, "echo", interrupted_echo)
    status, err = _run_entry(monkeypatch, capfd, "analyze", "--decks", "0")
    assert (status, err) == (130, "exactodds: interrupted\n")


def test_sigterm_while_click_parses_is_terminated_143(monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGTERM arriving while click parsed the group's options was reported as 'interrupted', exit 130, after a blank
    line (click's, which closes a terminal's ^C)."""
    from exactodds.cli import _Cli

    def parse(self: object, ctx: object, args: list[str]) -> list[str]:
        raise Interrupted(signal.SIGTERM)

    monkeypatch.setattr(_Cli, "parse_args", parse)
    r = CliRunner().invoke(cli, ["analyze", "--wager", "tie"])
    assert r.exit_code == 143 and r.stderr == "exactodds: terminated\n", r.output


def test_the_command_takes_the_signals_over_and_hands_them_back(monkeypatch: pytest.MonkeyPatch,
                                                                 capfd: pytest.CaptureFixture[str],
                                                                 handlers_kept: object) -> None:
    """While the command runs, Ctrl-C unwinds (files are removed on the way); once the run is over a signal is
    ignored, so that one landing as Python shuts down leaves the run's status instead of killing it silently."""
    import exactodds.cli as package

    during: list[object] = []
    real = package._Cli.invoke

    def invoke(self: object, ctx: object) -> object:
        during.append(signal.getsignal(signal.SIGINT))
        return real(self, ctx)    # type: ignore[arg-type]

    monkeypatch.setattr(package._Cli, "invoke", invoke)
    status, err = _run_entry(monkeypatch, capfd, "list", "--format", "csv")
    assert status == 0 and err == ""
    assert during == [package._interrupt]
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN and signal.getsignal(signal.SIGTERM) is signal.SIG_IGN


def test_an_interrupt_python_swallows_in_a_callback_still_stops_the_run(monkeypatch: pytest.MonkeyPatch,
                                                                         capfd: pytest.CaptureFixture[str],
                                                                         handlers_kept: object) -> None:
    """CI saw Ctrl-C land in a weak reference's callback as a module was imported: Python printed "Exception
    ignored ... KeyboardInterrupt" with a traceback, dropped the interrupt, and the run went on to exit 0. The
    interrupt is now kept: one line, status 130, and nothing of Python's."""
    import weakref

    import exactodds.cli as package

    real = package._Cli.invoke

    class Lock:
        pass

    def invoke(self: object, ctx: object) -> object:
        lock = Lock()
        kept = weakref.ref(lock, lambda ref: signal.raise_signal(signal.SIGINT))
        del lock                                              # the callback runs here; its exception is lost
        assert kept() is None
        return real(self, ctx)    # type: ignore[arg-type]

    monkeypatch.setattr(package._Cli, "invoke", invoke)
    status, err = _run_entry(monkeypatch, capfd, "list", "--format", "csv")
    assert (status, err) == (130, "exactodds: interrupted\n")


def test_a_run_that_leaves_a_thread_behind_keeps_ctrl_c_for_the_shutdown(monkeypatch: pytest.MonkeyPatch,
                                                                         capfd: pytest.CaptureFixture[str],
                                                                         handlers_kept: object) -> None:
    """Python's shutdown waits for a thread that is not a daemon: Ctrl-C must still be able to stop that wait."""
    import threading

    release = threading.Event()
    waiting = threading.Thread(target=release.wait, args=(30,))
    waiting.start()
    try:
        status, _ = _run_entry(monkeypatch, capfd, "features", "--format", "csv")
        assert status == 0 and signal.getsignal(signal.SIGINT) is entry._stop
    finally:
        release.set()
        waiting.join(5)


def test_an_interrupt_that_passed_through_exec_still_ends_130(tmp_path: Path) -> None:
    """Ctrl-C landing while Python ran code it made with exec() (a dataclass or named tuple being defined, as
    the command's modules load) was answered in one line, and then Python, taking it for an interrupt nobody
    caught, killed the process with SIGINT as it exited (status -2; under ``python -m``, where the exit status
    is left to Python's own exit). The entry point now ends such a run itself, once it has answered it."""
    driver = tmp_path / "driver.py"
    driver.write_text(
        "import sys, types\nimport exactodds.__main__ as entry\nimport exactodds.cli as package\n\n"
        "def load(name, package=None):                # as the command's module loads: the signal lands in exec\n"
        "    exec('raise KeyboardInterrupt')\n\n"
        "package.importlib = types.SimpleNamespace(import_module=load)\nsys.argv = ['exactodds', 'features']\n"
        "entry.main()\n")
    env = _env(tmp_path)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    run = subprocess.run([sys.executable, "-m", "driver"], capture_output=True, text=True, timeout=60, env=env)
    assert (run.returncode, run.stderr) == (130, "exactodds: interrupted\n")


def test_the_entry_point_asks_one_thread_of_the_numerical_libraries_unless_the_user_set_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38, item 5: exposure's worker processes each ran NumPy's BLAS threads, which fought the pool."""
    from exactodds import __main__ as entry
    for name in entry._ONE_THREAD:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    entry._one_thread()
    assert {n: os.environ[n] for n in entry._ONE_THREAD} == {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "3",
                                                            "MKL_NUM_THREADS": "1", "BLIS_NUM_THREADS": "1"}
