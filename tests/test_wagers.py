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
    assert "\n" not in message and "cannot name: use ASCII letters, digits and - _ . $" in message, message
    assert f"{where} #1" in message or where == "wager", message


@pytest.mark.parametrize("value", ["a!b", "a+b", "a~b", "a@b", "a^b", "caf\u00e9", "\U0001d4f9", "x" * 65])
@pytest.mark.parametrize("where", ["wager", "paytable", "alternative"])
def test_i40_the_id_rule_is_what_its_message_says(where: str, value: str, tmp_path: Path) -> None:
    """Issue 40, item 8: the message listed what an id may hold (letters, digits and - _ . $) but the rule was a
    list of what it may not, so '!', '+', '~', '@', '^' and any letter of any script passed. The rule is now
    the list the message gives (ASCII letters), at most 64 characters, and the schema's pattern is the same."""
    ids = {"wager": value, "paytable": "A", "alternative": "r"}
    ids[where] = value
    text = (f'[[wager]]\nid = "{ids["wager"]}"\nname = "x"\nsection = "t"\n  [[wager.outcome]]\n  id = "x"\n'
            f'  name = "x"\n  when = "tie"\n  [[wager.paytable]]\n  id = "{ids["paytable"]}"\n  pays = {{ x = "8 to 1" }}\n'
            f'  [[wager.alternative]]\n  id = "{ids["alternative"]}"\n  reading = "r"\n')
    with pytest.raises(ExactOddsError) as caught:
        load_file(write(tmp_path, text))
    message = str(caught.value)
    assert "\n" not in message, message
    assert ("an id has at most 64" in message if len(value) > 64 else
            "cannot name: use ASCII letters, digits and - _ . $" in message), message


def test_i40_the_schemas_id_pattern_and_the_loaders_rule_agree() -> None:
    import json
    import string

    import jsonschema

    from exactodds.wagers.catalogue import ID_CHARACTERS, MAX_ID, check_id

    schema = json.loads((Path(__file__).resolve().parents[1] / "exactodds" / "data" /
                         "paytable-file.schema.json").read_text())
    pattern = schema["$defs"]["id"]["pattern"]
    assert schema["$defs"]["paytable"]["properties"]["id"]["pattern"] == pattern
    assert ID_CHARACTERS == set(string.ascii_letters + string.digits + "-_.$")
    samples = [*(c for c in map(chr, range(0x20, 0x250))), "8-to-1", "$5", "x" * MAX_ID, "x" * (MAX_ID + 1),
               "a.b_c-d$", "\uff54ie", "\U0001d4f9"]
    for value in samples:
        try:
            check_id(value, where="id")
            ok = True
        except ExactOddsError:
            ok = False
        valid = jsonschema.Draft202012Validator({"type": "string", "pattern": pattern}).is_valid(value)
        assert ok == (valid and value.strip() == value), repr(value)


ALT = '  [[wager.alternative]]\n  id = "r"\n  reading = "r"\n'


