"""The bound on a whole analysis's time (exactodds.engine.budget): measured on its first units of work, said
where the rest is long, refused in one line past the bound — and a study stopped so keeps what it did."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from exactodds.analyses.analysis import load_file
from exactodds.analyses.eor import effects_of_removal
from exactodds.cli import cli
from exactodds.engine import bounds, budget, native
from exactodds.engine.budget import BudgetNote, OverBudget, bounded, units
from exactodds.game.shoe import Shoe
from exactodds.simulation import exposure as exposure_module
from exactodds.simulation.exposure import exposure

SUIT_BETS = Path(__file__).with_name("suit-bets.toml")


class Clock:
    """A clock that moves ``step`` seconds each time it is read (every unit of work seems to take long), and as
    much as :meth:`advance` says."""

    def __init__(self, step: float):
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def slow_batches(monkeypatch, seconds: float) -> Clock:
    """Each batch of a study seems to take ``seconds``, and nothing else any time."""
    clock = Clock(0.0)
    monkeypatch.setattr(budget, "_clock", clock)
    dealt = exposure_module._batch_sums

    def batch_sums(*args, **kwargs):  # type: ignore[no-untyped-def]
        clock.advance(seconds)
        return dealt(*args, **kwargs)

    monkeypatch.setattr(exposure_module, "_batch_sums", batch_sums)
    return clock


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_a_loop_is_refused_once_its_projection_passes_the_bound_and_says_how_many_would_fit(monkeypatch) -> None:
    monkeypatch.setattr(budget, "_clock", Clock(1.0))
    done = []
    with bounded(20, option="--max-time"):
        with pytest.raises(OverBudget) as refused:
            with units("dealing", 100, unit="shoe", instead="fewer shoes", fits=True) as u:
                for k in range(100):
                    done.append(k)
                    u.done()
    # each reading of the clock is 1 s later: after the second unit the projection is 3 + 98 s, past 20 s (after
    # the first nothing is projected: it carries what is made once)
    assert done == [0, 1]
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith("dealing: 100 shoes; 2 took 2 s, so all would take about 1.7 min, ")
    assert "past --max-time 20 s (about 19 of the 100 would fit): fewer shoes, or raise --max-time" in message


def test_the_rest_is_said_once_by_the_outermost_loop_and_nothing_outside_a_budget(monkeypatch) -> None:
    monkeypatch.setattr(budget, "_clock", Clock(5.0))
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        with bounded(None):
            with units("the study", 4, unit="batch") as outer:
                for _ in range(4):
                    with units("a batch's walks", 3, unit="walk") as inner:
                        for _ in range(3):
                            inner.done()
                    outer.done()
        with units("unbounded", 10, unit="step") as free:            # no budget in force: silent, never refused
            for _ in range(10):
                free.done()
    notes = [str(w.message) for w in said if issubclass(w.category, BudgetNote)]
    assert len(notes) == 1 and notes[0].startswith("the study: 4 batches; 2 took") and "more (peak memory" in notes[0]


def test_units_run_side_by_side_say_the_rest_only_once_each_process_has_reported(monkeypatch) -> None:
    """Two batches finished together by two workers (the second a moment after the first) would project the rest at
    twice the real rate and more: nothing is said until both have reported, and then the rest is projected from the
    units after the first."""
    clock = Clock(0.0)
    monkeypatch.setattr(budget, "_clock", clock)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        with bounded(None):
            with units("the study", 10_000, unit="shoe", after=3) as study:
                for k in range(5):
                    clock.advance(40.0 if k % 2 == 0 else 0.5)    # a worker's batch, then its twin's just after
                    study.done(100)                               # (at the second: 'about 49 s more')
                    if k < 2:
                        assert not said, k
    notes = [str(w.message) for w in said if issubclass(w.category, BudgetNote)]
    # said at the third report: 200 shoes took 40.5 s since the first, so the 9,700 left take about 32.7 min more
    assert len(notes) == 1 and notes[0].startswith("the study: 10,000 shoes; 300 took 80 s: about 32.7 min more")


def test_a_table_estimated_to_take_longer_than_is_left_is_refused_before_it_is_built(monkeypatch) -> None:
    slow = bounds.Estimate(rows=10_000_000, bytes=1_000, seconds=50.0, reads="the ranks of 6 card positions",
                           instead="")
    bounds.check(slow)                                          # no budget in force: only the bytes are bounded
    monkeypatch.setattr(budget, "_clock", Clock(0.0))
    with bounded(30, option="--max-time"):
        bounds.check(bounds.Estimate(10, 1_000, 0.001, "point values only", ""))
        with pytest.raises(OverBudget, match=r"^compiling the table that reads the ranks of 6 card positions would "
                                             r"take about 50 s \(estimated\), more than the 30 s left of --max-time"):
            bounds.check(slow)


@pytest.mark.skipif(native.kernels() is None, reason="crossed pairs is past the pure walk's states (it says so)")
def test_a_walked_bets_effects_of_removal_are_refused_after_its_first_walk_not_priced_by_another_route(
        monkeypatch) -> None:
    bets = load_file(SUIT_BETS)
    monkeypatch.setattr(budget, "_clock", Clock(100.0))
    with bounded(1_000, option="--max-time"):
        with pytest.raises(OverBudget, match=r"^the walk of wager 'crossed-pairs' .*; 2 took .* past --max-time"):
            effects_of_removal(Shoe.decks(1), [(bets["crossed-pairs"], "A")], catalogue=bets)


def test_a_study_stopped_by_its_bound_keeps_what_it_did_and_resumes_to_the_unbounded_result(monkeypatch,
                                                                                            tmp_path: Path) -> None:
    study = dict(shoes=300, seed=7, decks=8, batch=100, workers=1)
    whole = exposure([("dragon-7-insurance", "standard")], **study)
    checkpoint = tmp_path / "study.json"
    with monkeypatch.context() as m:
        slow_batches(m, 60.0)
        with bounded(120, option="--max-time"):
            with pytest.raises(OverBudget, match=r"^the study of 1 wager table: 300 shoes; 200 took"):
                exposure([("dragon-7-insurance", "standard")], checkpoint=checkpoint, **study)
    kept = json.loads(checkpoint.read_text())
    assert "[[0, 200]]" in json.dumps(kept)                     # the first two batches, kept
    resumed = exposure([("dragon-7-insurance", "standard")], checkpoint=checkpoint, **study)
    assert resumed.render("json") == whole.render("json")


def test_the_command_line_bound_is_one_shared_option_refused_in_one_line_when_malformed() -> None:
    for bad in ("0", "-5m", "soon", "10 parsecs", "inf", "nan", "1e400", ""):
        code, out, err = run("eor", "--wager", "dragon-7-insurance", "--max-time", bad)
        assert code == 2 and out == "" and err.count("\n") == 1 and "--max-time" in err, (bad, err)
    code, out, err = run("eor", "--wager", "dragon-7-insurance", "--max-time", "1m", "--max-time", "2m")
    assert code == 2 and out == "" and "--max-time given twice" in err and err.count("\n") == 1
    code, out, err = run("eor", "--wager", "dragon-7-insurance", "--decks", "1", "--max-time", "none")
    assert code == 0 and "7" in out and err == ""


def test_the_command_line_says_what_a_long_study_has_left_and_refuses_past_its_bound(monkeypatch) -> None:
    slow_batches(monkeypatch, 20.0)
    code, out, err = run("exposure", "--wager", "dragon-7-insurance", "--shoes", "300", "--seed", "1", "--workers", "1",
                         "--quiet", "--max-time", "1h", "--format", "json")
    assert code == 0 and json.loads(out)
    assert err.startswith("exactodds: note: the study of 1 wager table: 300 shoes; 200 took") and err.count("\n") == 1
    code, out, err = run("exposure", "--wager", "dragon-7-insurance", "--shoes", "300", "--seed", "1", "--workers", "1",
                         "--quiet", "--max-time", "20s")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("exactodds: error: the study of 1 wager table: 300 shoes;") and "--max-time 20 s" in err
