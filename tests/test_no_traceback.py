"""Every input a stress test found ending in a traceback or a wrong result: now one line, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from exactodds.cli import cli

HEADER = "player1,player2,player3,banker1,banker2,banker3\n"


def _toml(when: str, *, outcome: str = "win", pays: str = '"2 to 1"', denomination: str = "") -> str:
    return ("[[wager]]\nid = \"mine\"\nname = \"Mine\"\nsection = \"test\"\n  [[wager.outcome]]\n"
            f"  id = \"{outcome}\"\n  name = \"Win\"\n  when = {json.dumps(when)}\n  [[wager.paytable]]\n"
            f"  id = \"A\"\n  section = \"test\"\n{denomination}  pays = {{ {outcome} = {pays} }}\n")


def _files(tmp: Path) -> dict[str, Path]:
    files = {
        "counts-zero": {"wagers": {"banker:standard": {"banker_wins": 0, "tie": 0, "lose": 0}}},
        "counts-decks-abc": {"decks": "abc", "wagers": {"tie:8-to-1": {"tie": 1, "lose": 9}}},
        "counts-decks-null": {"decks": None, "wagers": {"tie:8-to-1": {"tie": 1, "lose": 9}}},
        "counts-decks-list": {"decks": [8], "wagers": {"tie:8-to-1": {"tie": 1, "lose": 9}}},
        "counts-decks-float": {"decks": 1.5, "wagers": {"tie:8-to-1": {"tie": 1, "lose": 9}}},
        "counts-true": {"wagers": {"tie:8-to-1": {"tie": True, "lose": 9}}},
        "counts-huge": {"wagers": {"tie:8-to-1": {"tie": 10**30, "lose": 9}}},
        "counts-6-decks": {"decks": 6, "wagers": {"tie:8-to-1": {"tie": 1, "lose": 9}}},
        "counts-wrong-total": {"rounds": 11, "wagers": {"tie:8-to-1": {"tie": 1, "lose": 9}}},
    }
    out = {}
    for name, data in files.items():
        out[name] = tmp / f"{name}.json"
        out[name].write_text(json.dumps(data))
    out["nested-json"] = tmp / "nested.json"
    out["nested-json"].write_text("[" * 100_000 + "]" * 100_000)
    wagers = {
        "terms": _toml(" or ".join(f"player == {i % 10}" for i in range(3500))),
        "deep": _toml("(" * 400 + "player == 1" + ")" * 400),
        "abs-value": _toml("abs == 1"),
        "max-value": _toml("player == max"),
        "subscript": _toml("player[0] == 1"),
        "lose-id": _toml("player == 9", outcome="lose"),
        "total-id": _toml("player == 9", outcome="total"),
        "huge-pay": _toml("player == 9", pays='"1' + "0" * 400 + ' to 1"'),
        "tiny-pay": _toml("player == 9", pays='"1 to 1' + "0" * 400 + '"'),
        "huge-denomination": _toml("player == 9", pays='"$5"', denomination="  denomination = 1e-300\n"),
    }
    for name, text in wagers.items():
        out[name] = tmp / f"{name}.toml"
        out[name].write_text(text)
    out["nested-toml"] = tmp / "nested.toml"
    out["nested-toml"].write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    out["two-aces"] = tmp / "aces.csv"
    out["two-aces"].write_text(HEADER + "As,As,,Kd,Qd,\n")
    out["quoted"] = tmp / "quoted.csv"
    out["quoted"].write_bytes(("\ufeff" + HEADER).encode() + b'"Ks","9h","","Qd","Qs",""\r\n')
    return out


CASES = [
    ("seat of 5000 digits", ["analyze", "--wager", "royal-9-progressive", "--set", "royal-9-progressive:seat=" + "9" * 5000],
     "seat"),
    ("combinations not cards", ["analyze", "--wager", "royal-9-progressive", "--set",
                                "royal-9-progressive:combinations=Zz,Yy"], "combinations"),
    ("empty --paytables", ["analyze", "--paytables", ""], "--paytables"),
    ("meter 1e999", ["progressive", "--wager", "royal-9-progressive", "--meter", "mega=1e999", "--bet", "5"], "--meter"),
    ("bad reseed named", ["progressive", "--wager", "heavenly-9-progressive", "--reseed", "abc"], "--reseed"),
    ("mystery maximum 1e30", ["mystery", "--whole-cents", "--minimum", "100", "--maximum", "1e30", "--rate", "2%",
                              "--bet", "5"], "--maximum"),
    ("mystery rate overflow", ["mystery", "--whole-cents", "--minimum", "100", "--maximum", "1000",
                               "--rate", "1/999999999999937", "--bet", "5"], "--rate"),
    ("simulate 10**12 rounds", ["simulate", "--rounds", str(10**12), "--seed", "1", "--output", "{tmp}/x.csv"], "--rounds"),
    ("simulate a million decks", ["simulate", "--decks", "1000000", "--seed", "1", "--output", "{tmp}/x.csv"], "--decks"),
    ("simulate seed -1", ["simulate", "--seed", "-1", "--output", "{tmp}/x.csv"], "--seed"),
    ("counts all zero", ["check-sim", "--counts", "{counts-zero}"], "every count is 0"),
    ("counts decks abc", ["check-sim", "--counts", "{counts-decks-abc}"], "'decks'"),
    ("counts decks null", ["check-sim", "--counts", "{counts-decks-null}"], "'decks'"),
    ("counts decks [8]", ["check-sim", "--counts", "{counts-decks-list}"], "'decks'"),
    ("counts decks 1.5", ["check-sim", "--counts", "{counts-decks-float}"], "'decks'"),
    ("counts true", ["check-sim", "--counts", "{counts-true}"], "whole number"),
    ("counts 10**30", ["check-sim", "--counts", "{counts-huge}"], "whole number"),
    ("counts decks contradict", ["check-sim", "--counts", "{counts-6-decks}", "--decks", "8"], "--decks"),
    ("counts do not add up", ["check-sim", "--counts", "{counts-wrong-total}"], "not the stated"),
    ("nested JSON counts", ["check-sim", "--counts", "{nested-json}"], "nested too deeply"),
    ("nested JSON certificate", ["verify", "{nested-json}"], "nested"),
    ("tables unwritable", ["tables", "--output-dir", "/proc/exactodds-tables"], "--output-dir"),
    ("3500 terms", ["analyze", "--paytables", "{terms}"], "mine"),
    ("deep nesting", ["analyze", "--paytables", "{deep}"], "mine"),
    ("abs as a value", ["analyze", "--paytables", "{abs-value}"], "abs"),
    ("max as a value", ["analyze", "--paytables", "{max-value}"], "max"),
    ("subscript", ["analyze", "--paytables", "{subscript}"], "mine"),
    ("outcome id lose", ["analyze", "--paytables", "{lose-id}"], "'lose'"),
    ("outcome id total", ["analyze", "--paytables", "{total-id}"], "'total'"),
    ("pay too large", ["analyze", "--paytables", "{huge-pay}"], "mine"),
    ("pay too small", ["analyze", "--paytables", "{tiny-pay}"], "mine"),
    ("denomination too small", ["analyze", "--paytables", "{huge-denomination}"], "mine"),
    ("nested TOML", ["analyze", "--paytables", "{nested-toml}"], "nested"),
    ("two aces of spades from one deck", ["check-sim", "{two-aces}", "--decks", "1"], "copies of one card"),
    ("output a device", ["certificate", "--wager", "tie", "--output", "/dev/null"], "not a regular file"),
    ("output a directory", ["simulate", "--seed", "1", "--rounds", "10", "--output", "{tmp}"], "directory"),
]


@pytest.mark.parametrize("name, args, words", CASES, ids=[c[0] for c in CASES])
def test_one_line_exit_2_no_traceback(tmp_path: Path, name: str, args: list[str], words: str) -> None:
    files = _files(tmp_path)
    argv = [a.format(tmp=tmp_path, **{k: str(v) for k, v in files.items()}) for a in args]
    r = CliRunner().invoke(cli, argv)
    assert r.exit_code == 2, (name, r.output, r.exception)
    assert "Traceback" not in r.output and r.stderr.count("\n") == 1, (name, r.stderr)
    assert words in r.stderr, (name, r.stderr)
    assert r.stdout == ""


def test_a_quoted_crlf_csv_with_a_byte_order_mark_reads(tmp_path: Path) -> None:
    files = _files(tmp_path)
    r = CliRunner().invoke(cli, ["check-sim", str(files["quoted"]), "--wager", "tie"])
    assert r.exit_code == 0, r.output
    assert "1 rounds" in r.output


def test_a_full_disk_and_a_non_utf8_terminal() -> None:
    exe = [sys.executable, "-m", "exactodds.cli"]
    if Path("/dev/full").exists():
        with open("/dev/full", "w") as full:
            r = subprocess.run([*exe, "analyze", "--wager", "tie"], stdout=full, stderr=subprocess.PIPE, text=True,
                               timeout=120)
        assert r.returncode == 2 and "Traceback" not in r.stderr and r.stderr.count("\n") == 1
        assert "standard output" in r.stderr
    env = dict(os.environ, PYTHONIOENCODING="cp1252")
    r = subprocess.run([*exe, "analyze", "--remove", "5S"], capture_output=True, env=env, timeout=120)
    assert r.returncode == 0 and b"Traceback" not in r.stderr
    assert b"5?" in r.stdout or b"5\\u2660" in r.stdout or b"5s" in r.stdout


@pytest.mark.skipif(not Path(sys.executable).with_name("exactodds").exists(), reason="no exactodds console script")
@pytest.mark.parametrize("delay", [0.0, 0.02, 0.05, 0.1, 0.2])
def test_i26_ctrl_c_while_the_command_starts_is_one_line_exit_130(delay: float, tmp_path: Path) -> None:
    """Ctrl-C in the first few hundred milliseconds (while exactodds imports what it needs) printed a
    KeyboardInterrupt traceback; it now ends the run as later interrupts do. (Before Python itself has
    started exactodds, about the first 40 ms on an idle machine, Python's own handler still answers:
    the signal is sent ``delay`` after exactodds has caught SIGTERM, i.e. installed its handlers, so
    that a loaded machine's slower start-up does not decide the test.)"""
    import signal
    import time

    env = dict(os.environ, EXACTODDS_CACHE_DIR=str(tmp_path))
    p = subprocess.Popen([str(Path(sys.executable).with_name("exactodds")), "analyze", "--all"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    status = Path(f"/proc/{p.pid}/status")
    deadline = time.monotonic() + 60
    while status.exists() and time.monotonic() < deadline:       # SigCgt: the signals it catches (hex mask)
        caught = next((ln for ln in status.read_text().splitlines() if ln.startswith("SigCgt:")), "SigCgt: 0")
        if int(caught.split()[1], 16) >> (signal.SIGTERM - 1) & 1:
            break
        time.sleep(0.002)
    time.sleep(delay)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert (p.returncode, err) in ((130, "exactodds: interrupted\n"), (0, "")), (p.returncode, err)


@pytest.mark.parametrize("args", [["--bogus"], ["extra"]])
def test_the_benchmark_takes_no_argument_but_help(args: list[str]) -> None:
    """It ran the whole benchmark (minutes) whatever it was given, --help too."""
    r = subprocess.run([sys.executable, "-m", "exactodds.benchmark", *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith("python -m exactodds.benchmark: unrecognized arguments: ")
    shown = subprocess.run([sys.executable, "-m", "exactodds.benchmark", "--help"], capture_output=True, text=True,
                           timeout=60)
    assert shown.returncode == 0 and shown.stdout.startswith("usage: python -m exactodds.benchmark")
    assert "Speed and memory, measured and printed beside their targets" in shown.stdout
