"""check-sim's checkpoints and merges (exactodds.simulation.checkstate, issue 39): a check of a record set killed at
random moments and resumed prints the bytes of a check never stopped; two parts of the record set checked apart
merge into the bytes of one check over all of it; a tampered, foreign, changed or overlapping state is refused
in one line, never used, and left as it was."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from exactodds.cli import cli
from exactodds.errors import ExactOddsError
from exactodds.simulation import checksim
from exactodds.simulation.checkpoint import State, load_state
from exactodds.simulation.checksim import CheckResult, Tally, _pairs, check_files, render
from exactodds.simulation.checkstate import Checkpoint, _signatures, merge_checks, tally_from_json, tally_to_json
from exactodds.simulation.exposure import exposure
from exactodds.wagers.catalogue import load_catalogue

from .runs import killed, written_anew

CHECKED = ["dragon-7-insurance", "perfect-pairs-player:A"]
WAGERS = ("--wager", CHECKED[0], "--wager", CHECKED[1])       # the records' columns, and what is checked


def _simulate(path: Path, rounds: int, seed: int, *more: str) -> Path:
    r = CliRunner().invoke(cli, ["simulate", "--rounds", str(rounds), "--seed", str(seed), *WAGERS, "--shoe-column",
                                 "--output", str(path), "--quiet", *more])
    assert r.exit_code == 0, r.output
    return path


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three shards of two chunks each: a CSV, a JSON Lines file and a compressed CSV (which no reader can seek
    in: a resume reads it again from its start)."""
    d = tmp_path_factory.mktemp("records")
    return [_simulate(d / "a.csv", 140_000, 1), _simulate(d / "b.jsonl", 40_000, 2),
            _simulate(d / "c.csv.gz", 140_000, 3)]


def _run(records: list[Path]) -> list[str]:
    return ["check-sim", *map(str, records), *WAGERS, "--quiet", "--format", "json", "--verbose"]


@pytest.fixture(scope="module")
def whole(records: list[Path]) -> str:
    """What a check of ``records`` never stopped prints."""
    r = _cli(*_run(records))
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Four small shards (a chunk each) and a JSON Lines one of two chunks, last, settled in amounts on a stake
    (exact sums of amounts in the tallies)."""
    d = tmp_path_factory.mktemp("shards")
    return [*(_simulate(d / f"s{k}.csv", 6_000, 10 + k, "--bet", "5") for k in range(4)),
            _simulate(d / "long.jsonl", 40_000, 20, "--bet", "5")]


@pytest.fixture()
def small(shards: list[Path]) -> list[Path]:
    return shards[:4]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """A command run here (no interpreter to start: the kill tests start their own), as a process would end."""
    r = CliRunner().invoke(cli, list(args))
    assert r.exception is None or isinstance(r.exception, SystemExit), (args, r.exception)     # no traceback
    return subprocess.CompletedProcess(list(args), r.exit_code, r.stdout, r.stderr)


def _render(result: CheckResult) -> str:
    return render(result, "json", verbose=True)


def _check(files: list[Path], **kwargs: Any) -> str:
    """The JSON of a check of ``files`` (every test shown), of the wagers settled in them unless told."""
    return _render(_checked(files, **kwargs))


def _checked(files: list[Path], **kwargs: Any) -> CheckResult:
    return check_files([str(f) for f in files], **({"wagers": CHECKED} | kwargs))


def _position(state: Path) -> tuple[int, int]:
    """(files finished, chunks counted of the next): how far a state stands."""
    s = load_state(state, option="", kind="check-sim")
    current = s.extra["current"]
    return (s.done[0][1] if s.done else 0, current["chunks"] if current else 0)


def test_a_check_killed_at_random_moments_resumes_to_the_bytes_of_a_check_never_stopped(records: list[Path],
                                                                                          whole: str,
                                                                                          tmp_path: Path) -> None:
    """SIGKILL (no handler runs, no last write) at random moments, three times, each after a write the run
    before had not made, then run to the end. The moments are drawn from a seed shown when the test fails."""
    run = _run(records)
    state = tmp_path / "check.json"
    rng = random.Random()
    seed = rng.randrange(10**6)
    rng.seed(seed)
    positions: list[tuple[int, int]] = []
    for k in range(3):                             # each after a write this run made: something new to resume
        for _attempt in range(5):                  # a write that moved on (a run may write where it resumed)
            # a chunk is counted in a few hundredths of a second: the kill lands within a few chunks of the write,
            # and the last run may end before it (its last write made: resumed, nothing is left to count)
            killed(run, state, pause=rng.uniform(0.0, 0.1), done=k == 2)
            if not positions or _position(state) != positions[-1]:
                break
        positions.append(_position(state))
    assert positions == sorted(positions) and len(set(positions)) == 3, (seed, positions)  # each resumed further
    assert positions[1] < (3, 0), (seed, positions)       # stopped part-way (the last may be killed once done)
    resumed = _cli(*run, "--checkpoint", str(state))
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == whole, (seed, positions)
    assert _position(state) == (3, 0)
    again = _cli(*run, "--checkpoint", str(state))                         # finished: read back, nothing counted
    assert again.returncode == 0 and again.stdout == whole


def test_sigterm_stops_the_check_in_one_line_and_it_resumes(records: list[Path], whole: str, tmp_path: Path) -> None:
    run = _run(records)
    state = tmp_path / "check.json"
    p = written_anew(run, state, every="0", text=True)
    time.sleep(0.3)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 143 and "terminated" in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert (0, 1) <= _position(state) < (3, 0)
    resumed = _cli(*run, "--checkpoint", str(state))
    assert resumed.returncode == 0 and resumed.stdout == whole


def test_a_check_resumed_from_each_place_it_can_stand_gives_the_same_bytes(shards: list[Path], tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write of a check (after each chunk of each file, and at each file's end) kept as it was made: a
    check resumed from any of them (as if killed right after it) gives the bytes of one never stopped."""
    files = [shards[0], shards[-1], shards[1]]                  # a chunk, two chunks, a chunk
    whole = _check(files)
    state = tmp_path / "s.json"
    kept: list[bytes] = []
    original = Checkpoint.save

    def save(self: Checkpoint) -> None:
        original(self)
        kept.append(state.read_bytes())

    monkeypatch.setattr(Checkpoint, "save", save)
    assert _check(files, checkpoint=Checkpoint(state, every=0)) == whole
    monkeypatch.undo()
    places = []
    for k, data in enumerate(kept):
        state.write_bytes(data)
        places.append(_position(state))
        assert _check(files, checkpoint=Checkpoint(state)) == whole, places[-1]
    assert places == [(0, 1), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (3, 0)]


