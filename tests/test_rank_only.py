"""Issue 28: cards removed by rank only (suits unknown) price every wager that can be, and name the others."""

from __future__ import annotations

import json

import pytest

from exactodds import analyze
from exactodds.errors import SuitsUnknown
from exactodds.game.shoe import Shoe

from .test_cli import run


def test_the_whole_catalogue_prices_what_it_can_and_names_the_rest() -> None:
    shoe = Shoe.decks(8).remove("K", "Q")                       # ranks only: the suits are unknown
    whole = analyze(shoe, everything=True)
    assert whole.skipped and "perfect-pairs-player:A" in whole.skipped and len(whole.results) > 40
    priced = {f"{r.wager.id}:{r.paytable.id}" for r in whole.results}
    assert not priced & set(whole.skipped) and "dragon-7-insurance:standard" in priced
    same = analyze(shoe, wagers=["dragon-7-insurance"])             # a wager priced beside the skipped ones
    assert whole.results[[f"{r.wager.id}" for r in whole.results].index("dragon-7-insurance")].lines == \
        same.results[0].lines
    code, out, _ = run("analyze", "--all", "--remove", "K,Q", "--summary")
    assert code == 0 and f"Skipped {len(whole.skipped)} wager paytables that read suits" in out
    code, out, _ = run("analyze", "--all", "--remove", "K,Q", "--format", "json")
    assert code == 0 and json.loads(out)["skipped"] == list(whole.skipped)


def test_a_wager_that_reads_suits_alone_is_still_refused() -> None:
    with pytest.raises(SuitsUnknown, match="suits are unknown"):
        analyze(Shoe.decks(8).remove("K"), wagers=["perfect-pairs-player:A"])
    code, _, err = run("analyze", "--wager", "perfect-pairs-player", "--remove", "K")
    assert code == 2 and "reads suits" in err and err.count("\n") == 1


def test_all_in_a_terminal_shows_the_summary_and_readings_wrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: analyze --all read in a terminal is a row per paytable (--full: the outcome tables); a pipe
    gets every table as before; a reading wraps at 100 columns."""
    from exactodds.cli import pricing

    code, piped, _ = run("analyze", "--all")
    monkeypatch.setattr(pricing, "_terminal", lambda: True)
    code_tty, shown, err = run("analyze", "--all")
    assert code == code_tty == 0 and "a row per paytable" in err and len(shown.splitlines()) < 120
    assert len(piped.splitlines()) > 1000 and run("analyze", "--all", "--full")[1] == piped
    assert max(len(line) for line in piped.splitlines() if line.startswith(("Reading:", "  "))) <= 100
