"""Studies that survive and merge (exactodds.simulation.checkpoint, issue 39): an exposure run killed at random
moments and resumed from its checkpoint prints the bytes of a run never stopped; one process, two workers and
two parts merged print the same bytes; a tampered, foreign or unfinished state is refused, never used."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from exactodds.errors import ExactOddsError
from exactodds.simulation.checkpoint import State, load_state
from exactodds.simulation.exposure import Tally, estimate, exposure, merge_exposure

from .runs import killed, written_anew

ROOT = Path(__file__).resolve().parents[1]
PAIRS = [("dragon-7-insurance", "standard"), ("panda-8-insurance", "standard")]


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "exactodds", *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def test_a_run_killed_at_random_moments_resumes_to_the_bytes_of_a_run_never_stopped(tmp_path: Path) -> None:
    """SIGKILL (no handler runs, no last write) at random moments, three times, then run to the end. The
    moments are drawn from a seed shown when the test fails."""
    run = ["exposure", "--wager", "dragon-7-insurance", "--shoes", "6000", "--seed", "17", "--workers", "1",
           "--batch", "5", "--quiet", "--format", "json"]          # about 1.3 CPU-s, and a write every batch
    whole = _cli(*run)
    assert whole.returncode == 0, whole.stderr
    state = tmp_path / "study.json"
    rng = random.Random()
    seed = rng.randrange(10**6)
    rng.seed(seed)
    progress = []
    for k in range(3):                             # the first kill waits for a first write: a resume to test
        killed(run, state, pause=rng.uniform(0.0, 0.8), wait=k == 0)
        if state.exists():
            progress.append(load_state(state, option="").shoes_done)
    assert progress and 0 < progress[-1] < 6000, (seed, progress)          # stopped part-way, resumed from there
    assert progress == sorted(progress), (seed, progress)                  # a resume never loses what was done
    resumed = _cli(*run, "--checkpoint", str(state))
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == whole.stdout, seed
    again = _cli(*run, "--checkpoint", str(state))                         # finished: read back, nothing dealt
    assert again.stdout == whole.stdout


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sigterm_writes_what_is_done_and_the_run_resumes(tmp_path: Path, workers: str) -> None:
    """SIGTERM (as Ctrl-C) stops the run with 143 after a last write of the shoes done (unless it lands while a
    batch is being added: then the file keeps the write before); on two workers the batches not begun are
    dropped, not run to the end first."""
    run = ["exposure", "--wager", "dragon-7-insurance", "--shoes", "15000", "--seed", "4", "--workers", workers,
           "--batch", "5",                  # about 3 CPU-s (2,500 shoes took 0.3 s on two workers): the signal lands
                                            # in the run's first second
           "--quiet", "--format", "json"]
    state = tmp_path / "study.json"
    p = written_anew(run, state, every="0.5", text=True)
    time.sleep(0.3)
    started = time.monotonic()
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 143 and "terminated" in err, err
    assert time.monotonic() - started < 5
    done = load_state(state, option="").shoes_done
    assert 0 < done < 15000
    resumed = _cli(*run, "--checkpoint", str(state))
    # the run never stopped, in larger batches (a study's result does not depend on how its work was split)
    unstopped = _cli(*[("500" if word == "5" and run[k - 1] == "--batch" else word) for k, word in enumerate(run)])
    assert resumed.returncode == 0 and resumed.stdout == unstopped.stdout


def test_one_process_two_workers_and_two_merged_parts_give_the_same_bytes(tmp_path: Path) -> None:
    one = exposure(PAIRS, shoes=12, seed=5, batch=12, team=True).render("json")
    two = exposure(PAIRS, shoes=12, seed=5, batch=2, workers=2, team=True).render("json")
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    exposure(PAIRS, shoes=5, seed=5, batch=3, team=True, checkpoint=first)
    exposure(PAIRS, shoes=7, first_shoe=5, seed=5, batch=4, team=True, checkpoint=second)
    merged = merge_exposure([second, first]).render("json")
    assert one == two == merged
    assert json.loads(one)["wagers"][0]["shoes"] == 12
    # and the parts are the shoes they say: part two alone is shoes 5-11, not shoes 0-6
    alone = merge_exposure([second])
    assert alone.results[0].first_shoe == 5
    assert alone.render("json") != exposure(PAIRS, shoes=7, seed=5, team=True).render("json")


def test_the_cli_merges_parts_into_the_bytes_of_one_run(tmp_path: Path) -> None:
    run = ["exposure", "--wager", "tie:8-to-1", "--shoes", "6", "--seed", "2", "--workers", "1", "--quiet",
           "--format", "json"]
    whole = _cli(*run)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert _cli(*run[:3], "--shoes", "4", *run[5:], "--checkpoint", str(a)).returncode == 0
    assert _cli(*run[:3], "--shoes", "2", "--first-shoe", "4", *run[5:], "--checkpoint", str(b)).returncode == 0
    merged = _cli("merge", str(a), str(b), "--format", "json")
    assert merged.returncode == 0 and merged.stdout == whole.stdout


def test_a_tally_reads_back_exactly_from_its_json() -> None:
    for r in exposure(PAIRS, shoes=3, seed=8, team=True):
        text = json.dumps(r.tally.to_json())
        assert Tally.from_json(json.loads(text)) == r.tally
        assert r.tally.cross or r.wager.id == PAIRS[-1][0]


def _state(tmp_path: Path, **kwargs) -> Path:
    path = tmp_path / "s.json"
    exposure(PAIRS[:1], **({"shoes": 4, "seed": 3, "checkpoint": path} | kwargs))
    return path


@pytest.mark.parametrize(("change", "words"), [
    ({"seed": 4}, "seed: 3 there, 4 here"),
    ({"decks": 6}, "decks: 8 there, 6 here"),
    ({"cut": 20}, "cut: 14 there, 20 here"),
    ({"shoes": 5}, "shoes: 0–3 there, 0–4 here"),
    ({"first_shoe": 1}, "shoes: 0–3 there, 1–4 here"),
    ({"tags": {"8": 1}}, "tags: null there"),
    ({"pairs": [("panda-8-insurance", "standard")]}, "wagers:"),
    ({"bankroll": 50}, "bankroll: 100 there, 50 here"),
])
def test_a_checkpoint_of_another_run_is_refused_in_one_line_and_left_as_it_was(tmp_path: Path, change, words) -> None:
    path = _state(tmp_path)
    before = path.read_bytes()
    pairs = change.pop("pairs", PAIRS[:1])
    with pytest.raises(ExactOddsError, match="made by another run") as caught:
        exposure(pairs, **({"shoes": 4, "seed": 3, "checkpoint": path} | change))
    assert words in str(caught.value) and "\n" not in str(caught.value)
    assert path.read_bytes() == before


def test_a_tampered_checkpoint_is_refused(tmp_path: Path) -> None:
    path = _state(tmp_path)
    data = json.loads(path.read_text())
    data["totals"][0]["advantage_rounds"] += 1                  # a plausible edit: still valid JSON, still a count
    path.write_text(json.dumps(data))
    with pytest.raises(ExactOddsError, match="do not match its digest"):
        exposure(PAIRS[:1], shoes=4, seed=3, checkpoint=path)
    with pytest.raises(ExactOddsError, match="do not match its digest"):
        merge_exposure([path])
    code = _cli("exposure", "--wager", "dragon-7-insurance", "--shoes", "4", "--seed", "3", "--workers", "1",
                "--checkpoint", str(path))
    assert code.returncode == 2 and code.stdout == "" and code.stderr.count("\n") == 1
    assert "Traceback" not in code.stderr and str(path) in code.stderr


def test_a_forged_state_with_its_digest_recomputed_is_refused_in_one_line_if_malformed(tmp_path: Path) -> None:
    path = _state(tmp_path)
    clean = path.read_text()
    for forge in (lambda t: t[0].pop("by_tc"), lambda t: t.append(t[0]), lambda t: t[0].update(rounds="x/0")):
        state = State.from_text(clean, where="clean")
        forge(state.totals)
        path.write_text(state.to_text())                          # the digest made anew over the forged totals
        with pytest.raises(ExactOddsError, match="totals") as caught:
            exposure(PAIRS[:1], shoes=4, seed=3, checkpoint=path)
        assert "\n" not in str(caught.value)


def test_another_version_and_a_file_that_is_no_state_are_refused(tmp_path: Path) -> None:
    path = _state(tmp_path)
    state = load_state(path, option="")
    state.version = "0.0.1"
    path.write_text(state.to_text())                              # a good digest, another version
    with pytest.raises(ExactOddsError, match="made by exactodds 0.0.1"):
        exposure(PAIRS[:1], shoes=4, seed=3, checkpoint=path)
    notes = tmp_path / "notes.json"
    notes.write_text('{"my": "notes"}')
    with pytest.raises(ExactOddsError, match="not an exactodds exposure state"):
        exposure(PAIRS[:1], shoes=4, seed=3, checkpoint=notes)
    assert notes.read_text() == '{"my": "notes"}'


def test_a_changed_paytables_file_is_refused(tmp_path: Path) -> None:
    """The same command line over a data file whose pay was changed since: the run's inputs differ."""
    source = tmp_path / "mine.toml"
    toml = ('[[wager]]\nid = "my-tie"\nname = "My tie"\nsection = "a test"\n  [[wager.outcome]]\n  id = "tie"\n'
            '  name = "tie"\n  when = "tie"\n  [[wager.paytable]]\n  id = "A"\n  pays = {{ tie = "{pay}" }}\n')
    source.write_text(toml.format(pay="8 to 1"))
    state = tmp_path / "s.json"
    run = ["exposure", "--wager", "my-tie:A", "--paytables", str(source), "--shoes", "2", "--seed", "1",
           "--workers", "1", "--quiet", "--checkpoint", str(state)]
    first = _cli(*run)
    assert first.returncode == 0, first.stderr
    source.write_text(toml.format(pay="9 to 1"))
    again = _cli(*run)
    assert again.returncode == 2 and "made by another run (definitions:" in again.stderr, again.stderr
    merged = _cli("merge", str(state), "--paytables", str(source))
    assert merged.returncode == 2 and "give the same --paytables files" in merged.stderr, merged.stderr