def test_ctrl_c_while_a_chunk_is_counted_keeps_the_last_whole_tally(shards: list[Path], tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C in the middle of counting a chunk (its tally half changed): the last write is of the chunk before,
    made as the check stops, not the half-counted one; the check resumes from it to the same bytes."""
    files = [shards[0], shards[-1], shards[1]]
    whole = _check(files)
    state = tmp_path / "s.json"
    original = checksim.tally_chunk
    calls = [0]

    def tally_chunk(chunk: Any, *args: Any, **kwargs: Any) -> Tally:
        calls[0] += 1
        if calls[0] == 3:                                       # the second chunk of the second file
            kwargs["into"].rounds += 7                          # half counted
            raise KeyboardInterrupt
        return original(chunk, *args, **kwargs)

    monkeypatch.setattr(checksim, "tally_chunk", tally_chunk)
    with pytest.raises(KeyboardInterrupt):
        _checked(files, checkpoint=Checkpoint(state, every=1000))
    monkeypatch.undo()
    assert _position(state) == (1, 1)                           # written as it stopped: nothing before
    assert _check(files, checkpoint=Checkpoint(state)) == whole


def test_a_tally_reads_back_exactly(small: list[Path], tmp_path: Path) -> None:
    state = tmp_path / "s.json"
    check_files([str(f) for f in small], checkpoint=Checkpoint(state))
    s = load_state(state, option="", kind="check-sim")
    again = tally_to_json(tally_from_json(s.totals[0], _signatures(_pairs(load_catalogue(), None))))
    assert again == s.totals[0]
    assert set(s.totals[0]["paid"]) == set(s.totals[0]["staked"]) == {"dragon-7-insurance:standard",
                                                                      "perfect-pairs-player:A"}
    sums = s.totals[0]["within"]["sums"]
    assert sums and all(isinstance(x, str) for row in sums.values() for x in row)    # exact across files


@pytest.mark.parametrize("split", [1, 2, 3])
def test_two_parts_checked_apart_merge_into_the_bytes_of_one_check(small: list[Path], tmp_path: Path,
                                                                   split: int) -> None:
    """Files 0..split-1 on one machine, the rest on another: merged, the bytes of one check over all four (the
    within-shoe sums of several files add up exactly, whatever the grouping)."""
    whole = _check(small)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    _checked(small[:split], checkpoint=Checkpoint(a))
    _checked(small[split:], checkpoint=Checkpoint(b))
    assert _render(merge_checks([a, b])) == whole
    assert json.loads(whole)["rounds"] == sum(json.loads(_check([f]))["rounds"] for f in small)


def test_the_cli_merges_check_sim_parts_into_the_bytes_of_one_run(small: list[Path], tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    whole = _cli("check-sim", *map(str, small), "--format", "json", "--quiet")
    assert whole.returncode == 0, whole.stderr
    assert _cli("check-sim", *map(str, small[:3]), "--checkpoint", str(a), "--quiet").returncode == 0
    assert _cli("check-sim", str(small[3]), "--checkpoint", str(b), "--quiet").returncode == 0
    merged = _cli("merge", str(a), str(b), "--format", "json")
    assert merged.returncode == 0 and merged.stdout == whole.stdout          # every wager of the catalogue
    assert json.loads(merged.stdout)["tests_run"] > 100
    c, d = tmp_path / "c.json", tmp_path / "d.json"
    assert _cli("check-sim", str(small[0]), *WAGERS, "--checkpoint", str(c), "--quiet").returncode == 0
    assert _cli("check-sim", *map(str, small[1:]), *WAGERS, "--checkpoint", str(d), "--quiet").returncode == 0
    text = _cli("merge", str(c), str(d), "--verbose")
    assert text.returncode == 0 and text.stdout == _cli("check-sim", *map(str, small), *WAGERS, "--verbose",
                                                        "--quiet").stdout


def _one_line_exit_2(r: subprocess.CompletedProcess[str], *words: str) -> None:
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
    assert "Traceback" not in r.stderr and all(w in r.stderr for w in words), r.stderr


def test_merges_of_parts_that_do_not_make_one_check_are_refused(small: list[Path], tmp_path: Path) -> None:
    a, b, c, d, e = (tmp_path / f"{x}.json" for x in "abcde")
    _checked(small[:2], checkpoint=Checkpoint(a))
    _checked(small[1:3], checkpoint=Checkpoint(b))                                      # holds small[1] too
    _checked(small[2:], checkpoint=Checkpoint(c), decks=9)                              # another shoe
    copy = tmp_path / "copy.csv"
    shutil.copy(small[0], copy)
    _checked([copy], checkpoint=Checkpoint(d))                                          # a shard under a new name
    exposure([("tie", "8-to-1")], shoes=2, seed=1, checkpoint=e)
    cases = [((a, b), ("both hold the records of", str(small[1]), "count twice")),
             ((a, d), ("both hold the records of", str(small[0]), "count twice")),
             ((a, c), ("a check of other wagers, decks or settings", "decks: 8 there, 9 here")),
             ((a, e), ("the state of an exposure run, not of a check-sim run",)),
             ((e, a), ("the state of a check-sim run, not of an exposure run",))]
    for states, words in cases:
        before = [s.read_bytes() for s in states]
        _one_line_exit_2(_cli("merge", *map(str, states)), *words)
        assert [s.read_bytes() for s in states] == before
    _one_line_exit_2(_cli("merge", str(e), "--verbose"), "--verbose shows every test of check-sim parts")
    unfinished = State.from_text(a.read_text(), where="a", kind="check-sim")
    unfinished.done = [(0, 1)]
    a.write_text(unfinished.to_text())
    with pytest.raises(ExactOddsError, match="unfinished"):
        merge_checks([a, c])


def test_a_checkpoint_of_another_command_line_or_changed_records_is_refused_and_left_as_it_was(
        small: list[Path], tmp_path: Path) -> None:
    files = [tmp_path / f.name for f in small[:2]]
    for f, g in zip(small, files):
        shutil.copy2(f, g)
    state = tmp_path / "s.json"
    base = ["check-sim", *map(str, files), *WAGERS, "--checkpoint", str(state), "--quiet"]
    assert _cli(*base).returncode == 0
    kept = state.read_bytes()
    for more, words in [(("--decks", "6"), ("made by another command line", "decks: 8 there, 6 here")),
                        (("--alpha", "5%"), ("made by another command line", "alpha: 0.01 there, 0.05 here")),
                        (("--wager", "tie"), ("made by another command line", "wagers:")),
                        (("--detect", "1%"), ("made by another command line", "detect: null there")),
                        (("--lenient",), ("made by another command line", "lenient: false there, true here"))]:
        _one_line_exit_2(_cli(*base, *more), f"--checkpoint {state}", *words)
        assert state.read_bytes() == kept
    _one_line_exit_2(_cli("check-sim", str(files[0]), *WAGERS, "--checkpoint", str(state), "--quiet"),
                     "made by another command line", "records:")
    stat = files[1].stat()
    data = bytearray(files[1].read_bytes())
    data[-3] = ord("9") if data[-3] != ord("9") else ord("8")     # the same size, the same time: another ending
    files[1].write_bytes(bytes(data))
    os.utime(files[1], ns=(stat.st_atime_ns, stat.st_mtime_ns))
    _one_line_exit_2(_cli(*base), f"{files[1]} changed since it was counted", "first and last 64 KiB")
    os.utime(files[0], ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))        # touched: only its time moves
    _one_line_exit_2(_cli(*base), f"{files[0]} changed since it was counted", "modified")
    assert state.read_bytes() == kept


def test_a_tampered_forged_foreign_or_old_checkpoint_is_refused(small: list[Path], tmp_path: Path) -> None:
    state = tmp_path / "s.json"
    run = ["check-sim", str(small[0]), *WAGERS, "--checkpoint", str(state), "--quiet"]
    assert _cli(*run).returncode == 0
    clean = state.read_text()
    data = json.loads(clean)
    data["totals"][0]["rounds"] += 1                         # a plausible edit: still valid JSON, still a count
    state.write_text(json.dumps(data))
    _one_line_exit_2(_cli(*run), "do not match its digest")
    _one_line_exit_2(_cli("merge", str(state)), "do not match its digest")
    forged = State.from_text(clean, where="clean", kind="check-sim")
    forged.totals[0]["histogram"]["values"]["zlib"] = "bm90IHpsaWI="        # the digest made anew over it
    state.write_text(forged.to_text())
    _one_line_exit_2(_cli(*run), "its tallies are malformed")
    old = State.from_text(clean, where="clean", kind="check-sim")
    old.version = "0.0.1"
    state.write_text(old.to_text())
    _one_line_exit_2(_cli(*run), "made by exactodds 0.0.1")
    exposure([("tie", "8-to-1")], shoes=2, seed=1, checkpoint=tmp_path / "e.json")
    _one_line_exit_2(_cli("check-sim", str(small[0]), "--checkpoint", str(tmp_path / "e.json"), "--quiet"),
                     "the state of an exposure run, not of a check-sim run")
    _one_line_exit_2(_cli("exposure", "--wager", "tie", "--shoes", "2", "--seed", "1", "--workers", "1",
                          "--checkpoint", str(tmp_path / "s.json")), "not of an exposure run")
    notes = tmp_path / "notes.json"
    notes.write_text('{"my": "notes"}')
    _one_line_exit_2(_cli("check-sim", str(small[0]), "--checkpoint", str(notes), "--quiet"),
                     "not an exactodds check-sim state file")
    assert notes.read_text() == '{"my": "notes"}'


def test_checkpoint_goes_with_records_read_here(small: list[Path], tmp_path: Path) -> None:
    state = tmp_path / "s.json"
    counts = tmp_path / "counts.json"
    counts.write_text('{"wagers": {"tie:8-to-1": {"tie": 1, "lose": 9}}}')
    _one_line_exit_2(_cli("check-sim", str(counts), "--counts", "--checkpoint", str(state)), "not with --counts")
    with pytest.raises(ExactOddsError, match="not standard input"):
        check_files("-", fmt="csv", checkpoint=Checkpoint(state))
    with pytest.raises(ExactOddsError, match="not with --scheduler"):
        check_files(str(small[0]), scheduler="tcp://127.0.0.1:1", checkpoint=Checkpoint(state))
    _one_line_exit_2(_cli("check-sim", str(small[0]), "--checkpoint", str(tmp_path)), "--checkpoint", "directory")
    assert not state.exists()


def test_a_file_changed_while_it_is_read_is_an_error(small: list[Path], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "grows.csv"
    shutil.copy(small[0], f)
    original = Checkpoint.counted

    def counted(self: Checkpoint, current: Tally, chunks: int) -> None:
        original(self, current, chunks)
        with f.open("a") as out:                   # a writer still appending to the file
            out.write("\n")

    monkeypatch.setattr(Checkpoint, "counted", counted)
    with pytest.raises(ExactOddsError, match="changed while it was read"):
        _checked([f], checkpoint=Checkpoint(tmp_path / "s.json"))
