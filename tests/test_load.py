"""Loading a user's file reads and checks every wager, but compiles only the tables of the wagers priced."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from exactodds import ExactOddsError, Shoe, analyze, load_file
from exactodds.analyses import pricing
from exactodds.analyses.positions import position
from exactodds.cli import cli

HEAVY = "banker_suit_1 == banker_suit_2 and banker_suit_2 == banker_suit_3 and player_suit_1 == player_suit_2"
OVERLAP = "  [[wager.outcome]]\n  id = \"any\"\n  name = \"any\"\n  when = \"banker_wins\"\n"


def wager(wid: str, when: str, extra: str = "", pays: str = 'x = "2 to 1"') -> str:
    return (f'[[wager]]\nid = "{wid}"\nname = "{wid}"\nsection = "example"\n'
            f'  [[wager.outcome]]\n  id = "x"\n  name = "x"\n  when = "{when}"\n{extra}'
            f'  [[wager.paytable]]\n  id = "A"\n  pays = {{ {pays} }}\n')


def mixed_file(tmp_path: Path) -> Path:
    """A light wager, a non-exclusive one (cheap to check) and a heavy one (suits of five cards)."""
    path = tmp_path / "mixed.toml"
    path.write_text(wager("light", "banker == 6 and banker_wins")
                    + wager("overlap", "banker == 6 and banker_wins", OVERLAP, 'x = "2 to 1", any = "1 to 1"')
                    + wager("heavy", HEAVY), encoding="utf-8")
    return path


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The feature names of every table compiled; asking for the heavy wager's fails at once."""
    names: list[tuple[str, ...]] = []
    real = pricing.compile_table

    def spy(features: tuple[str, ...], **how: Any) -> Any:
        names.append(tuple(features))
        if "player_suit_2" in features:
            raise AssertionError(f"the heavy wager's table was compiled: {features}")
        return real(features, **how)

    monkeypatch.setattr(pricing, "compile_table", spy)
    pricing.feature_table.cache_clear()
    return names


def test_loading_a_file_compiles_only_the_wagers_priced(tmp_path: Path, compiled: list) -> None:
    path = mixed_file(tmp_path)
    start = time.perf_counter()
    cat = load_file(path)                                    # every wager read and type-checked
    (light,) = analyze(Shoe.decks(8), wagers=["light"], catalogue=cat)
    assert time.perf_counter() - start < 1.0
    assert light.lines[0].combinations > 0
    assert set(cat) == {"light", "overlap", "heavy"}
    assert not any("player_suit_2" in names for names in compiled)


def test_cli_prices_the_light_wager_of_a_file_with_a_heavy_one(tmp_path: Path, compiled: list) -> None:
    r = CliRunner().invoke(cli, ["analyze", "--paytables", str(mixed_file(tmp_path)), "--wager", "light"])
    assert r.exit_code == 0 and r.stderr == ""
    assert "light" in r.stdout


def test_a_bad_condition_is_still_refused_at_load_though_not_priced(tmp_path: Path, compiled: list) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(wager("light", "banker == 6") + wager("bad", "banker_suit_1 < 3"), encoding="utf-8")
    with pytest.raises(ExactOddsError, match=r"wager 'bad': outcome 'x'"):
        load_file(path)


MESSAGE = ("wager 'overlap': outcomes 'x' and 'any' both hold on one round (banker=6, banker_cards=2, "
           "player=0, player_cards=3); make them exclusive or say settle = \"highest\"")


def test_a_non_exclusive_wager_is_refused_when_priced(tmp_path: Path, compiled: list) -> None:
    path = mixed_file(tmp_path)
    cat = load_file(path)
    with pytest.raises(ExactOddsError) as err:
        analyze(Shoe.decks(8), wagers=["overlap"], catalogue=cat)
    assert str(err.value) == f"{path}: {MESSAGE}"
    with pytest.raises(ExactOddsError, match="outcomes 'x' and 'any' both hold on one round"):
        position(Shoe.decks(8), [("overlap", "A", 1)], catalogue=load_file(path))
    r = CliRunner().invoke(cli, ["analyze", "--paytables", str(path), "--wager", "overlap"])
    assert r.exit_code == 2 and r.stdout == "" and r.stderr.strip().endswith(f"{path}: {MESSAGE}")
    assert r.stderr.count("\n") == 1


@pytest.mark.parametrize("command", [["list", "--paytables"], ["check"]])
def test_list_and_check_check_every_wager_of_a_file(tmp_path: Path, compiled: list, command: list[str]) -> None:
    path = mixed_file(tmp_path)
    r = CliRunner().invoke(cli, [*command, str(path)])
    assert r.exit_code == 2 and r.stdout == "" and MESSAGE in r.stderr and r.stderr.count("\n") == 1
    good = tmp_path / "good.toml"
    good.write_text(wager("light", "banker == 6 and banker_wins") + wager("tie-six", "tie and banker == 6"),
                    encoding="utf-8")
    r = CliRunner().invoke(cli, [*command, str(good)])
    assert r.exit_code == 0, r.stderr
    assert compiled                                         # checked against the tables: compiled now


def test_simulated_rounds_of_a_non_exclusive_wager_are_refused(tmp_path: Path, compiled: list) -> None:
    from exactodds.simulation.rounds import settle_rounds

    cat = load_file(mixed_file(tmp_path))
    w = cat["overlap"]
    cols = pricing.feature_table(("multiset", ("player", "banker", "player_cards", "banker_cards"))).columns
    with pytest.raises(ExactOddsError, match="both hold on one round"):
        settle_rounds(w, w.paytables["A"], cols)


def test_a_round_settled_one_by_one_under_a_non_exclusive_wager_is_refused(tmp_path: Path, compiled: list) -> None:
    """Settling a single round (as the house-money and walk routes do) refuses two exclusive outcomes
    that meet, instead of paying the first."""
    path = mixed_file(tmp_path)
    w = load_file(path)["overlap"]
    row = {"banker": 6, "banker_wins": True, "player": 0, "tie": False, "player_wins": False}
    with pytest.raises(ExactOddsError, match=r"outcomes 'x' and 'any' both hold on one round \(banker=6, "):
        w.settle_row(row, w.paytables["A"])
    assert w.settle_row({**row, "banker": 7}, w.paytables["A"]) == "any"
