"""Result objects show themselves: text, HTML with the exact numbers, DataFrames; notebooks stay clean."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from exactodds import Shoe, analyze
from exactodds.checksim import check
from exactodds.progressive import load_meters, progressive_analysis
from exactodds.simulate import simulate
from exactodds.checksim import Records

ROOT = Path(__file__).resolve().parent.parent


def test_wager_result_html_carries_exact_numbers() -> None:
    (r,) = analyze(Shoe.decks(8), wagers=["banker"])
    page = r._repr_html_()
    assert "2,292,252,566,437,888" in page                      # exact combinations
    assert str(r.lines[0].probability) in page                   # exact probability (tooltip)
    assert str(r.expected_return) in page and str(r.house_edge) in page
    assert "Banker wins" in str(r)


def test_analysis_html_and_dataframes() -> None:
    pytest.importorskip("pandas")
    a = analyze(Shoe.decks(6), wagers=["tie", "lucky-six"])
    page = a._repr_html_()
    for r in a:
        assert str(r.expected_return) in page
    df = a.to_dataframe()
    assert df["probability_exact"].map(type).eq(Fraction).all() and df["probability"].dtype.kind == "f"
    assert sum(df[df["wager"] == "tie"]["probability_exact"]) == 2      # two paytables, each adds up to 1
    summary = a.summary()
    assert list(summary["house_edge_exact"]) == [r.house_edge for r in a]
    one = a[0].to_dataframe()
    assert list(one["combinations"]) == [ln.combinations for ln in a[0].lines]


def test_progressive_and_check_results_render() -> None:
    (r,) = analyze(Shoe.decks(8), wagers=["heavenly-9-progressive"])
    a = progressive_analysis(r, load_meters()[0][("heavenly-9-progressive", "standard")])
    assert str(a.fixed_return) in a._repr_html_() and "break-even" in a._repr_html_()
    rounds = simulate(decks=8, rounds=5000, seed=1, mode="fresh")
    c = check(Records(rounds.player, rounds.banker, rounds.shoe_number), wagers=["banker"])
    assert "5,000 rounds" in c._repr_html_() and "chi-square" in str(c)


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_notebooks_are_committed_without_outputs(path: Path) -> None:
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, path.name
