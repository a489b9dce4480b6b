"""Issue 22, parts 3 and 4: a selection is exactly what was asked, and an unknown name is an error."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from exactodds.cli import cli


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


def _single_valued_options() -> list[tuple[str, click.Option]]:
    return [(name, p) for name, command in sorted(cli.commands.items()) for p in command.params
            if isinstance(p, click.Option) and not p.multiple and not p.count and p.expose_value]


@pytest.mark.parametrize(("command", "option"), _single_valued_options(),
                         ids=lambda x: x if isinstance(x, str) else max(x.opts, key=len))
def test_no_single_valued_option_is_silently_given_twice(command: str, option: click.Option) -> None:
    """click kept the last value of an option given twice, silently: every command now refuses it."""
    flag = max(option.opts, key=len)
    args = [flag, flag] if option.is_flag else [flag, "1", flag, "2"]
    code, out, err = run(command, *args)
    assert code == 2 and out == "" and err.count("\n") == 1, (command, args, out, err)
    assert f"{flag} given twice" in err


def test_an_option_given_twice_shows_both_values() -> None:
    code, _, err = run("progressive", "royal-9-progressive", "--paytable", "A", "--paytable=B")
    assert code == 2 and err == "exactodds: error: --paytable given twice ('A', 'B'): it takes one value\n"
