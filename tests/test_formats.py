"""The documented input formats: the example files load and price, and the JSON Schema accepts them."""

from __future__ import annotations

import json
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from exactodds.analyses.analysis import analyze, load_file
from exactodds.cli import cli
from exactodds.engine.distribution import deal
from exactodds.errors import ExactOddsError
from exactodds.game.shoe import Shoe
from exactodds.wagers.catalogue import load_catalogue, read_text

ROOT = Path(__file__).resolve().parent.parent


def test_a_paytable_added_to_a_wager_of_the_catalogue() -> None:
    own = load_file(ROOT / "examples" / "house-tie.toml")
    cat = load_catalogue().merged(own)
    assert list(cat["tie"].paytables) == ["8-to-1", "9-to-1", "7-to-1"]
    r = analyze(Shoe.decks(8), wagers=["tie:7-to-1"], catalogue=cat)[0]
    tie = Fraction(deal(Shoe.decks(8)).main_game()["tie"], Shoe.decks(8).sequences)
    assert r.expected_return == 8 * tie - 1                                  # pays 7, loses 1
    out = CliRunner().invoke(cli, ["analyze", "--paytables", str(ROOT / "examples" / "house-tie.toml"), "--summary"])
    assert out.exit_code == 0 and "7-to-1" in out.output and "house" in out.output


@pytest.mark.parametrize("text, words", [
    ('[[paytable]]\nwager = "tye"\nid = "x"\npays = { tie = "7 to 1" }\n', "did you mean 'tie'"),
    ('[[paytable]]\nwager = "tie"\nid = "8-to-1"\npays = { tie = "7 to 1" }\n', "already has a paytable"),
    ('[[paytable]]\nwager = "tie"\nid = "x"\npays = { tye = "7 to 1" }\n', "unknown outcome 'tye'"),
    ('[[paytable]]\nid = "x"\npays = { tie = "7 to 1" }\n', "names the 'wager'"),
])
def test_bad_paytable_extensions(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "x.toml"
    path.write_text(text)
    with pytest.raises(ExactOddsError, match=words):
        load_catalogue().merged(load_file(path))


def test_the_schema_in_the_docs_is_the_one_the_package_ships_and_validates_with() -> None:
    shipped = ROOT / "exactodds" / "data" / "paytable-file.schema.json"
    documented = ROOT / "docs" / "paytable-file.schema.json"
    assert shipped.is_file()
    if documented.exists():
        assert documented.read_bytes() == shipped.read_bytes()


def test_the_schema_accepts_the_examples_and_the_shipped_data() -> None:
    import jsonschema

    schema = json.loads((ROOT / "exactodds" / "data" / "paytable-file.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    files = [*(ROOT / "examples").glob("*.toml"), *(ROOT / "exactodds" / "data").glob("6*.toml")]
    assert len(files) >= 5
    for path in files:
        data = tomllib.loads(path.read_text())
        jsonschema.validate(data, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"wager": [{"id": "x", "name": "X", "section": "s", "colour": "red"}]}, schema)


def test_a_negative_house_edge_is_said_in_words_wherever_it_is_printed(tmp_path: Path) -> None:
    """Tie at 12 to 1: house edge 1 - 13 P(tie) < 0; every printed form says the player has the edge, CSV and
    JSON keep the number alone."""
    mine = tmp_path / "generous.toml"
    mine.write_text('[[paytable]]\nwager = "tie"\nid = "generous"\nsection = "a test"\npays = { tie = "12 to 1" }\n')
    p_tie = Fraction(deal(Shoe.decks(8)).main_game()["tie"], Shoe.decks(8).sequences)
    edge = 1 - 13 * p_tie
    assert edge < 0

    def run(*args: str) -> str:
        r = CliRunner().invoke(cli, [*args, "--paytables", str(mine)])
        assert r.exit_code == 0, r.output
        return r.stdout

    shown = f"{float(edge) * 100:.4f}%"
    assert f"House edge: {shown} (exact {edge}; the player has the edge)" in run("analyze")
    assert f"{shown} (the player has the edge)" in run("analyze", "--summary")
    assert "the player has the edge" in run("analyze", "--format", "markdown")
    assert "the player has the edge" in run("analyze", "--format", "html")
    assert f"{shown} (the player has the edge)" in run("position", "--wager", "tie:generous")
    assert "player has the edge" not in run("analyze", "--summary", "--format", "csv")
    assert Fraction(json.loads(run("analyze", "--format", "json"))["wagers"][0]["house_edge"]) == edge
    assert "the player has the edge" in repr(analyze(Shoe.decks(8), wagers=["tie:generous"],
                                                     catalogue=load_catalogue().merged(load_file(mine)))[0])
    house = run("analyze", "--wager", "tie:8-to-1", "--summary")                   # the house's edge: no words
    assert "player has the edge" not in house


def _combined(a: str, b: str) -> str:
    wager = ("[[wager]]\nid = \"{id}\"\nname = \"{id}\"\nsection = \"test\"\nparameters = {{ s = {s} }}\n"
             "  [[wager.outcome]]\n  id = \"x\"\n  name = \"x\"\n  when = \"player_suit_1 == banker_suit_1 and "
             "player_suit_1 != s\"\n  [[wager.paytable]]\n  id = \"A\"\n  pays = {{ x = \"3 to 1\" }}\n")
    return (wager.format(id="a", s=a) + wager.format(id="b", s=b)
            + "[[wager]]\nid = \"ab\"\nname = \"both\"\nsection = \"test\"\ncombine = [\"a\", \"b\"]\n")


def test_combined_wagers_with_one_parameter_of_two_values_are_refused() -> None:
    # it read the second's value in both: the first's wins were counted for 'd', not 'h'
    with pytest.raises(ExactOddsError, match=r"^c\.toml: wager 'ab': 'a' and 'b' both have parameter 's', with "
                                             r"different values \('h' and 'd'\)"):
        read_text(_combined('"h"', '"d"'), source="c.toml")["ab"]
    same = read_text(_combined('"h"', '"h"'), source="c.toml")
    assert same["ab"].parameters == {"s": "h"} == same["a"].parameters
