"""Simulator records in every format, shards and streams; safe outputs; check-sim on a Dask cluster."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from exactodds.cli import cli
from exactodds.simulation.checksim import check_files, read_records
from exactodds.simulation.recordio import RecordWriter, read_chunks, read_note
from exactodds.simulation.simulate import record_table, simulate

ROUNDS = 20_000


def run(*args: str, input: bytes | None = None) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args), input=input)
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("records")
    out = {}
    for name in ("r.csv", "r.csv.gz", "r.csv.zst", "r.csv.bz2", "r.jsonl", "r.jsonl.lz4", "r.parquet"):
        code, _, err = run("simulate", "--rounds", str(ROUNDS), "--seed", "7", "--wager", "tie", "--wager",
                           "perfect-pairs-player:A", "--output", str(d / name), "--quiet")
        assert code == 0, err
        out[name] = d / name
    return out


def test_every_format_reads_back_the_same_rounds(written: dict[str, Path]) -> None:
    base = read_records(written["r.csv"])
    assert len(base) >= ROUNDS
    for name, path in written.items():
        r = read_records(path)
        assert (r.player == base.player).all() and (r.banker == base.banker).all(), name
        assert set(r.settled) == {"tie:8-to-1", "tie:9-to-1", "perfect-pairs-player:A"}
        assert (r.settled["tie:8-to-1"] == base.settled["tie:8-to-1"]).all(), name


def test_every_format_checks_alike(written: dict[str, Path]) -> None:
    results = {name: check_files(str(p), wagers=["tie", "perfect-pairs-player:A"]) for name, p in written.items()}
    reports = {json.dumps([r.__dict__ for r in res.rows], sort_keys=True) for res in results.values()}
    assert len(reports) == 1 and all(res.ok for res in results.values())


def test_shards_as_one_data_set_and_standard_input(written: dict[str, Path], tmp_path: Path) -> None:
    lines = written["r.csv"].read_text().splitlines(keepends=True)
    header, body = lines[0], lines[1:]
    shards = tmp_path / "shards"
    shards.mkdir()
    for k in range(3):
        (shards / f"part-{k}.csv").write_text(header + "".join(body[k::3]))
    (shards / "_SUCCESS").write_text("")                                # a Spark job's marker: not a shard
    whole = check_files(str(written["r.csv"]), wagers=["tie"])
    named = [str(shards / f"part-{k}.csv") for k in range(3)]              # what an unquoted glob gives
    for source in (str(shards), str(shards / "part-*.csv"), named):
        parts = check_files(source, wagers=["tie"])
        assert parts.rounds == whole.rounds and parts.observed == whole.observed
    code, out, _ = run("check-sim", *named, "--wager", "tie", "--format", "json")
    assert code == 0 and json.loads(out)["rounds"] == whole.rounds
    for args, words in ((("-", named[0]), "standard input ('-') is read alone"),
                        (("--counts", named[0], named[1]), "--counts reads one counts file, got 2 sources")):
        code, _, err = run("check-sim", *args)
        assert code == 2 and words in err
    code, out, err = run("check-sim", "-", "--input-format", "csv", "--wager", "tie", "--format", "json",
                         input=written["r.csv"].read_bytes())
    assert code == 0, err
    assert json.loads(out)["rounds"] == whole.rounds
    code, out, _ = run("simulate", "--rounds", "100", "--seed", "1", "--output", "-", "--quiet")
    assert code == 0 and out.startswith("player1,player2,player3,banker1,banker2,banker3\n")


@pytest.mark.slow
def test_the_dask_path_gives_the_local_report(written: dict[str, Path], tmp_path: Path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    shards = tmp_path / "shards"
    shards.mkdir()
    lines = written["r.csv"].read_text().splitlines(keepends=True)
    for k in range(2):
        (shards / f"part-{k}.csv").write_text(lines[0] + "".join(lines[1:][k::2]))
    local = check_files(str(shards), wagers=["tie", "perfect-pairs-player:A"])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        remote = check_files(str(shards), wagers=["tie", "perfect-pairs-player:A"], scheduler=c.scheduler_address)
    assert remote.rows == local.rows and remote.observed == local.observed and remote.rounds == local.rounds


def test_outputs_are_written_safely(tmp_path: Path) -> None:
    target = tmp_path / "real.csv"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    code, _, err = run("simulate", "--rounds", "10", "--seed", "1", "--output", str(link), "--quiet")
    assert code == 2 and f"--output {link}: a symbolic link" in err                # issue 40: never through a link
    assert link.is_symlink() and target.read_text() == "old\n"                     # its target untouched
    code, _, err = run("simulate", "--rounds", "10", "--seed", "1", "--output", str(target), "--quiet")
    assert code == 0, err
    assert target.read_text().startswith("player1")                                # the file itself is written
    assert (target.stat().st_mode & 0o777) == 0o640                                  # and kept its permissions
    for bad, words in (("/dev/null", "not a regular file"), (str(tmp_path), "is a directory"),
                       (str(tmp_path / "missing" / "x.csv"), "does not exist")):
        code, _, err = run("simulate", "--rounds", "10", "--seed", "1", "--output", bad)
        assert code == 2 and words in err
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize(("signum", "status"), [(2, 130), (15, 143)])    # Ctrl-C; SIGTERM: 128 + the signal
def test_an_interrupted_simulation_leaves_no_file(tmp_path: Path, signum: int, status: int) -> None:
    out = tmp_path / "big.csv"
    proc = subprocess.Popen([sys.executable, "-m", "exactodds.cli", "simulate", "--rounds", str(10**9), "--seed", "1",
                             "--output", str(out), "--quiet"], stderr=subprocess.PIPE)
    import time

    deadline = time.time() + 60
    while time.time() < deadline and not any(p.name.endswith(".tmp") for p in tmp_path.iterdir()):
        time.sleep(0.2)
    time.sleep(1.0)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status and err.decode() == ("exactodds: interrupted\n" if signum == 2 else
                                                          "exactodds: terminated\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_sigterm_stops_a_check_with_one_line_and_a_closed_pipe_stops_quietly(written: dict[str, Path]) -> None:
    """SIGTERM anywhere unwinds as Ctrl-C does (exit 143); `... | head` ends the writing, exit 0."""
    import time

    proc = subprocess.Popen([sys.executable, "-m", "exactodds.cli", "check-sim", "-", "--input-format", "csv"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.write(written["r.csv"].read_bytes())                       # and more to come: it waits
    proc.stdin.flush()
    time.sleep(2.0)
    proc.send_signal(15)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out, err) == (143, b"", b"exactodds: terminated\n")
    proc = subprocess.Popen([sys.executable, "-m", "exactodds.cli", "simulate", "--rounds", str(10**9), "--seed", "1",
                             "--output", "-", "--record-format", "jsonl"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline().startswith(b'{"player": [')
    proc.stdout.close()                                                    # the reader has seen enough
    assert proc.wait(timeout=60) == 0 and proc.stderr is not None and proc.stderr.read() == b""


def test_a_compression_not_handled_is_named_not_taken_for_text(tmp_path: Path) -> None:
    code, _, err = run("simulate", "--rounds", "10", "--seed", "1", "--output", str(tmp_path / "r.csv.xz"))
    assert code == 2 and "--output" in err and ".xz files are not read or written here" in err
    (tmp_path / "r.csv.xz").write_bytes(b"\xfd7zXZ\x00")
    code, _, err = run("check-sim", str(tmp_path / "r.csv.xz"))
    assert code == 2 and f"{tmp_path / 'r.csv.xz'}: .xz files are not read or written here" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv.xz"]


def test_checker_catches(tmp_path: Path) -> None:
    head = "player1,player2,player3,banker1,banker2,banker3"
    cases = {
        "copies.csv": (head + "\nAs,As,,2d,5d,\n", ["--decks", "1"], "copies of one card"),
        "dup.csv": (head + ",tie:8-to-1,tie:8-to-1\nKs,9h,,Qd,Qs,,lose,lose\n", [], "appears twice"),
        "numbers.jsonl": ('{"player": [1, 9], "banker": ["Qd", "Qs"]}\n', [], "not numbers"),
        "unknown.csv": (head + ",tie:8-to-1\nKs,9h,,Qd,Qs,,lose\nKs,8h,,Qd,Qs,,Lose\n", [],
                        ":3: settlement column 'tie:8-to-1': 'Lose' is not an outcome of tie (tie, lose)"),
    }
    for name, (text, extra, words) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        code, out, err = run("check-sim", str(path), *extra)
        assert code == 2 and words in err and err.count("\n") == 1, (name, err)
    code, out, _ = run("check-sim", str(tmp_path / "unknown.csv"), "--lenient", "--wager", "tie:8-to-1")
    assert code == 1 and "1 round settled differently; first at" in out and "'Lose'" in out   # --lenient: a mismatch
    path = tmp_path / "counts.json"
    path.write_text(json.dumps({"rounds": 100, "wagers": {"tie:8-to-1": {"tie": 10, "lose": 80}}}))
    code, _, err = run("check-sim", str(path), "--counts")
    assert code == 2 and "not the stated 100" in err


def test_json_lines_are_written_as_json_dumps_writes_each_record() -> None:
    """The JSON Lines writer (each distinct value encoded once) against json.dumps of every record."""
    from exactodds import load_catalogue
    from exactodds.simulation.recordio import CARD_COLUMNS, _jsonl_bytes
    from exactodds.simulation.simulate import record_table, simulate

    cat = load_catalogue()
    pairs = [(cat[w], cat[w].paytable(t)) for w, t in (("tie", "8-to-1"), ("perfect-pairs-player", "A"))]
    table = record_table(simulate(decks=2, rounds=3000, seed=9), pairs)
    cols = {name: table.column(name).to_pylist() for name in table.column_names}
    want = [json.dumps({"player": [c for c in (cols[k][i] for k in CARD_COLUMNS[:3]) if c],
                        "banker": [c for c in (cols[k][i] for k in CARD_COLUMNS[3:]) if c],
                        "settled": {n: cols[n][i] for n in table.column_names[6:]}}) for i in range(table.num_rows)]
    assert _jsonl_bytes(table).decode().splitlines() == want


@pytest.mark.slow
def test_json_lines_chunks_shrink_with_their_columns_and_keep_one_set_of_columns(tmp_path: Path) -> None:
    from exactodds.simulation.recordio import CHUNK_ROWS, _rows_for, read_chunks

    path = tmp_path / "wide.jsonl"
    code, _, _ = run("simulate", "--rounds", "50000", "--seed", "2", "--wager", "all", "--output", str(path), "--quiet")
    first = json.loads(path.read_text().splitlines()[0])
    width = 6 + len(first["settled"])
    sizes = [len(chunk) for chunk in read_chunks(str(path))]
    assert code == 0 and sum(sizes) >= 50000 and max(sizes) <= _rows_for(4 * width, CHUNK_ROWS) < 50000
    shortest = min(len(line) for line in path.read_bytes().splitlines())
    assert max(sizes) * shortest <= (1 << 23) + (1 << 20) + (1 << 16)     # and about 8 MiB of text at most
    lines = path.read_text().splitlines()
    record = json.loads(lines[2])
    del record["settled"]["tie:8-to-1"]
    lines[2] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run("check-sim", str(path))
    assert code == 2 and f"{path}:3: unreadable record ('settled' lacks 'tie:8-to-1', which the file's first record has)" in err


def test_standard_input_names_the_line_past_blank_lines(written: dict[str, Path], tmp_path: Path) -> None:
    """Blank lines (LF and CRLF, some across the blocks read) are counted on standard input too."""
    out = []
    for k, line in enumerate(written["r.csv"].read_text().splitlines()):
        out.append(line)
        if k % 101 == 7:
            out.append("\r" if k % 2 else "")
    bad = len(out) - 50
    out[bad] = "Zz," + out[bad].split(",", 1)[1]
    data = ("\n".join(out) + "\n").encode()
    path = tmp_path / "blank.csv"
    path.write_bytes(data)
    for args, source in ((("-", "--input-format", "csv"), "-"), ((str(path),), str(path))):
        code, _, err = run("check-sim", *args, "--wager", "tie", input=data)
        assert code == 2 and err.startswith(f"exactodds: error: {source}:{bad + 1}: unreadable card"), err



@pytest.mark.parametrize("name", ["n.csv", "n.csv.gz", "n.jsonl", "n.jsonl.zst", "n.parquet"])
def test_a_note_is_carried_exactly_and_the_records_read_as_without_it(tmp_path: Path, name: str) -> None:
    """A file's note (issue 41: a validation file carries its wagers' data file) reads back as written, and the
    records after it are the same rounds as in a file without one, each at the file's own line."""
    fmt = name.split(".")[1]
    table = record_table(simulate(decks=8, rounds=3_000, seed=41, mode="fresh"))
    note = 'first line\n\n  indented, a \u2660, a carriage return\r\n|pays = { a = "1 to 1", b = "%22" }\n'
    # every kind of line: empty, indented, not ASCII, with what the escaping writes (%, ", a comma, a carriage return)
    for path, carried in ((tmp_path / name, note), (tmp_path / f"plain.{name}", None)):
        with RecordWriter(str(path), fmt, table.column_names, note=carried) as out:
            out.write(table)
        assert read_note(str(path)) == carried
    with_note, without = (list(read_chunks(str(p))) for p in (tmp_path / name, tmp_path / f"plain.{name}"))
    assert np.array_equal(np.concatenate([c.cards for c in with_note]), np.concatenate([c.cards for c in without]))
    lines, plain = (np.concatenate([c.lines for c in cs]) for cs in (with_note, without))
    shift = 0 if fmt == "parquet" else len(note.split("\n"))     # Parquet numbers rows; text files their lines
    assert np.array_equal(lines, plain + shift)
    if name == "n.jsonl":                                         # JSON Lines under another name: still read as such
        (tmp_path / "n.out").write_bytes((tmp_path / name).read_bytes())
        assert np.array_equal(np.concatenate([c.lines for c in read_chunks(str(tmp_path / "n.out"))]), lines)
    if name == "n.csv":                                           # the line cited is the record's line in the file
        text = (tmp_path / name).read_text(encoding="utf-8").split("\n")
        assert not any(c in line for line in text[:len(note.split("\n"))] for c in ',"\r')   # one field a line
        assert text[lines[0] - 1] == (tmp_path / f"plain.{name}").read_text(encoding="utf-8").split("\n")[1]
