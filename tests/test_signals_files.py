"""Issue 26: verify in bounded time; nothing left behind by a write that ends short (Ctrl-C, SIGTERM, a
full disk); a failed ``--output FILE`` names the file."""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from exactodds import files
from exactodds.cli import cli
from exactodds.documents import certificate as certificate_module
from exactodds.documents import tables
from exactodds.errors import ExactOddsError, Interrupted

from .browser import NO_CHROMIUM

EXE = [sys.executable, "-m", "exactodds.cli"]
#: The console script where installed: it answers a signal while it starts in one line, as users run it.
SCRIPT = ([str(Path(sys.executable).with_name("exactodds"))] if Path(sys.executable).with_name("exactodds").exists()
          else EXE)


def _env(tmp: Path, tmpdir: Path | None = None) -> dict[str, str]:
    """The child's environment: this tree first on the path, its own cache and temporary folder."""
    root = str(Path(__file__).resolve().parents[1])
    return dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]),
                EXACTODDS_CACHE_DIR=str(tmp / "cache"), TMPDIR=str(tmpdir or tmp))


@pytest.fixture()
def tmpdir_short() -> Iterator[Path]:
    """An empty TMPDIR with a short name (Chromium aborts when its socket's path is longer than 107 bytes)."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="eo-", dir="/tmp" if Path("/tmp").is_dir() else None))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _left_behind(folder: Path) -> list[str]:
    """Temporary files (hidden, or named *.tmp) and empty folders under ``folder``."""
    out = []
    for p in folder.rglob("*"):
        if p.name.startswith(".") or p.name.endswith(".tmp") or (p.is_dir() and not any(p.iterdir())):
            out.append(str(p.relative_to(folder)))
    return sorted(out)


@pytest.fixture(scope="module")
def tie_certificate(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("cert") / "tie.json"
    r = CliRunner().invoke(cli, ["certificate", "--wager", "tie", "--decks", "8", "--decks", "6", "--format", "json",
                                 "--issued", "2026-01-02", "--output", str(out)])
    assert r.exit_code == 0, r.output
    return json.loads(out.read_text())


# -- verify in bounded time ------------------------------------------------------------------------

def test_verify_refuses_a_certificate_of_200_shoes_at_once(tmp_path: Path, tie_certificate: dict) -> None:
    """Verifying a certificate that lists 200 shoes (of the whole catalogue) was busy for more than 300 s;
    it is now refused, in one line naming the limit, before anything is recomputed (the timeout is a
    guard, not a measure)."""
    from exactodds.wagers.catalogue import load_catalogue

    ranks = "A23456789TJQK"
    doc = json.loads(json.dumps(tie_certificate))
    doc["inputs"]["shoes"] = [{"decks": 8, "remove": [f"{ranks[i % 13]}S"] * (1 + i // 13)} for i in range(200)]
    doc["inputs"]["selection"] = [{"wager": w.id, "paytable": t} for w in load_catalogue().values()
                                  for t in w.paytables]
    path = tmp_path / "many-shoes.json"
    path.write_text(json.dumps(doc))
    r = subprocess.run([*EXE, "verify", str(path)], capture_output=True, text=True, timeout=120, env=_env(tmp_path))
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "200 shoes, more than the 16 allowed" in r.stderr and certificate_module.MAX_SHOES == 16
    assert str(path) in r.stderr and r.stdout == ""


@pytest.mark.parametrize("what", ["wagers", "paytables", "tables"])
def test_verify_refuses_too_many_wagers_paytables_or_tables(tmp_path: Path, tie_certificate: dict,
                                                             what: str) -> None:
    doc = json.loads(json.dumps(tie_certificate))
    if what == "wagers":
        doc["inputs"]["selection"] = [{"wager": f"w{i}", "paytable": "A"}
                                      for i in range(certificate_module.MAX_WAGERS + 1)]
        words = f"{certificate_module.MAX_WAGERS + 1:,} wagers"
    elif what == "paytables":
        doc["inputs"]["selection"] = [{"wager": "tie", "paytable": f"p{i}"}
                                      for i in range(certificate_module.MAX_PAYTABLES + 1)]
        words = f"{certificate_module.MAX_PAYTABLES + 1:,} wager paytables"
    else:
        shoes = certificate_module.MAX_SHOES
        per = certificate_module.MAX_TABLES // shoes + 1
        doc["inputs"]["shoes"] = [{"decks": d, "remove": []} for d in range(1, shoes + 1)]
        doc["inputs"]["selection"] = [{"wager": "tie", "paytable": f"p{i}"} for i in range(per)]
        words = f"{shoes * per:,} priced tables"
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc))
    r = CliRunner().invoke(cli, ["verify", str(path)])
    assert r.exit_code == 2, r.output
    assert r.stderr.count("\n") == 1 and words in r.stderr and "split it" in r.stderr, r.stderr


def test_verify_reads_no_more_than_the_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A certificate file beyond the byte limit is refused without being read whole (the limit is made
    small here so that the test writes little)."""
    import exactodds.documents.pages as documents

    monkeypatch.setattr(documents, "MAX_BYTES", 4096)
    path = tmp_path / "large.json"
    path.write_text('{"format": "' + certificate_module.FORMAT + '", "title": "' + "x" * 5000 + '"}')
    r = CliRunner().invoke(cli, ["verify", str(path)])
    assert r.exit_code == 2 and "certificate too large" in r.stderr and "4,096 bytes" in r.stderr, r.output
    assert r.stderr.count("\n") == 1


