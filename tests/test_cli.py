"""The command line, through click's CliRunner."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from exactodds.cli import cli


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_analyze_text_default_is_the_main_game() -> None:
    code, out, err = run("analyze", "--decks", "8")
    assert code == 0 and err == ""
    assert "4,998,398,275,503,360" in out
    assert "House edge: 1.0579%" in out and "House edge: 1.2351%" in out and "House edge: 14.3596%" in out


def test_analyze_json_keeps_exact_values_exact() -> None:
    code, out, _ = run("analyze", "--decks", "8", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["shoe"]["sequences"] == 4_998_398_275_503_360
    banker = next(w for w in data["wagers"] if w["id"] == "banker")
    assert {"id", "name", "section", "paytable", "outcomes", "player_expected_return", "house_edge", "variance"} <= set(banker)
    wins = banker["outcomes"][0]
    assert wins["combinations"] == 2_292_252_566_437_888 and isinstance(wins["combinations"], int)
    assert Fraction(wins["probability"]) == Fraction(2_292_252_566_437_888, 4_998_398_275_503_360)
    assert sum(Fraction(o["probability"]) for o in banker["outcomes"]) == 1
    assert Fraction(banker["player_expected_return"]) == sum(Fraction(o["return"]) for o in banker["outcomes"])


def test_analyze_csv_and_markdown() -> None:
    code, out, _ = run("analyze", "--wager", "tie", "--paytable", "9-to-1", "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["outcome_id"] for r in rows] == ["tie", "lose"]              # tidy: outcomes only, no totals
    assert int(rows[0]["combinations"]) + int(rows[1]["combinations"]) == 4_998_398_275_503_360
    assert float(rows[0]["return"]) == pytest.approx(float(Fraction(rows[0]["return_exact"])))   # float, exact twin
    assert float(rows[0]["probability"]) == pytest.approx(float(Fraction(rows[0]["probability_exact"])))
    code, out, _ = run("analyze", "--wager", "tie:9-to-1", "--wager", "dragon-bonus-player:B", "--summary",
                       "--format", "csv")
    summary = list(csv.DictReader(io.StringIO(out)))
    assert [(r["wager"], r["paytable"]) for r in summary] == [("tie", "9-to-1"), ("dragon-bonus-player", "B")]
    code, out, _ = run("analyze", "--wager", "lucky-six", "--format", "markdown")
    assert code == 0 and "| Banker wins with 6, three cards | 20 to 1 |" in out


def test_analyze_remove_repeated_cards() -> None:
    code, out, _ = run("analyze", "--decks", "6", "--remove", "5S,5S,KH", "--format", "json", "--wager", "banker")
    assert code == 0
    shoe = json.loads(out)["shoe"]
    assert shoe["cards"] == 309 and shoe["card_counts"]["5♠"] == 4


def test_analyze_all_selects_every_wager_and_paytable() -> None:
    code, out, _ = run("analyze", "--all", "--format", "json")
    assert code == 0
    pairs = {(w["id"], w["paytable"]) for w in json.loads(out)["wagers"]}
    assert ("golden-talons-banker", "E") in pairs and ("dragon-bonus-player", "C") in pairs
    assert len(pairs) == len(json.loads(out)["wagers"])


def test_routes_agree() -> None:
    """Every point-total wager, priced by both exact routes, gives identical JSON."""
    from exactodds import load_catalogue

    point = [w.id for w in load_catalogue().values() if w.kind == "point"]
    args = ["analyze", "--decks", "2", "--remove", "9,9,Kh", "--format", "json"]
    for wid in point:
        args += ["--wager", wid]
    _, vec, _ = run(*args)
    _, wlk, _ = run(*args, "--route", "walk")
    a, b = json.loads(vec), json.loads(wlk)
    assert a.pop("route") == "vector" and b.pop("route") == "walk"
    assert a == b and len(a["wagers"]) > 50


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["analyze", "--decks", "0"], "--decks: number of decks must be a whole number from 1 to 10,000,000, got 0"),
        (["analyze", "--decks", "-3"], "--decks"),
        (["analyze", "--decks", "x"], "'x' is not a valid integer"),
        (["analyze", "--decks", "1", "--remove", "Ks,Ks"], "--remove: cannot remove K♠"),
        (["analyze", "--remove", "Zz"], "--remove: unknown card 'Zz'"),
        (["analyze", "--wager", "no-such"], "unknown wager 'no-such'"),
        (["analyze", "--wager", "banker", "--paytable", "Q"], "has no paytable 'Q'"),
        (["analyze", "--alternative", "blazing-7s"], "write WAGER=READING"),
        (["analyze", "--paytables", "/nonexistent.toml"], "/nonexistent.toml: cannot read"),
        (["analyze", "--format", "yaml"], "'yaml' is not one of"),
        (["frobnicate"], "No such command 'frobnicate'"),
    ],
)
def test_bad_input_is_one_line_exit_2(args: list[str], message: str) -> None:
    code, out, err = run(*args)
    assert code == 2 and out == ""
    assert err.startswith("exactodds: error: ") and err.count("\n") == 1
    assert message in err
    assert "Traceback" not in err


def test_shoe_of_fewer_than_six_cards() -> None:
    """Removing 47 cards from one deck leaves 5: too few for a round."""
    from exactodds import Card

    cards = ",".join(str(Card.from_index(i)) for i in range(47))
    code, out, err = run("analyze", "--decks", "1", "--remove", cards)
    assert code == 2 and out == ""
    assert err == "exactodds: error: --remove: the shoe holds 5 cards; a round may need 6\n"


def test_user_paytable_file(tmp_path: Path) -> None:
    p = tmp_path / "house.toml"
    p.write_text('''
[[wager]]
id = "house-tie"
name = "Tie, house paytable"
section = "627a.12(b) (house variation)"
  [[wager.outcome]]
  id = "tie"
  name = "Tie"
  when = "tie"
  [[wager.paytable]]
  id = "10"
  pays = { tie = "10 to 1" }
''', encoding="utf-8")
    code, out, _ = run("analyze", "--paytables", str(p), "--format", "json")
    assert code == 0
    (w,) = json.loads(out)["wagers"]
    assert w["id"] == "house-tie" and Fraction(w["house_edge"]) < 0    # 10 to 1 on a tie favours the player
    bad = tmp_path / "bad.toml"
    bad.write_text(p.read_text().replace('"10 to 1"', '"10 bananas"'), encoding="utf-8")
    code, _, err = run("analyze", "--paytables", str(bad))
    assert code == 2 and f"{bad}: wager 'house-tie': paytable '10': outcome 'tie': unknown pay form" in err


def test_list_text_and_json() -> None:
    code, out, _ = run("list")
    assert code == 0 and "golden-talons-player" in out and "§631b.9(e)-(g)" in out
    code, out, _ = run("list", "--format", "json")
    rows = json.loads(out)["wagers"]
    assert {r["id"] for r in rows} >= {"banker", "lucky-six", "cover-all"}
    assert next(r for r in rows if r["id"] == "dragon-bonus-player")["paytables"] == ["A", "B", "C"]


def test_set_royal_9_seat_and_combinations() -> None:
    base = ["analyze", "--wager", "royal-9-progressive", "--paytable", "$5", "--format", "json"]
    _, out1, _ = run(*base)
    code, out5, _ = run(*base, "--set", "royal-9-progressive:seat=5")
    assert code == 0
    code, out_one, _ = run(*base, "--set", "royal-9-progressive:combinations=Ks9s,Kh9h")
    assert code == 0
    envy = {o["id"]: o["combinations"] for o in json.loads(out_one)["wagers"][0]["outcomes"]}["mega_envy"]
    envy9 = {o["id"]: o["combinations"] for o in json.loads(out1)["wagers"][0]["outcomes"]}["mega_envy"]
    assert 0 < envy < envy9         # two printed combinations instead of nine: Mega Envy is rarer
    code, _, err = run(*base, "--set", "royal-9-progressive:chair=2")
    assert code == 2 and "has no parameter 'chair'" in err


def test_features_lists_the_whole_vocabulary() -> None:
    from exactodds.wagers.outcomes import KNOWN_FEATURES

    code, out, _err = run("features", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert {f["name"] for f in data["features"]} == KNOWN_FEATURES and data["version"]
    code, out, _err = run("features")
    assert code == 0 and "player_suit_3" in out and "banker_two_card_total" in out


def test_a_plain_analyze_imports_no_heavy_library() -> None:
    """Pricing needs NumPy only: sympy, scipy, pandas and matplotlib stay unloaded."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from exactodds.cli import cli\n"
            "try:\n    cli.main(['analyze', '--all', '--decks', '8'], standalone_mode=False)\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in ('sympy', 'scipy', 'pandas', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_a_new_users_first_hour() -> None:
    """WAGER:PAYTABLE, a near miss named, -h, html, DataFrames with floats beside exact values."""
    from exactodds import analyze

    code, out, err = run("analyze", "--wager", "banke")
    assert code == 2 and "did you mean 'banker'?" in err
    code, out, err = run("analyze", "--wager", "tie", "--paytable", "9-to-l")
    assert code == 2 and "did you mean '9-to-1'?" in err
    code, out, _ = run("-h")
    assert code == 0 and "Exact effect of removal of each card on a wager's return, and a count built from it." in out
    code, out, _ = run("analyze", "--paytable", "B", "--summary")
    assert code == 0 and "dragon-bonus-banker" in out
    code, out, _ = run("analyze", "--wager", "tie", "--format", "html")
    assert code == 0 and "<table>" in out
    code, out, _ = run("list", "--format", "html")
    assert code == 0 and "<table>" in out
    a = analyze(wagers=["tie:8-to-1", "royal-9-progressive:$5"])
    df = a.to_dataframe()
    assert df["probability"].dtype.kind == "f" and df["combinations"].dtype.kind == "i"
    assert set(a[0].to_dataframe().columns) == set(df.columns) and "shoe" in df.columns
    assert (df["probability_exact"].map(float) == df["probability"]).all()
    assert repr(a.shoe) == "<Shoe 8 decks (416 cards)>" and "house edge 14.3596%" in repr(a[0])


