"""A certificate as an Excel workbook (issue 41): read back with openpyxl it equals the JSON certificate cell by
cell, its totals are formulas a reviewer recomputes, and verify refuses a workbook whose cells were changed."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from exactodds.cli import cli
from exactodds.documents.certificate import build
from exactodds.documents.workbook import CERTIFICATE_SHEET, workbook_bytes

openpyxl = pytest.importorskip("openpyxl")
ROOT = Path(__file__).resolve().parent.parent
HOUSE = (ROOT / "examples" / "house-tie.toml").read_text(encoding="utf-8")


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def cert() -> dict:
    return build(shoes=[{"decks": 8, "remove": []}, {"decks": 6, "remove": []}],
                 selection=[("lucky-six", "standard"), ("tie", "7-to-1"), ("harmony-progressive", "D")],
                 issued="2026-11-27", files=[{"name": "house-tie.toml", "text": HOUSE}], second_route=False,
                 game="Lucky Baccarat", game_version="1.2", table_max="5000")


@pytest.fixture(scope="module")
def book(cert: dict) -> object:
    return openpyxl.load_workbook(io.BytesIO(workbook_bytes(cert)))


def near(got: object, exact: object) -> bool:
    """A cell's number against an exact value: openpyxl writes a double to 16 significant digits."""
    value = Fraction(str(exact))
    return isinstance(got, (int, float)) and math.isclose(got, float(value), rel_tol=1e-15, abs_tol=1e-300)


def _rows(ws: object) -> list[tuple]:
    return list(ws.iter_rows(values_only=True))          # type: ignore[attr-defined]


def _sum(ws: object, formula: str) -> object:
    """A =SUM(X12:X14) evaluated over the sheet's cells."""
    column, first, last = formula[5], int(formula[6:].split(":")[0]), int(formula.split(":")[1][1:-1])
    return sum(ws[f"{column}{r}"].value for r in range(first, last + 1))      # type: ignore[index]


def test_the_summary_lists_every_table_and_names_its_sheet(cert: dict, book: object) -> None:
    rows = _rows(book["Summary"])                                          # type: ignore[index]
    header = rows.index(next(r for r in rows if r and r[0] == "Shoe"))
    table = [r for r in rows[header + 1:] if r and r[0]]
    blocks = [(res, b) for res in cert["results"] for b in res["wagers"]]
    assert len(table) == len(blocks) == 6
    for row, (res, b) in zip(table, blocks):
        assert row[:5] == (res["shoe"]["description"], b["name"], b["wager"], b["section"], b["paytable"])
        assert row[5] in book.sheetnames                                   # type: ignore[attr-defined]
        s = b["summary"]
        if "rtp" in s:
            assert near(row[6], s["rtp"]) and row[7] == s["rtp"] and row[9] == s["house_edge"]
            assert all(near(row[12 + k], s["volatility_index"][lv]) for k, lv in enumerate(("90%", "95%", "99%")))
            assert row[16] == int(Fraction(b["payout"]["liability"]["per_round"]))
        else:
            assert row[6] == "by meter"
    head = {r[0]: r[1] for r in rows[:header]}
    assert head["Table limit ($)"] == 5000 and head["Game"] == "Lucky Baccarat"


def test_each_table_sheet_equals_the_json_cell_by_cell(cert: dict, book: object) -> None:
    summary = _rows(book["Summary"])                                       # type: ignore[index]
    names = [r[5] for r in summary if r and r[0] in ("8 decks (416 cards)", "6 decks (312 cards)")]
    blocks = [b for res in cert["results"] for b in res["wagers"]]
    for name, b in zip(names, blocks):
        ws = book[name]                                                    # type: ignore[index]
        rows = _rows(ws)
        assert rows[2][1] == int(b["game_cycle"]) and rows[6][1:3] == (b["paytable_file"]["name"],
                                                                       b["paytable_file"]["sha256"])
        first = 12
        for k, o in enumerate(b["outcomes"]):
            got = rows[first - 1 + k]
            assert got[0] == o["outcome"] and got[1] == o["condition"] and got[2] == o["pays"]
            assert got[5] == int(o["combinations"]) and got[7] == o["probability"] and got[10] == o["return"]
            assert near(got[6], o["probability"]) and near(got[8], o["one_in"])
            if "progressive" not in b or o["id"] != "six_of_a_kind":
                assert near(got[3], o["net"]) and near(got[9], o["return"])
        total = rows[first - 1 + len(b["outcomes"])]
        assert total[0] == "Total" and _sum(ws, total[5]) == int(b["totals"]["combinations"])
        assert abs(_sum(ws, total[6]) - 1) < 1e-12 and total[7] == b["totals"]["probability"] == "1"
        facts = {r[0]: r for r in rows if r and isinstance(r[0], str)}
        if "progressive" in b:
            assert "Return to player" not in facts and facts["Maximum payout"][1] == b["payout"]["note"]
            continue
        assert abs(_sum(ws, total[9]) - float(Fraction(b["summary"]["expected_return"]))) < 1e-12
        for label, key in (("House edge", "house_edge"), ("Variance", "variance"), ("Skewness", "skewness"),
                           ("Hit frequency", "hit_frequency")):
            assert near(facts[label][1], b["summary"][key]) and facts[label][2] == b["summary"][key]
        for level, value in b["summary"]["volatility_index"].items():
            assert near(facts[f"Volatility index {level} (z × SD)"][1], value)
            assert facts[f"Volatility index {level} (z × SD)"][2] == value
        assert facts["Liability per round ($) at a wager of"][1:4] == (
            int(Fraction(b["payout"]["liability"]["per_round"])), b["payout"]["liability"]["per_round"], 5000)
        bands = rows[rows.index(next(r for r in rows if r and r[0] == "Rounds")) + 1:][:4]
        for got, band in zip(bands, b["bands"]["ranges"]):
            assert got[0] == band["rounds"] and all(
                near(g, Fraction(x) / 100) for g, x in zip(got[1:3], band["rtp_percent"]["90%"]))