def test_the_limits_are_stated_in_verify_help_and_the_docs() -> None:
    c = certificate_module
    stated = [f"{c.MAX_SHOES} shoes", f"{c.MAX_WAGERS} wagers", f"{c.MAX_PAYTABLES} wager paytables",
              f"{c.MAX_TABLES:,} priced tables", f"{c.MAX_BYTES >> 20} MiB"]
    text = " ".join(CliRunner().invoke(cli, ["verify", "--help"]).output.split())
    readme = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text().split())
    for words in stated:
        assert words in text, (words, text)
        assert words in readme, words
        assert words in c.LIMITS, words


def test_certificate_refuses_what_verify_would(tmp_path: Path) -> None:
    decks = [a for d in range(1, certificate_module.MAX_SHOES + 2) for a in ("--decks", str(d))]
    r = CliRunner().invoke(cli, ["certificate", "--wager", "tie", *decks, "--format", "json"])
    assert r.exit_code == 2 and "17 shoes (--decks)" in r.stderr and r.stdout == "", r.output


def test_verify_shows_progress_on_a_terminal_only(tmp_path: Path, tie_certificate: dict) -> None:
    import pty

    path = tmp_path / "tie.json"
    path.write_text(json.dumps(tie_certificate))
    main, terminal = pty.openpty()
    try:
        r = subprocess.run([*EXE, "verify", str(path)], stdout=subprocess.PIPE, stderr=terminal, timeout=120,
                           env=_env(tmp_path))
        os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:                   # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(main)
    assert r.returncode == 0, shown
    assert b"verifying (tables)" in shown and b"100%" in shown, shown
    assert b"verified" in r.stdout
    quiet = subprocess.run([*EXE, "verify", str(path)], capture_output=True, timeout=120, env=_env(tmp_path))
    assert quiet.returncode == 0 and quiet.stderr == b"", quiet.stderr


def test_verify_reports_progress_for_every_table(tie_certificate: dict) -> None:
    seen: list[tuple[int, int]] = []
    ok, message = certificate_module.verify(tie_certificate, progress=lambda done, total: seen.append((done, total)))
    assert ok, message
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]       # two shoes × two paytables of tie


# -- a signal while a temporary file is made: held until it is recorded ---------------------------

@pytest.fixture(autouse=True)
def _sigterm_raises() -> Iterator[None]:
    """SIGTERM raised in this process stops the test as the command's handler does, never pytest itself."""
    def stop(signum: int, frame: object) -> None:
        raise Interrupted(signum)

    old = signal.signal(signal.SIGTERM, stop)
    yield
    signal.signal(signal.SIGTERM, old)


