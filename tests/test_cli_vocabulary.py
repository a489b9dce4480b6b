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
    "simulate-player": "writes a surveillance log (CSV)",
}

#: Commands that name wagers under another option, and why.
OTHER_WAGER_OPTION: dict[str, str] = {}

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
    variants = {"--decks": 2, "--wager": 3}.get(name, 1)
    assert len(kinds) <= variants, {k: v for k, v in kinds.items()}
    if name == "--decks":
        for cname, sig in seen.items():
            assert sig["default"] in (8, (8,)) and sig["type"]["param_type"] == "Int", cname
            if sig["multiple"]:
                assert "--decks 6 --decks 8" in sig["help"], cname
    if name == "--wager":
        assert {sig["metavar"] for sig in seen.values()} <= {"WAGER[:PAYTABLE]", "WAGER[:PAYTABLE][=STAKE]"}
        assert [c for c, sig in seen.items() if sig["metavar"].endswith("=STAKE]")] == ["position"]
        once = sorted(c for c, sig in seen.items() if not sig["multiple"])
        assert once == ["design", "progressive"]           # each prices one wager: its help does not say repeatable
        assert all(("repeatable" in sig["help"]) == sig["multiple"] for sig in seen.values())


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
    "simulate --settle": (["simulate", "--rounds", "50", "--seed", "3", "--settle", "tie", "--output", "-"],
                          ["simulate", "--rounds", "50", "--seed", "3", "--wager", "tie", "--output", "-"]),
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


@pytest.mark.parametrize("name", ["design", "progressive"])
def test_a_command_of_one_wager_refuses_a_second_and_does_not_say_repeatable(name: str) -> None:
    code, out, err = run(name, "--help")
    options = out[out.index("Options:"):]
    wager_help = options[options.index("--wager"):].split("\n  -", 1)[0]
    assert code == 0 and "repeatable" not in wager_help and "one wager" in wager_help
    extra = ["--target-edge", "5%"] if name == "design" else []
    code, out, err = run(name, "--wager", "tie", "--wager", "banker", *extra)
    assert code == 2 and out == "" and err == ("exactodds: error: --wager given twice ('tie', 'banker'): it takes "
                                               "one value\n")


def test_simulate_names_its_settled_wagers_with_wager() -> None:
    code, out, err = run("simulate", "--rounds", "20", "--seed", "4", "--wager", "tie:8-to-1", "--wager", "banker",
                         "--output", "-")
    assert code == 0 and out.splitlines()[0].endswith(",tie:8-to-1,banker:standard") and "deprecated" not in err
    code, out, err = run("simulate", "--rounds", "20", "--seed", "4", "--wager", "all", "--output", "-")
    assert code == 0 and out.splitlines()[0].count(":") > 80          # every wager paytable of the catalogue
    code, out, err = run("simulate", "--rounds", "20", "--seed", "4", "--wager", "tie", "--settle", "banker",
                         "--output", "-")
    assert code == 2 and out == "" and "--settle and --wager are the same option" in err
    assert "--settle" not in run("simulate", "--help")[1]


def test_check_takes_files_as_arguments_or_with_paytables(tmp_path: Any) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text(open("examples/new-bets.toml").read())
    by_argument = run("check", str(mine))
    assert by_argument[0] == 0 and "checked against every possible round" in by_argument[1]
    assert run("check", "--paytables", str(mine)) == by_argument
    assert run("check", str(mine), "--paytables", str(mine)) == by_argument         # one file, checked once
    code, out, err = run("check")
    assert code == 2 and out == "" and "--paytables FILE" in err and err.count("\n") == 1