@pytest.mark.parametrize(("change", "message"), [
    (('section = "627b', 'colour = "red"\nsection = "627b'), "wager 'my-lucky-six': unknown key 'colour'"),
    (('section = "627b', 'settle = "most"\nsection = "627b'),
     "wager 'my-lucky-six': settle must be 'exclusive' or 'highest', got 'most'"),
    (('id = "six"', 'id = " lose "'), "wager 'my-lucky-six': outcome 'lose': outcome id 'lose' is reserved"),
    (('  name = "Banker wins with 6"\n', '  colour = 1\n  name = "Banker wins with 6"\n'),
     "wager 'my-lucky-six': outcome 'six': unknown key 'colour'"),
    (('when = "banker_wins and banker == 6"', 'when = 6'),
     "wager 'my-lucky-six': outcome 'six': a condition must be text in quotes, got 6"),
    (('"15 to 1"', '15'), "wager 'my-lucky-six': paytable 'X': outcome 'six': a pay must be text such as '30 to 1'"),
    (('id = "X"', 'id = "X"\n  award_basis = "by"'),
     "wager 'my-lucky-six': paytable 'X': award_basis must be 'to' or 'for', got 'by'"),
    (('pays = { six = "15 to 1" }', 'pays = {}'), "wager 'my-lucky-six': paytable 'X': no pays"),
    (('id = "X"', 'id = "X Y"'), "wager 'my-lucky-six': paytable #1: 'id' 'X Y' holds ' ' at position 2"),
    (('name = "Lucky Six, house paytable"', 'name = 6'), "wager 'my-lucky-six': missing or empty 'name'"),
    (('id = "my-lucky-six"', 'id = "my:six"'), "wager #1: 'id' 'my:six' holds ':' at position 3"),
    (('[[wager]]', 'title = 6\n[[wager]]'), "'title' must be text, got 6"),
    (('section = "627b', 'game = 6\nsection = "627b'), "wager 'my-lucky-six': game must be text, got 6"),
    (('pays = { six = "15 to 1" }\n', 'pays = { six = "15 to 1" }\n' + ALT + '  rank_meters = { X = { m = -1 } }\n'),
     "wager 'my-lucky-six': alternative 'r': rank_meters.X.m must be a whole number of wagers >= 0"),
    (('pays = { six = "15 to 1" }\n', 'pays = { six = "15 to 1" }\n' + ALT + '  rank_meters = { X = { m = 1.0 } }\n'),
     "wager 'my-lucky-six': alternative 'r': rank_meters.X.m must be a whole number of wagers >= 0"),
    (('pays = { six = "15 to 1" }\n', 'pays = { six = "15 to 1" }\n' + ALT + '  when = "tie"\n'),
     "wager 'my-lucky-six': alternative 'r': give 'when' (outcome id -> condition), 'pays', 'award_basis'"),
])
def test_the_schema_refuses_a_file_with_the_loaders_one_line(tmp_path: Path, change: tuple[str, str],
                                                             message: str) -> None:
    """What the shipped JSON Schema refuses is named as the loader names it: file, wager, outcome or
    paytable, key."""
    path = write(tmp_path, GOOD.replace(*change))
    with pytest.raises(ExactOddsError) as exc:
        load_file(path)
    assert str(exc.value).startswith(f"{path}: ") and message in str(exc.value), str(exc.value)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize(("text", "message"), [
    ('[[paytable]]\nid = "z"\npays = { tie = "7 to 1" }\n', "paytable #1: a [[paytable]] names the 'wager' it is for"),
    ('[[paytable]]\nid = "a:b"\nsection = "test"\npays = { tie = "2 to 1" }\n',            # the fuzzer's find
     "paytable #1: a [[paytable]] names the 'wager' it is for"),
    ('paytable = [5]\n', "paytable #1: a [[paytable]] names the 'wager' it is for"),
    ('[[paytable]]\nwager = "tie"\nid = "z"\npays = { tie = 7 }\n',
     "wager 'tie': paytable 'z': outcome 'tie': a pay must be text such as '30 to 1', got 7"),
    ('[[paytable]]\nwager = "tie"\nid = "z"\ncolour = 1\npays = { tie = "7 to 1" }\n',
     "wager 'tie': paytable 'z': unknown key 'colour'"),
    ('colour = 1\n[[paytable]]\nwager = "tie"\nid = "z"\npays = { tie = "7 to 1" }\n', "unknown top-level key 'colour'"),
    ('title = "only a title"\n', "no [[wager]] entries (or [[paytable]] entries for wagers of the catalogue)"),
])
def test_a_paytable_for_a_catalogue_wager_is_checked_by_the_schema_at_load(tmp_path: Path, text: str,
                                                                          message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ExactOddsError) as exc:
        load_file(path)
    assert str(exc.value) == f"{path}: {message}"


def test_the_first_problem_in_reading_order_is_named(tmp_path: Path) -> None:
    """Of several problems the first named is the first met reading the file: the first wager's, and
    in a table its id before its other keys."""
    second = GOOD.replace('id = "my-lucky-six"', 'id = "b:c"')
    path = write(tmp_path, GOOD.replace('"15 to 1"', '15') + second)
    with pytest.raises(ExactOddsError, match=r"wager 'my-lucky-six': paytable 'X': outcome 'six': a pay must be"):
        load_file(path)
    path = write(tmp_path, GOOD.replace('id = "my-lucky-six"', 'id = "a:b"\ncolour = 1'))
    with pytest.raises(ExactOddsError, match=r"wager #1: 'id' 'a:b' holds ':'"):
        load_file(path)


def test_numbers_where_ids_and_sections_of_paytables_are_text_are_read_as_text(tmp_path: Path) -> None:
    cat = load_file(write(tmp_path, GOOD.replace('id = "X"', 'id = 7\n  section = 5')))
    assert list(cat["my-lucky-six"].paytables) == ["7"] and cat["my-lucky-six"].paytables["7"].section == "5"


@pytest.mark.slow
def test_a_catalogue_read_back_from_the_disk_cache_does_not_load_jsonschema(tmp_path: Path) -> None:
    """jsonschema validates a data file when its TOML is parsed; a warm start reads the shipped
    catalogue parsed from the cache and never imports it (the cold start stays light)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    probe = ("import runpy, sys\nsys.argv = ['exactodds', 'analyze', '--decks', '8']\n"
             "try:\n    runpy.run_module('exactodds.cli', run_name='__main__')\nexcept SystemExit as exc:\n"
             "    assert not exc.code, exc.code\n"
             "print('jsonschema' in sys.modules, file=sys.stderr)\n")
    env = dict(os.environ, EXACTODDS_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(root))
    loaded = [subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=600)
              for _ in range(2)]
    assert [r.returncode for r in loaded] == [0, 0], loaded[0].stderr
    assert [r.stderr.strip().splitlines()[-1] for r in loaded] == ["True", "False"]     # parsed, then cached