def test_parts_that_overlap_leave_a_gap_are_unfinished_or_foreign_are_refused(tmp_path: Path) -> None:
    def part(name: str, first: int, shoes: int, seed: int = 3) -> Path:
        path = tmp_path / name
        exposure(PAIRS[:1], shoes=shoes, first_shoe=first, seed=seed, checkpoint=path)
        return path

    a, b, c, d = part("a", 0, 3), part("b", 2, 3), part("c", 4, 2), part("d", 3, 1, seed=9)
    with pytest.raises(ExactOddsError, match="both hold shoes 2–2"):
        merge_exposure([a, b])
    with pytest.raises(ExactOddsError, match="no part holds shoes 3–3"):
        merge_exposure([a, c])
    with pytest.raises(ExactOddsError, match="another study.*seed: 3 there, 9 here"):
        merge_exposure([a, d])
    unfinished = load_state(c, option="")
    unfinished.done = [(4, 5)]
    c.write_text(unfinished.to_text())
    with pytest.raises(ExactOddsError, match="unfinished"):
        merge_exposure([a, part("e", 3, 1), c])


def test_the_remaining_shoes_are_the_gaps_between_those_done() -> None:
    s = State({}, first=10, stop=30, done=[(12, 15), (20, 21)])
    assert s.remaining(batch=4) == [(10, 12), (15, 19), (19, 20), (21, 25), (25, 29), (29, 30)]
    shoes = [i for a, b in [*s.remaining(batch=4), *s.done] for i in range(a, b)]
    assert sorted(shoes) == list(range(10, 30))