def test_meter_is_in_units_of_the_wager_in_every_command_and_its_help_says_so() -> None:
    from exactodds.cli.options import METER_HELP

    having = {c: o for c, command in COMMANDS.items() if (o := _option(command, "--meter")) is not None}
    assert set(having) == {"eor", "position", "progressive"}
    assert all(METER_HELP in (o.help or "") and (o.metavar or "").endswith("UNITS") for o in having.values())
    # 5000 units of a $5 heavenly-9 wager is a $25,000 meter: progressive reads both spellings alike
    args = ["progressive", "--wager", "heavenly-9-progressive", "--format", "json"]
    units, dollars = run(*args, "--meter", "5000"), run(*args, "--meter", "$25000")
    assert units[0] == dollars[0] == 0 and units[1] == dollars[1] and dollars[2] == ""
    assert json.loads(units[1])["at"]["meters_units"] == {"J": "5000"}
    assert units[2] == ("exactodds: warning: --meter is in units of the wager, as in eor and position (until this "
                        "release progressive read it in dollars): J = 5000.00 units, a meter of $25,000.00 at the "
                        "$5.00 bet; write --meter '$25000' for dollars\n")
    # position and eor read a progressive at the same units; dollars there have no bet size to divide by
    stake = ["position", "--wager", "heavenly-9-progressive", "--format", "json"]
    assert run(*stake, "--meter", "J=2000")[0] == 0
    for command in (stake, ["eor", "--wager", "heavenly-9-progressive"]):
        code, out, err = run(*command, "--meter", "J=$10000")
        assert code == 2 and out == "" and "in units of the wager here, not dollars" in err


@pytest.mark.parametrize("written", ["dragon7", "Dragon-7", "DRAGON_7", "Dragon 7", "dragon-7", "Dragon-7-Insurance"])
def test_a_wager_id_near_miss_is_suggested_with_case_and_punctuation_folded(written: str) -> None:
    code, out, err = run("analyze", "--wager", written)
    assert code == 2 and out == "" and err == (f"exactodds: error: unknown wager {written!r} (did you mean "
                                               "'dragon-7-insurance'?) (see 'exactodds list')\n")


def test_a_name_that_matches_nothing_gets_no_guess() -> None:
    code, _, err = run("analyze", "--wager", "xyz")
    assert code == 2 and "did you mean" not in err


@pytest.mark.parametrize(("args", "said"), [
    (["--wager", "banker", "25"], "--wager banker 25: a stake follows its wager after '=': write --wager banker=25"),
    (["--wager", "tie", "--wager", "banker", "2.5"], "write --wager banker=2.5"),
    (["banker", "25"], "banker 25: a stake follows its wager after '=': write --wager banker=25"),
    (["--wager", "banker=25", "7"], "'7' is not a wager: a stake follows its wager after '='"),
])
def test_a_stake_written_apart_from_its_wager_is_answered_with_the_spelling_meant(args: list[str], said: str) -> None:
    code, out, err = run("position", *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and said in err and "deprecated" not in err
    wager, _, stake = said.rpartition("write --wager ")[2].partition("=") if "write" in said else ("", "", "")
    if wager:                                                   # and what it says to write works
        assert run("position", "--wager", f"{wager}={stake}", *(["--wager", "tie"] if "tie" in args else []))[0] == 0


@pytest.mark.parametrize(("args", "said"), [
    (["eor", "--seed", "1"], "eor has no option --seed: certificate, exposure, simulate and simulate-player take --seed (see "
     "'exactodds eor --help')"),
    (["exposure", "--level", "2"], "exposure has no option --level: eor takes --level"),
    (["design", "--plot", "x.png"], "design has no option --plot: analyze, check-player, eor and 2 other commands take --plot"),
    (["eor", "--wagr", "tie"], "eor has no option --wagr (did you mean --wager?)"),
    (["analyze", "--frobnicate"], "analyze has no option --frobnicate (see 'exactodds analyze --help')"),
])
def test_an_option_of_another_command_names_the_commands_that_take_it(args: list[str], said: str) -> None:
    code, out, err = run(*args)
    assert code == 2 and out == "" and err.count("\n") == 1 and said in err and "Did you mean one of" not in err
    option = args[1]
    for other in said.partition(": ")[2].partition(" take")[0].replace(" and ", ", ").split(", "):
        if other and other in COMMANDS:                        # each command named does take it
            assert _option(COMMANDS[other], option) is not None, (other, option)