def test_the_certificate_rides_in_a_hidden_sheet(cert: dict, book: object) -> None:
    ws = book[CERTIFICATE_SHEET]                                           # type: ignore[index]
    assert ws.sheet_state == "hidden"
    assert json.loads("".join(r[0] for r in _rows(ws)[1:])) == cert


def _tampered(source: Path, target: Path, change) -> Path:
    wb = openpyxl.load_workbook(source)
    change(wb)
    wb.save(target)
    return target


def test_verify_a_workbook_and_refuse_a_tampered_cell(tmp_path: Path) -> None:
    out = tmp_path / "c.xlsx"
    code, _, err = run("certificate", "--wager", "tie:8-to-1", "--wager", "lucky-six", "--one-route", "--format",
                       "xlsx", "--output", str(out), "--table-max", "5000")
    assert code == 0 and out.read_bytes()[:4] == b"PK\x03\x04", err
    code, stdout, err = run("verify", str(out))
    assert code == 0 and "verified EO-" in stdout, err
    for change, words in (
            (lambda wb: wb["1 tie 8-to-1"].__setitem__("G12", 0.1), "cell G12"),
            (lambda wb: setattr(wb["1 tie 8-to-1"]["J15"], "value", "=SUM(J12:J12)"), "cell J15"),
            (lambda wb: setattr(wb["Summary"]["G14"], "number_format", "0%"), "number format"),
            (lambda wb: wb.create_sheet("extra"), "sheets"),
            (lambda wb: setattr(wb["1 tie 8-to-1"].row_dimensions[13], "hidden", True), "hides row")):
        bad = _tampered(out, tmp_path / "bad.xlsx", change)
        code, stdout, err = run("verify", str(bad))
        assert code == 1 and stdout == "" and words in err and err.count("\n") == 1, (words, err)
    code, _, err = run("certificate", "--wager", "tie", "--format", "xlsx")
    assert code == 2 and "--format xlsx needs --output FILE" in err


def test_a_missing_openpyxl_is_one_line_naming_the_extra(tmp_path: Path) -> None:
    code = ("import sys\nsys.modules['openpyxl'] = None\n"
            f"sys.argv = ['exactodds', 'certificate', '--wager', 'tie:8-to-1', '--one-route', '--format', 'xlsx', "
            f"'--output', {str(tmp_path / 'c.xlsx')!r}]\nfrom exactodds.cli import main\nmain()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == "" and not (tmp_path / "c.xlsx").exists()
    assert done.stderr == "exactodds: error: this needs openpyxl: pip install 'exactodds[xlsx]'\n"


def test_the_simulation_check_is_in_the_table_sheet() -> None:
    cert = build(shoes=[{"decks": 8, "remove": []}], selection=[("tie", "8-to-1")], issued="2026-11-27",
                 second_route=False, simulation={"rounds": 10_000, "seed": 3})
    rows = _rows(openpyxl.load_workbook(io.BytesIO(workbook_bytes(cert)))["1 tie 8-to-1"])
    facts = {r[0]: r for r in rows if r and isinstance(r[0], str)}
    sim = cert["results"][0]["wagers"][0]["simulation"]
    assert facts["Simulated rounds (seed)"][1:3] == (10_000, "3")
    got = facts["Observed RTP, its 95% interval, z"]
    assert near(got[1], sim["observed_rtp"]) and got[2] == sim["observed_rtp"] and near(got[5], sim["z"])
    assert all(near(g, Fraction(x) / 100) for g, x in zip(got[3:5], sim["interval_95_percent"]))
    assert facts["Simulation verdict"][1] == sim["verdict"]


def test_the_exposure_section_is_in_the_table_sheet() -> None:
    cert = build(shoes=[{"decks": 8, "remove": []}], selection=[("lucky-six", "standard")], issued="2026-11-27",
                 second_route=False, exposures={"shoes": 10, "seed": 3})
    rows = _rows(openpyxl.load_workbook(io.BytesIO(workbook_bytes(cert)))["1 lucky-six standard"])
    x = cert["results"][0]["wagers"][0]["exposure"]
    start = rows.index(next(r for r in rows if r and r[0] == "Removed"))
    for got, e in zip(rows[start + 1:], x["effects"]):
        assert got[0] == e["removed"] and near(got[1], e["effect"]) and got[2] == e["effect"]
        assert got[3] == e["in_shoe"] and got[4] == x["count"]["tags"][e["removed"]]
    facts = {r[0]: r for r in rows if r and isinstance(r[0], str)}
    assert facts["Exposure to counting"][1] == x["verdict"]
    assert facts["Perfect play: units won a shoe"][2] == x["measured"]["perfect_per_shoe"]
    assert near(facts["Perfect play: units won a shoe"][1], x["measured"]["perfect_per_shoe"])