def test_the_cli_prints_the_rate_on_stderr_and_leaves_the_result_alone() -> None:
    run = ["exposure", "--wager", "tie:8-to-1", "--shoes", "3", "--seed", "2", "--workers", "1", "--format", "json"]
    loud, quiet = _cli(*run), _cli(*run, "--quiet")
    assert loud.returncode == quiet.returncode == 0 and loud.stdout == quiet.stdout
    assert loud.stderr.startswith("rate: 3 shoes in ") and "per CPU-second" in loud.stderr and quiet.stderr == ""


def test_an_estimate_measures_a_few_shoes_and_runs_no_study(tmp_path: Path) -> None:
    plan = estimate(PAIRS[:1], shoes=10**8, seed=1, workers=4, sample_seconds=0.3)
    assert 0 < plan.sample < 10**8 and plan.sample_cpu > 0
    assert plan.cpu_seconds == pytest.approx(4 * plan.setup_cpu + 10**8 * plan.sample_cpu / plan.sample)
    assert "CPU time" in str(plan) and "4 processes" in str(plan)
    out = _cli("exposure", "--wager", "tie:8-to-1", "--shoes", "1000", "--estimate", "--workers", "2")
    assert out.returncode == 0 and out.stdout.startswith("Study plan for 1,000 shoes") and "Memory" in out.stdout
    assert "Verdict" not in out.stdout
    refused = _cli("exposure", "--wager", "tie:8-to-1", "--shoes", "10", "--estimate", "--checkpoint",
                   str(tmp_path / "x.json"))
    assert refused.returncode == 2 and "--estimate runs no study" in refused.stderr
    assert not (tmp_path / "x.json").exists()


def test_a_run_half_done_here_resumes_on_dask_to_the_same_bytes(tmp_path: Path) -> None:
    """The state of shoes 0-4 of a 10-shoe run (made from a 5-shoe run's totals: the same study), resumed on a
    Dask LocalCluster of two workers, prints what one local process prints."""
    distributed = pytest.importorskip("dask.distributed")
    half, path = tmp_path / "half.json", tmp_path / "run.json"
    exposure(PAIRS[:1], shoes=5, seed=6, checkpoint=half)
    done = load_state(half, option="")
    path.write_text(State(done.study, 0, 10, [(0, 5)], done.totals).to_text())
    local = exposure(PAIRS[:1], shoes=10, seed=6, batch=3).render("json")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        resumed = exposure(PAIRS[:1], shoes=10, seed=6, batch=2, scheduler=cluster.scheduler_address, checkpoint=path)
    assert resumed.throughput is not None and resumed.throughput.shoes == 5
    assert resumed.render("json") == local
    assert load_state(path, option="").finished
