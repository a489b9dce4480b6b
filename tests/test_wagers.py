"""The catalogue as data: citations, validation of malformed files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from exactodds import ExactOddsError, Shoe, analyze, load_catalogue, load_file

GOOD = '''
[[wager]]
id = "my-lucky-six"
name = "Lucky Six, house paytable"
section = "627b.2(c)(3) (house variation)"
  [[wager.outcome]]
  id = "six"
  name = "Banker wins with 6"
  when = "banker_wins and banker == 6"
  [[wager.paytable]]
  id = "X"
  pays = { six = "15 to 1" }
'''


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "mine.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_every_wager_cites_a_section_and_every_paytable_too() -> None:
    for w in load_catalogue().values():
        assert re.match(r"^\d{3}[ab]\.\d+", w.section), w.id
        for t in w.paytables.values():
            assert re.match(r"^\d{3}[ab]\.\d+", t.section), (w.id, t.id)


def test_user_file_loads(tmp_path: Path) -> None:
    cat = load_file(write(tmp_path, GOOD))
    assert list(cat) == ["my-lucky-six"]
    assert str(cat["my-lucky-six"].paytables["X"].pays["six"].net) == "15"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('"15 to 1"', '"15 too 1"'), "wager 'my-lucky-six': paytable 'X': outcome 'six': unknown pay form '15 too 1'"),
        (('  when = "banker_wins and banker == 6"\n', ""), "wager 'my-lucky-six': outcome 'six': no definition"),
        (("pays = { six", "pays = { seven = \"2 to 1\", six"), "wager 'my-lucky-six': paytable 'X': names unknown outcome 'seven'"),
        (("banker == 6", "bankr == 6"), "unknown feature 'bankr'"),
        (("banker == 6", "__import__('os')"), "only abs(), min(), max() may be called"),
        (('id = "X"', 'id = "X"\n  section = 5'), None),
    ],
)
def test_malformed_files_fail_with_one_line(tmp_path: Path, change: tuple[str, str], message: str | None) -> None:
    text = GOOD.replace(*change)
    if message is None:
        load_file(write(tmp_path, text))      # a number where text is expected is read as text
        return
    with pytest.raises(ExactOddsError) as exc:
        load_file(write(tmp_path, text))
    assert str(exc.value).startswith(str(tmp_path / "mine.toml") + ": ")
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_duplicate_wager_id(tmp_path: Path) -> None:
    with pytest.raises(ExactOddsError, match="wager 'my-lucky-six': duplicate id"):
        load_file(write(tmp_path, GOOD + GOOD))


def test_duplicate_of_a_regulation_wager_id(tmp_path: Path) -> None:
    with pytest.raises(ExactOddsError, match="wager 'lucky-six': duplicate id .first defined in 627b.toml"):
        load_catalogue().merged(load_file(write(tmp_path, GOOD.replace("my-lucky-six", "lucky-six"))))


def test_overlapping_outcomes_are_refused(tmp_path: Path) -> None:
    text = GOOD.replace("  [[wager.paytable]]", '''  [[wager.outcome]]
  id = "any_win"
  name = "Banker wins"
  when = "banker_wins"
  [[wager.paytable]]''').replace('pays = { six = "15 to 1" }', 'pays = { six = "15 to 1", any_win = "1 to 1" }')
    cat = load_file(write(tmp_path, text))                  # read as data; checked when priced
    with pytest.raises(ExactOddsError, match="outcomes 'six' and 'any_win' both hold on one round"):
        analyze(Shoe.decks(8), wagers=["my-lucky-six"], catalogue=cat)
    with pytest.raises(ExactOddsError, match="outcomes 'six' and 'any_win' both hold on one round"):
        load_file(write(tmp_path, text), check_all=True)


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(ExactOddsError, match="cannot read"):
        load_file(tmp_path / "missing.toml")
    with pytest.raises(ExactOddsError, match="not valid TOML"):
        load_file(write(tmp_path, "[[wager]\n"))


def test_alternative_reading_changes_the_numbers() -> None:
    from exactodds import Shoe, analyze

    (regular,) = analyze(Shoe.decks(8), wagers=["blazing-7s"], paytables=["B"])
    (alt,) = analyze(Shoe.decks(8), wagers=["blazing-7s"], paytables=["B"],
                     alternatives={"blazing-7s": "mixed-7s-as-3-card"})
    assert alt.expected_return != regular.expected_return
    assert alt.wager.reading_id == "mixed-7s-as-3-card"


def test_every_shipped_wager_and_reading_has_exclusive_outcomes() -> None:
    """The shipped catalogue is checked when each wager is first priced; here, all at once."""
    from exactodds.analyses.pricing import check_wagers

    check_wagers(load_catalogue())


ALTERNATIVE = GOOD + '''
  [[wager.alternative]]
  id = "FIRST"
  reading = "Any Banker win pays."
  when.six = "banker_wins"
  [[wager.alternative]]
  id = "SECOND"
  reading = "A Banker 6 pays, win or tie."
  when.six = "banker == 6 and not player_wins"
'''


@pytest.mark.parametrize("first,second,message", [
    ("v", "v", "alternative 'v': duplicate alternative id"),
    ("regulation", "v", "the id 'regulation' names the regulation's own reading"),
])
def test_an_alternative_id_is_unique_and_never_the_regulations_own(tmp_path: Path, first: str, second: str,
                                                                   message: str) -> None:
    """Two alternatives 'v': the first was dropped silently; 'regulation' was priced but labelled the regulation."""
    with pytest.raises(ExactOddsError, match=message):
        load_file(write(tmp_path, ALTERNATIVE.replace("FIRST", first).replace("SECOND", second)))


def test_a_paytable_id_differing_only_in_case_is_a_duplicate(tmp_path: Path) -> None:
    text = GOOD + '''
  [[wager.paytable]]
  id = "x"
  pays = { six = "12 to 1" }
'''
    with pytest.raises(ExactOddsError, match="duplicate paytable id"):
        load_file(write(tmp_path, text))
    override = '''
[[paytable]]
wager = "tie"
id = "8-To-1"
pays = { tie = "7 to 1" }
'''
    from exactodds.wagers.catalogue import read_file

    with pytest.raises(ExactOddsError, match="already has a paytable '8-To-1'"):
        load_catalogue().merged(read_file(write(tmp_path, override)))


@pytest.mark.parametrize("key,value", [("name", r"Lucky\u001b[31m Six"), ("name", r"Lucky \u202eSix"),
                                       ("section", r"627b.2\u0007"), ("id", r"six\u200b")])
def test_control_and_bidirectional_characters_in_a_files_names_are_refused(tmp_path: Path, key: str,
                                                                            value: str) -> None:
    """An ESC or U+202E in a wager's name reached analyze's output and certificates raw."""
    text = GOOD.replace({"name": 'name = "Lucky Six, house paytable"', "section": 'section = "627b.2(c)(3) (house '
                         'variation)"', "id": 'id = "six"'}[key], f'{key} = "{value}"', 1)
    assert text != GOOD
    with pytest.raises(ExactOddsError, match=r"invisible or control character U\+"):
        load_file(write(tmp_path, text))


@pytest.mark.parametrize("where, toml", [
    ("wager", 'id = "a:b"'),
    ("paytable", 'id = "ok"\n  [[wager.paytable]]\n  id = "A B"\n  pays = { x = "8 to 1" }'),
    ("alternative", 'id = "ok"\n  [[wager.alternative]]\n  id = "x/y"\n  reading = "r"'),
])
def test_i26_an_id_the_command_line_cannot_name_is_refused(where: str, toml: str, tmp_path: Path) -> None:
    """A wager id holding ':' loaded, but WAGER:PAYTABLE could never name it; likewise spaces, '/', '='."""
    head, _, rest = toml.partition("\n")
    text = (f'[[wager]]\n{head}\nname = "x"\nsection = "t"\n  [[wager.outcome]]\n  id = "x"\n  name = "x"\n'
            f'  when = "tie"\n' + (rest + "\n" if rest and where == "paytable" else
                                  '  [[wager.paytable]]\n  id = "A"\n  pays = { x = "8 to 1" }\n' + (rest + "\n" if rest else "")))
    path = tmp_path / "ids.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ExactOddsError) as caught:
        load_file(path)
    message = str(caught.value)
    assert "\n" not in message and "cannot name: use letters, digits and - _ . $" in message, message
    assert f"{where} #1" in message or where == "wager", message