def _signal_after(real: Callable, signum: int) -> Callable:
    """``real``, then ``signum`` raised in this process the moment it returns."""
    def wrapped(*args: object, **kwargs: object) -> object:
        out = real(*args, **kwargs)
        signal.raise_signal(signum)
        return out
    return wrapped


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_just_after_the_temporary_file_is_made_leaves_nothing(tmp_path: Path, signum: int,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The moment between making the temporary file and recording it for removal was a window: a signal
    there left the file behind. Making and recording are now one step for the signal handler."""
    import tempfile

    monkeypatch.setattr(tempfile, "mkstemp", _signal_after(tempfile.mkstemp, signum))
    with pytest.raises(Interrupted) as stop:
        files.write_atomically(tmp_path / "out.json", "{}\n")
    assert stop.value.signum == signum
    assert list(tmp_path.iterdir()) == []


def test_a_signal_held_is_acted_on_when_the_hold_ends(tmp_path: Path) -> None:
    made: list[str] = []
    with pytest.raises(Interrupted):
        with files.cleanup_on_signals(made):
            with files.signals_held():
                signal.raise_signal(signal.SIGTERM)
                (tmp_path / "a.tmp").write_text("")               # not stopped half-way
                made.append(str(tmp_path / "a.tmp"))
            pytest.fail("the signal was not acted on when the hold ended")
    assert list(tmp_path.iterdir()) == []


def test_tables_interrupted_while_writing_leaves_no_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``tables`` made its folder and then wrote into it; SIGTERM or a failure in between left the folder
    (and the folders above it) empty. They are removed again."""
    import tempfile

    monkeypatch.setattr(tables, "table_texts", lambda *a, **k: {"6-decks.csv": "x\n", "6-decks.md": "y\n"})
    monkeypatch.setattr(tempfile, "mkstemp", _signal_after(tempfile.mkstemp, signal.SIGTERM))
    with pytest.raises(Interrupted):
        tables.write_tables(str(tmp_path / "a" / "b"), [6])
    assert list(tmp_path.iterdir()) == []


def test_tables_into_an_existing_folder_keeps_it_when_the_write_fails(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise ExactOddsError("--output-dir: cannot write (No space left on device)")

    (tmp_path / "mine").mkdir()
    monkeypatch.setattr(tables, "table_texts", lambda *a, **k: {"6-decks.csv": "x\n"})
    monkeypatch.setattr(tables, "write_all_or_nothing", fail)
    with pytest.raises(ExactOddsError):
        tables.write_tables(str(tmp_path / "mine"), [6])
    assert [p.name for p in tmp_path.iterdir()] == ["mine"]


# -- a full disk (a file-size limit in the child makes writes fail with EFBIG) ---------------------

def _small_files(limit: int) -> Callable[[], None]:
    def set_limits() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)            # a write beyond the limit fails, no kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return set_limits


@pytest.mark.parametrize("name", ["rounds.csv", "rounds.jsonl.gz", "rounds.parquet"])
def test_simulate_on_a_full_disk_names_the_output_file(tmp_path: Path, name: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    r = subprocess.run([*EXE, "simulate", "--seed", "1", "--rounds", "100000", "--quiet", "--output",
                        str(out / name)], capture_output=True, text=True, timeout=300, env=_env(tmp_path),
                       preexec_fn=_small_files(20_000))
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert f"--output {out / name}: cannot write" in r.stderr and "standard output" not in r.stderr, r.stderr
    assert list(out.iterdir()) == []


def test_tables_on_a_full_disk_leaves_no_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    r = subprocess.run([*EXE, "tables", "--wager", "tie", "--decks", "8", "--output-dir", str(out / "a" / "b")],
                       capture_output=True, text=True, timeout=300, env=_env(tmp_path), preexec_fn=_small_files(300))
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "--output-dir" in r.stderr and "cannot write" in r.stderr, r.stderr
    assert list(out.iterdir()) == []


def test_a_certificate_on_a_full_disk_leaves_no_temporary_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    r = subprocess.run([*EXE, "certificate", "--wager", "tie", "--decks", "8", "--format", "json", "--output",
                        str(out / "c.json")], capture_output=True, text=True, timeout=300, env=_env(tmp_path),
                       preexec_fn=_small_files(2_000))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and f"--output {out / 'c.json'}" in r.stderr, r.stderr
    assert list(out.iterdir()) == []


# -- signals at random moments: nothing half-written, nothing left ---------------------------------

def _commands(out: Path) -> dict[str, tuple[list[str], Callable[[Path], bool]]]:
    """Each command, and what its output is when whole (it is either whole or absent)."""
    def whole_json(p: Path) -> bool:
        return json.loads((p / "c.json").read_text())["format"] == certificate_module.FORMAT

    def whole_tables(p: Path) -> bool:
        return sorted(x.name for x in (p / "t").iterdir()) == ["8-decks.csv", "8-decks.md"]

    def whole_pdf(p: Path) -> bool:
        return (p / "c.pdf").read_bytes()[:4] == b"%PDF"

    def whole_csv(p: Path) -> bool:
        return (p / "s.csv").read_text().startswith("player1,")

    return {
        "certificate": (["certificate", "--wager", "tie", "--decks", "8", "--format", "json", "--output",
                         str(out / "c.json")], whole_json),
        "tables": (["tables", "--wager", "tie", "--decks", "8", "--output-dir", str(out / "t")], whole_tables),
        "simulate": (["simulate", "--seed", "1", "--rounds", "200000", "--quiet", "--output", str(out / "s.csv")],
                     whole_csv),
        "pdf": (["certificate", "--wager", "tie", "--decks", "8", "--format", "pdf", "--output", str(out / "c.pdf")],
                whole_pdf),
    }


@pytest.mark.slow
@pytest.mark.parametrize("command", ["certificate", "tables", "simulate", "pdf"])
def test_signals_at_random_moments_leave_nothing_behind(tmp_path: Path, tmpdir_short: Path, command: str) -> None:
    """SIGINT or SIGTERM at a random moment of a run (within its measured length), a bounded number of
    times: each run ends in one line or none, with its output whole or absent, and no temporary file
    or empty folder (in the output's folder or in TMPDIR, where Chromium prints the PDF)."""
    if command == "pdf" and shutil.which("chromium") is None:
        pytest.skip(NO_CHROMIUM)
    rng = random.Random(26)
    env = _env(tmp_path, tmpdir_short)
    runs = 5
    length = None
    for i in range(runs + 1):
        out = tmp_path / f"run-{i}"
        out.mkdir()
        argv, whole = _commands(out)[command]
        started = time.monotonic()
        run = subprocess.Popen([*SCRIPT, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env=env)
        if length is None:                                   # the first run: measured, not signalled
            _, err = run.communicate(timeout=300)
            assert run.returncode == 0, err
            length = time.monotonic() - started
        else:
            time.sleep(rng.uniform(0.2, 1.0) * length)
            run.send_signal(rng.choice([signal.SIGINT, signal.SIGTERM]))
            _, err = run.communicate(timeout=300)
        seen = (i, run.returncode, err)
        assert "Traceback" not in err and err.count("\n") <= 1, seen
        assert _left_behind(out) == [] and list(tmpdir_short.iterdir()) == [], seen
        if any(out.iterdir()):
            assert whole(out), seen
        else:                                                # stopped by the signal (in one line, or silently
            assert run.returncode in (130, 143, -2, -15), seen   # by SIGTERM before anything was begun)


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_chromium_prints_the_pdf_leaves_nothing(tmp_path: Path, tmpdir_short: Path,
                                                               signum: int) -> None:
    """Stopped while Chromium printed the PDF, exactodds killed Chromium but not its helper processes, and
    left Chromium's temporary folder (and at times its own) behind. Now the whole process group goes, then
    exactodds's folder, which holds Chromium's (its TMPDIR)."""
    if shutil.which("chromium") is None:
        pytest.skip(NO_CHROMIUM)
    out = tmp_path / "out"
    out.mkdir()
    run = subprocess.Popen([*SCRIPT, "certificate", "--wager", "tie", "--decks", "8", "--format", "pdf", "--output",
                            str(out / "c.pdf")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           env=_env(tmp_path, tmpdir_short))
    deadline = time.monotonic() + 120
    while not any(tmpdir_short.glob("exactodds-*/org.chromium.*")):     # Chromium has started (its TMPDIR: ours)
        assert run.poll() is None and time.monotonic() < deadline, "Chromium never started"
        time.sleep(0.01)
    run.send_signal(signum)
    _, err = run.communicate(timeout=120)
    assert (run.returncode, err) == (128 + signum, "exactodds: interrupted\n" if signum == signal.SIGINT
                                     else "exactodds: terminated\n")
    time.sleep(0.5)                                  # anything of Chromium still running would write now
    assert list(out.iterdir()) == [] and list(tmpdir_short.iterdir()) == []


def test_record_writer_signal_after_its_temporary_file_is_made(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from exactodds.simulation.recordio import CARD_COLUMNS, RecordWriter

    monkeypatch.setattr(tempfile, "mkstemp", _signal_after(tempfile.mkstemp, signal.SIGTERM))
    with pytest.raises(Interrupted):
        with RecordWriter(str(tmp_path / "rounds.csv"), "csv", CARD_COLUMNS):
            pass
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("signum,status,word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_a_signal_while_a_class_is_made_is_still_one_line(monkeypatch, signum, status, word):
    """A signal that lands while a module of the command defines a class reaches us wrapped in a
    RuntimeError (Python wraps what __set_name__ raises); it is still the one line and the signal's status."""
    import exactodds.cli as cli_package

    class Field:
        def __set_name__(self, owner, name):
            raise Interrupted(signum)

    def import_module(name, package=None):
        type("Condition", (), {"evaluate": Field()})          # the class being made when the signal lands

    monkeypatch.setattr(cli_package.importlib, "import_module", import_module)
    result = CliRunner().invoke(cli, ["analyze", "--wager", "tie"])
    assert result.exit_code == status
    assert result.output.strip().splitlines() == [f"exactodds: {word}"]


# -- issue 40: outputs written together or not at all, each error naming its file, never through a link -----

def _certificate_args(out: Path, validation: Path | str, *, to_file: bool = True) -> list[str]:
    return ["certificate", "--wager", "tie", "--decks", "8", "--format", "json",
            *(["--output", str(out / "c.json")] if to_file else []), "--validation", str(validation)]


def test_i40_a_validation_file_that_cannot_be_made_writes_neither_file(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """``certificate --validation`` where its temporary file could not be made (``/proc/x.csv`` as root) ended in a
    43-line traceback, with the certificate written; now one line naming --validation, and neither file."""
    import tempfile

    real = tempfile.mkstemp

    def refuse(*args: object, **kwargs: object) -> object:
        if str(kwargs.get("prefix", "")).startswith(".v.csv."):
            raise FileNotFoundError(2, "No such file or directory")
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    r = CliRunner().invoke(cli, _certificate_args(tmp_path, tmp_path / "v.csv"))
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.output, r.output
    assert f"--validation {tmp_path / 'v.csv'}: cannot write (No such file or directory)" in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_i40_validation_into_proc_is_one_line_and_nothing_written(tmp_path: Path) -> None:
    """The case as reported (as root /proc passes the access check and the temporary file cannot be made;
    as anyone else it is refused as not writable): one line, nothing written."""
    if not Path("/proc").is_dir():
        pytest.skip("no /proc")
    r = CliRunner().invoke(cli, _certificate_args(tmp_path, "/proc/x.csv"))
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "--validation /proc/x.csv" in r.stderr, r.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", ["v.csv", "v.jsonl.gz", "v.parquet"])
@pytest.mark.parametrize("to_file", [True, False], ids=["certificate-to-a-file", "certificate-to-stdout"])
def test_i40_a_full_disk_while_writing_the_validation_file_names_it(tmp_path: Path, name: str,
                                                                    to_file: bool) -> None:
    """A full disk while the validation file was written blamed standard output ('cannot write to standard
    output … No space left on device'); the file is named, and neither it nor the certificate is written
    (nor printed: the validation file is made first)."""
    out = tmp_path / "out"
    out.mkdir()
    r = subprocess.run([*EXE, *_certificate_args(out, out / name, to_file=to_file)], capture_output=True, text=True,
                       timeout=300, env=_env(tmp_path), preexec_fn=_small_files(60_000))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert f"--validation {out / name}: cannot write (File too large)" in r.stderr, r.stderr
    assert "standard output" not in r.stderr and r.stdout == ""
    assert list(out.iterdir()) == []


def test_i40_outputs_are_written_all_or_none_and_an_error_names_the_file_that_failed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.txt").write_text("old a\n")
    with pytest.raises(ExactOddsError, match=r"^--second .*b\.txt: cannot write \(No space left on device\)$"):
        with files.Outputs() as out:
            out.write(tmp_path / "a.txt", "new a\n", option="--first")
            with monkeypatch.context() as m:
                def full(*args: object, **kwargs: object) -> object:
                    raise OSError(28, "No space left on device")
                m.setattr("builtins.open", full)
                out.write(tmp_path / "b.txt", "new b\n", option="--second")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"] and (tmp_path / "a.txt").read_text() == "old a\n"


def test_i40_a_link_made_at_the_target_meanwhile_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    with files.Outputs() as out:
        out.write(tmp_path / "d.toml", "written\n")
        (tmp_path / "d.toml").symlink_to(victim)                     # planted between the check and the rename
    assert victim.read_text() == "mine\n" and not (tmp_path / "d.toml").is_symlink()
    assert (tmp_path / "d.toml").read_text() == "written\n"


def _symlink_cases(tmp: Path) -> dict[str, tuple[list[str], str, Path]]:
    """Each way exactodds writes a file, given a symbolic link: the arguments, the option, the link."""
    return {
        "design --output": (["design", "--wager", "tie", "--target-edge", "5%", "--output", "{link}"], "--output",
                            tmp / "d.toml"),
        "certificate --output": (["certificate", "--wager", "tie", "--format", "json", "--output", "{link}"],
                                 "--output", tmp / "c.json"),
        "certificate --validation": (["certificate", "--wager", "tie", "--format", "json", "--output",
                                      str(tmp / "c.json"), "--validation", "{link}"], "--validation", tmp / "v.csv"),
        "simulate --output": (["simulate", "--rounds", "10", "--seed", "1", "--output", "{link}"], "--output",
                              tmp / "s.csv"),
        "tables --output-dir": (["tables", "--wager", "tie", "--decks", "8", "--output-dir", str(tmp)],
                                "--output-dir", tmp / "8-decks.csv"),
        "keygen --output": (["keygen", "--output", "{link}"], "--output", tmp / "key"),
    }


@pytest.mark.parametrize("case", list(_symlink_cases(Path("."))))
def test_i40_no_output_is_written_through_a_symbolic_link(tmp_path: Path, case: str) -> None:
    """``design --output d.toml`` with ``d.toml → victim.txt`` replaced victim.txt; keygen refused a link, the
    others followed it. Every output now refuses one, in one line naming the option, the link's target
    untouched and nothing else written."""
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    args, option, link = _symlink_cases(tmp_path)[case]
    link.symlink_to(victim)
    before = sorted(p.name for p in tmp_path.iterdir())
    r = CliRunner().invoke(cli, [a.format(link=link) for a in args])
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.output, r.output
    assert option in r.stderr and str(link) in r.stderr, r.stderr
    assert victim.read_text() == "mine\n" and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == before
