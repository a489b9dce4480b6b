"""One option vocabulary (issue 27): every command, taken from the click group itself, says a shared
option the same way, and each spelling of a release ago still works with one deprecation line."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any

import click
import pytest
from click.testing import CliRunner

from exactodds.cli import cli
from exactodds.cli.options import FORMATS

#: The shared vocabulary: an option of one of these names means the same thing in every command.
SHARED = ("--wager", "--paytables", "--decks", "--remove", "--bet", "--seed", "--format")

#: Commands whose standard output is not a result to format, and why.
NO_RESULT = {
    "serve": "runs a web server",
    "keygen": "writes a key pair and says so",
    "verify": "prints one verdict line",
    "check": "prints one verdict line per file",
    "simulate": "writes records (their format is --record-format)",
}

#: Commands that name wagers under another option, and why.
OTHER_WAGER_OPTION = {"simulate": "--settle names the settlement columns written ('all': every one)"}

DEPRECATION = re.compile(r"^exactodds: warning: (.+) is deprecated; use (\S+)(?: \S+)? \(the old spelling goes in the "
                         r"next release\)$")


def _commands() -> dict[str, click.Command]:
    ctx = click.Context(cli)
    found = {name: cli.get_command(ctx, name) for name in cli.list_commands(ctx)}
    assert all(found.values())
    return {name: command for name, command in found.items() if command is not None}


COMMANDS = _commands()


def _visible(command: click.Command) -> list[click.Parameter]:
    return [p for p in command.params
            if not getattr(p, "hidden", False) and (not isinstance(p, click.Argument) or p.get_usage_pieces(
                click.Context(command)))]


def _option(command: click.Command, name: str) -> click.Option | None:
    found = [p for p in _visible(command) if isinstance(p, click.Option) and name in p.opts]
    assert len(found) <= 1
    return found[0] if found else None


def _signature(option: click.Option) -> dict[str, Any]:
    return {"opts": option.opts, "metavar": option.metavar, "default": option.default, "multiple": option.multiple,
            "type": option.type.to_info_dict(), "help": option.help, "show_default": option.show_default}


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_the_group_lists_every_command_and_each_shows_its_help() -> None:
    assert len(COMMANDS) >= 18 and {"analyze", "certificate", "check-sim", "house-money"} <= set(COMMANDS)
    for name, command in COMMANDS.items():
        code, out, err = run(name, "--help")
        assert code == 0 and err == "", name
        for param in _visible(command):
            if isinstance(param, click.Option):
                assert max(param.opts, key=len) in out, (name, param.opts)
        assert "is deprecated" not in out


@pytest.mark.parametrize("name", SHARED)
def test_a_shared_option_is_the_same_in_every_command(name: str) -> None:
    """Same name, metavar, default, type and help wherever it is taken; the only variants are the
    ones the vocabulary declares: several shoes (--decks, repeatable), a position's stakes (--wager
    ...=STAKE), and a format a single command adds (certificate's pdf)."""
    seen: dict[str, dict[str, Any]] = {}
    for cname, command in COMMANDS.items():
        option = _option(command, name)
        if option is not None:
            seen[cname] = _signature(option)
    assert len(seen) >= 2, name
    kinds: dict[str, list[str]] = defaultdict(list)
    for cname, sig in seen.items():
        if name == "--format":
            assert set(FORMATS) <= set(sig["type"]["choices"]), cname
            assert sig["default"] == "text", cname
            sig = {**sig, "type": None}
        kinds[json.dumps(sig, sort_keys=True, default=str)].append(cname)
    variants = {"--decks": 2, "--wager": 2}.get(name, 1)
    assert len(kinds) <= variants, {k: v for k, v in kinds.items()}
    if name == "--decks":
        for cname, sig in seen.items():
            assert sig["default"] in (8, (8,)) and sig["type"]["param_type"] == "Int", cname
            if sig["multiple"]:
                assert "--decks 6 --decks 8" in sig["help"], cname
    if name == "--wager":
        assert {sig["metavar"] for sig in seen.values()} <= {"WAGER[:PAYTABLE]", "WAGER[:PAYTABLE][=STAKE]"}
        assert all(sig["multiple"] for sig in seen.values())
        assert [c for c, sig in seen.items() if sig["metavar"].endswith("=STAKE]")] == ["position"]


def test_commands_choosing_wagers_take_wager() -> None:
    for cname, command in COMMANDS.items():
        named = [p for p in _visible(command) if (p.metavar or "").startswith("WAGER[:PAYTABLE]")]
        if named and cname not in OTHER_WAGER_OPTION:
            assert _option(command, "--wager") is not None, cname
            assert all(isinstance(p, click.Option) and "--wager" in p.opts for p in named), cname
    for cname in ("progressive", "eor", "exposure", "position", "analyze", "vigorish", "certificate", "tables"):
        assert _option(COMMANDS[cname], "--wager") is not None, cname


def test_commands_printing_results_take_the_shared_format() -> None:
    without = {cname for cname, command in COMMANDS.items() if _option(command, "--format") is None}
    assert without == set(NO_RESULT)
    for cname in set(COMMANDS) - without:
        option = _option(COMMANDS[cname], "--format")
        assert option is not None and option.default == "text"
        assert isinstance(option.type, click.Choice) and list(option.type.choices)[:len(FORMATS)] == list(FORMATS)


def _deprecations(err: str) -> list[str]:
    lines = [line for line in err.splitlines() if "deprecated" in line]
    assert all(DEPRECATION.match(line) for line in lines), lines
    return lines


OLD_AND_NEW = {
    "progressive positional": (["progressive", "royal-9-progressive"], ["progressive", "--wager", "royal-9-progressive"]),
    "progressive --wager-amount": (["progressive", "--wager", "royal-9-progressive", "--wager-amount", "5"],
                                   ["progressive", "--wager", "royal-9-progressive", "--bet", "5"]),
    "mystery --wager-amount": (["mystery", "--minimum", "100", "--maximum", "500", "--rate", "2%", "--wager-amount", "1"],
                               ["mystery", "--minimum", "100", "--maximum", "500", "--rate", "2%", "--bet", "1"]),
    "eor positional": (["eor", "tie:8-to-1", "--decks", "1"], ["eor", "--wager", "tie:8-to-1", "--decks", "1"]),
    "exposure positional": (["exposure", "tie:8-to-1", "--shoes", "2", "--seed", "5", "--decks", "1", "--workers", "1"],
                            ["exposure", "--wager", "tie:8-to-1", "--shoes", "2", "--seed", "5", "--decks", "1",
                             "--workers", "1"]),
    "position positional": (["position", "banker=2", "tie:8-to-1", "--decks", "1"],
                            ["position", "--wager", "banker=2", "--wager", "tie:8-to-1", "--decks", "1"]),
    "house-money --bet": (["house-money", "--bet", "player", "--decks", "1"],
                          ["house-money", "--hand", "player", "--decks", "1"]),
    "simulate --format": (["simulate", "--rounds", "50", "--seed", "3", "--format", "jsonl", "--output", "-"],
                          ["simulate", "--rounds", "50", "--seed", "3", "--record-format", "jsonl", "--output", "-"]),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", OLD_AND_NEW)
def test_an_old_spelling_still_works_with_one_deprecation_line(case: str) -> None:
    old, new = OLD_AND_NEW[case]
    code_new, out_new, err_new = run(*new)
    assert code_new == 0 and _deprecations(err_new) == [], err_new
    code_old, out_old, err_old = run(*old)
    assert code_old == code_new and out_old == out_new and out_new
    (line,) = _deprecations(err_old)
    assert line.startswith("exactodds: warning: ")


def test_old_and_new_spellings_together_are_an_error() -> None:
    code, out, err = run("progressive", "--wager", "royal-9-progressive", "--bet", "5", "--wager-amount", "5")
    assert code == 2 and out == "" and "--wager-amount and --bet are the same option" in err
    code, out, err = run("eor", "tie", "--wager", "banker")
    assert code == 2 and out == "" and "--wager only" in err


def test_a_seed_not_given_is_drawn_and_shown_so_the_run_repeats() -> None:
    code, out, err = run("simulate", "--rounds", "40", "--output", "-")
    assert code == 0
    (seed,) = re.findall(r"^seed: (\d+)$", err, flags=re.MULTILINE)
    again = run("simulate", "--rounds", "40", "--output", "-", "--seed", seed)
    assert again[0] == 0 and again[1] == out and "seed:" not in again[2]


def test_analyze_bet_is_the_vigorish_bet_size() -> None:
    code, out, err = run("analyze", "--wager", "banker", "--bet", "7", "--format", "json")
    assert code == 0 and err == ""
    assert out == run("analyze", "--wager", "banker", "--set", "banker:bet=7", "--format", "json")[1]
    assert out != run("analyze", "--wager", "banker", "--format", "json")[1]
    code, out, err = run("analyze", "--wager", "tie", "--bet", "7")
    assert code == 2 and "no selected wager charges a vigorish" in err


def test_certificate_text_is_its_markdown_and_csv_its_exact_outcomes() -> None:
    args = ["certificate", "--wager", "tie:8-to-1", "--issued", "2026-01-02"]
    code, text, _ = run(*args, "--format", "text")
    assert code == 0 and text == run(*args, "--format", "markdown")[1] == run(*args)[1]
    doc = json.loads(run(*args, "--format", "json")[1])
    assert [r["shoe"]["cards"] for r in doc["results"]] == [416]           # 8 decks by default, as everywhere
    code, table, _ = run(*args, "--format", "csv", "--decks", "6", "--decks", "8")
    rows = [line.split(",") for line in table.splitlines()]
    assert code == 0 and rows[0][:3] == ["certificate_number", "shoe", "wager"]
    assert {r[1] for r in rows[1:]} == {"6 decks (312 cards)", "8 decks (416 cards)"}
    block = doc["results"][0]["wagers"][0]
    assert [r[-3:] for r in rows[1:] if r[1].startswith("8")] == [[o["probability"], o["one_in"], o["return"]]
                                                                   for o in block["outcomes"]]


def test_tables_prints_what_it_wrote_in_the_chosen_format(tmp_path: Any) -> None:
    code, out, err = run("tables", "--wager", "tie:8-to-1", "--output-dir", str(tmp_path), "--format", "json")
    assert code == 0, err
    written = json.loads(out)["written"]
    assert written and all(p.startswith(str(tmp_path)) and "8" in p for p in written)
