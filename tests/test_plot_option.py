"""Issue 28, item 3: --plot FILE on eor, exposure and position (PNG or SVG, whole or not at all)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_cli import run

pytest.importorskip("matplotlib")


def test_eor_exposure_and_position_draw_to_a_file(tmp_path: Path) -> None:
    eor, exposure, position = tmp_path / "e.png", tmp_path / "x.svg", tmp_path / "p.png"
    code, out, err = run("eor", "--wager", "dragon-7-insurance", "--wager", "panda-8-insurance", "--plot", str(eor))
    assert code == 0 and "Verdict:" in out and f"wrote {eor}" in err
    assert eor.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = run("exposure", "--wager", "dragon-7-insurance", "--shoes", "10", "--seed", "1", "--workers", "1",
                       "--plot", str(exposure))
    assert code == 0 and b"<svg" in exposure.read_bytes()[:500] and "penetration" in err
    code, _, _ = run("position", "--wager", "banker=10", "--wager", "tie=5", "--plot", str(position))
    assert code == 0 and position.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(("args", "message"), [
    (["eor", "--wager", "tie", "--plot", "x.pdf"], "--plot x.pdf: a .png or .svg file"),
    (["eor", "--wager", "tie", "--second-order", "--plot", "x.png"], "--second-order has no plot"),
    (["eor", "--wager", "tie", "--plot", "/nonexistent/x.png"], "--plot /nonexistent/x.png"),
])
def test_a_bad_plot_file_is_one_line_and_nothing_is_computed(args: list[str], message: str) -> None:
    code, out, err = run(*args)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_analyze_draws_each_outcome_probability_to_a_file(tmp_path: Path) -> None:
    drawn = tmp_path / "a.svg"
    code, out, err = run("analyze", "--wager", "tie", "--wager", "banker", "--plot", str(drawn))
    assert code == 0 and out == run("analyze", "--wager", "tie", "--wager", "banker")[1]     # the same result printed
    assert err == f"wrote {drawn}: the outcome probabilities of 3 wager paytables\n"         # tie's two, banker's one
    svg = drawn.read_text()
    assert svg.count("paytable 8-to-1") == 1 and "paytable standard" in svg                 # a panel per paytable
    code, out, err = run("analyze", "--all", "--plot", str(tmp_path / "all.png"))
    assert code == 2 and out == "" and "at most 24;" in err and "are chosen" in err and not (tmp_path / "all.png").exists()