def test_i26_tables_decks_and_certificate_bet_name_their_option(tmp_path: Path) -> None:
    """`tables --decks 0` said "number of decks must be ..." (after creating nothing but without naming the
    option); `certificate --bet -5` said "bet: ..."; each now names its option, exit 2, nothing written."""
    code, out, err = run("tables", "--decks", "0", "--output-dir", str(tmp_path / "t"))
    assert code == 2 and out == "" and err.startswith("exactodds: error: --decks: number of decks must be")
    assert not (tmp_path / "t").exists()
    code, out, err = run("certificate", "--wager", "banker", "--bet", "-5", "--output", str(tmp_path / "c.md"))
    assert code == 2 and err.startswith("exactodds: error: --bet: a bet must be above $0")
    assert not (tmp_path / "c.md").exists()


def test_list_features_and_tables_render_one_report_in_every_format(tmp_path: Path) -> None:
    """Issue 27, one rendering path: `list`, `features` and `tables` print the same rows in every format,
    keeping the JSON keys and CSV columns of the release before."""
    _, out, _ = run("list", "--format", "json")
    wagers = json.loads(out)["wagers"]
    code, out, _ = run("list", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and list(rows[0]) == ["id", "name", "game", "section", "paytables", "alternatives", "source"]
    assert [(r["id"], r["section"], r["paytables"].split(), r["alternatives"].split()) for r in rows] == [
        (w["id"], w["section"], w["paytables"], w["alternatives"]) for w in wagers]
    for fmt in ("text", "markdown", "html"):
        code, shown, _ = run("list", "--format", fmt)
        assert code == 0 and all(w["id"] in shown and f"§{w['section']}" in shown for w in wagers)
        assert "A, B, C" in shown and "mixed-7s-as-3-card (implausible)" in shown

    _, out, _ = run("features", "--format", "json")
    data = json.loads(out)
    assert data["kind"] == "features" and data["version"] == data["exactodds"]
    code, out, _ = run("features", "--format", "csv")
    assert code == 0 and list(csv.DictReader(io.StringIO(out))) == data["features"]
    groups = list(dict.fromkeys(f["group"] for f in data["features"]))
    code, out, _ = run("features", "--format", "markdown")
    assert code == 0 and [ln for ln in out.splitlines() if ln.startswith("### ")] == [f"### {g} features" for g in groups]
    code, out, _ = run("features")
    assert code == 0 and all(f"{g} features" in out for g in groups)
    assert all(f["name"] in out and f["meaning"] in out for f in data["features"])

    written = [str(tmp_path / "8-decks.csv"), str(tmp_path / "8-decks.md")]
    code, out, _ = run("tables", "--wager", "tie:8-to-1", "--output-dir", str(tmp_path), "--format", "csv")
    assert code == 0 and out.splitlines() == ["file", *written]
    code, out, _ = run("tables", "--wager", "tie:8-to-1", "--output-dir", str(tmp_path))
    assert code == 0 and out.splitlines()[2:] == written
