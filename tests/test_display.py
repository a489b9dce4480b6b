"""Result objects show themselves: text, HTML with the exact numbers, DataFrames; notebooks stay clean."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from exactodds import Shoe, analyze
from exactodds.analyses.progressive import load_meters, progressive_analysis
from exactodds.simulation.checksim import Records, check
from exactodds.simulation.simulate import simulate

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


@pytest.mark.slow
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


def test_removal_effect_and_effects_bars_draw_the_same_bars() -> None:
    """One sign and one unit for a player's view: both plots draw the change in the player's expected
    return x100,000, which eor prints, and removal_effect returns eor's exact effects."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from exactodds.analyses.eor import PER, effects_of_removal
    from exactodds.documents.plots import effects_bars, removal_effect

    r = effects_of_removal(Shoe.decks(8), [("dragon-7-insurance", "standard")])[0]
    _, (left, right) = plt.subplots(1, 2)
    effect = removal_effect("dragon-7-insurance", "standard", decks=8, ax=left)
    effects_bars(r, ax=right)
    drawn = [[bar.get_height() for bar in ax.patches] for ax in (left, right)]
    plt.close("all")
    assert drawn[0] == drawn[1]
    assert drawn[0] == pytest.approx([float(e * PER) for e in r.effects], rel=1e-12)     # floats for drawing only
    assert effect == dict(zip(r.items, r.effects))
    assert effect["8"] > 0 > effect["7"]                # an 8 removed helps the Dragon 7 player (eor's table)
    assert left.get_ylabel() == right.get_ylabel()


def test_every_result_renders_through_one_report(tmp_path: Path) -> None:
    """Every format of a result is its one Report rendered: the CSV's exact columns match the JSON."""
    import csv
    import io

    from exactodds.analyses.vigorish import vigorish_table
    from exactodds.render.tables import FORMATS, Report

    t = vigorish_table(Shoe.decks(8), [1, 7])
    assert isinstance(t.report(), Report)
    out = {fmt: t.render(fmt) for fmt in FORMATS}
    rows = list(csv.DictReader(io.StringIO(out["csv"])))
    data = json.loads(out["json"])
    assert [Fraction(r["house_edge_exact"]) for r in rows] == [Fraction(r["house_edge"]) for r in data["rows"]] \
        == [r.house_edge for r in t]
    assert "<table>" in out["html"] and "10.2299%" in out["text"] and "| $7.00 " in out["markdown"]
    assert data["kind"] == "vigorish" and str(t) == out["text"] and t._repr_html_() == out["html"]


def test_html_escapes_every_cell_and_title() -> None:
    from exactodds.render.tables import Column, Report, Table, render_report

    page = render_report(Report("x", title="<b>t</b>", tables=(Table((Column("a", "<i>"),), (("<script>",),)),)),
                         "html")
    assert "<script>" not in page and "&lt;script&gt;" in page and "<b>t</b>" not in page


def test_a_decimal_column_keeps_the_exact_value_beside_it() -> None:
    from exactodds.render.tables import Column, Report, Table, render_report

    third = Fraction(1, 3)
    report = Report("x", tables=(Table((Column("p", "P", "percent", 2, csv_places=6, twin=True),), ((third,),)),))
    assert render_report(report, "csv") == "p,p_exact\n0.333333,1/3\n"
    assert "33.33%" in render_report(report, "text") and 'title="1/3"' in render_report(report, "html")
    assert json.loads(render_report(report, "json"))["tables"][0]["rows"] == [{"p": "1/3"}]


def test_i42_a_result_counts_its_tables_in_words() -> None:
    """Issue 42: '1 wager table(s)' is said as English says it."""
    assert "<Analysis of 1 wager table on 8 decks" in repr(analyze(Shoe.decks(8), wagers=["tie:8-to-1"]))
    assert "<Analysis of 2 wager tables on 6 decks" in repr(analyze(Shoe.decks(6), wagers=["tie:8-to-1", "banker"]))


def test_i42_exposure_panels_side_by_side_keep_their_titles_apart_and_the_legend_off_the_bars() -> None:
    """Issue 42: notebook 06's three exposure panels, as it draws them: the titles overlapped each other and
    the legend sat over the bars. Now each title wraps within its panel and the legend is under the axes."""
    pytest.importorskip("matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from exactodds.documents.plots import edge_by_penetration
    from exactodds.simulation.exposure import exposure

    x = exposure([("dragon-7-insurance", "standard"), ("panda-8-insurance", "standard"), ("tie", "8-to-1")],
                 shoes=6, seed=2026, workers=1)
    figure = Figure(figsize=(16, 4))
    canvas = FigureCanvasAgg(figure)
    axes = figure.subplots(1, 3)
    for r, ax in zip(x, axes):
        edge_by_penetration(r, ax=ax)
    figure.tight_layout()
    canvas.draw()
    renderer = canvas.get_renderer()
    titles = [ax.title.get_window_extent(renderer) for ax in axes]
    assert all(a.x1 < b.x0 for a, b in zip(titles, titles[1:]))                  # apart, left to right
    for ax, title in zip(axes, titles):
        legend = ax.get_legend()
        assert "rounds with a player advantage, %" in [t.get_text() for t in legend.get_texts()]
        assert legend.get_window_extent(renderer).y1 <= ax.get_window_extent(renderer).y0    # under the axes
        assert ax.get_window_extent(renderer).x0 <= title.x0 and title.x1 <= ax.get_window_extent(renderer).x1



def test_a_section_in_free_text_is_printed_without_the_section_sign(tmp_path: Path) -> None:
    """Issue 41: '§' before a citation of the regulations only, never before a user's free text."""
    from exactodds.render.tables import cited

    from .test_cli import run
    path = tmp_path / "mine.toml"
    path.write_text('[[wager]]\nid = "mine"\nname = "My bet"\nsection = "inventor\'s proposal"\n'
                    '  [[wager.outcome]]\n  id = "tie"\n  name = "a tie"\n  when = "player == banker"\n'
                    '  [[wager.paytable]]\n  id = "A"\n  section = "house draft"\n  pays = { tie = "8 to 1" }\n')
    for fmt in ("text", "markdown", "csv"):
        code, out, err = run("analyze", "--paytables", str(path), "--wager", "mine", "--format", fmt)
        assert code == 0, err
        assert "§inventor" not in out and "§house" not in out and "inventor's proposal" in out, fmt
    assert "My bet — inventor's proposal — paytable A (house draft)" in run("analyze", "--paytables", str(path),
                                                                           "--wager", "mine")[1]
    assert "— §627a.7(a)(3), 627a.12(b) —" in run("analyze", "--wager", "tie")[1] and cited("627a.7") == "§627a.7"
