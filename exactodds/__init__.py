"""exactodds: the exact odds of Pennsylvania baccarat wagers.

Every figure is an exact rational number, found by walking every way the cards
can come out of the shoe (58 Pa. Code §627a, §627b, §629b, §631b).

>>> from exactodds import Shoe, deal
>>> main = deal(Shoe.decks(8)).main_game()
>>> main["banker"], main["player"], main["tie"]
(2292252566437888, 2230518282592256, 475627426473216)

Exposure runs (exact edges before every round of real shoes) are
:func:`exactodds.simulation.exposure.exposure`. The public names are imported when first used, so ``import exactodds`` (and
the ``exactodds`` command) loads only what a task needs.
"""

from __future__ import annotations

from exactodds._version import __version__

# Nothing else is imported here: the command's entry point (exactodds.__main__) comes through this module
# before it answers Ctrl-C, and a library never installs a signal handler on import.
TYPE_CHECKING = False

#: Public name -> (module, attribute). Written out here rather than through each layer's own lazy
#: exports because three names are aliases (features, build_certificate, verify_certificate).
_EXPORTS: dict[str, tuple[str, str]] = {
    **{n: ("analyses.analysis", n) for n in ("Analysis", "analyze", "select", "load_file", "MAIN_WAGERS")},
    **{n: ("game.cards", n) for n in ("Card", "Rank", "Suit", "parse_card_or_rank")},
    **{n: ("engine.distribution", n) for n in ("RoundDistribution", "deal", "round_table")},
    "ExactOddsError": ("errors", "ExactOddsError"),
    **{n: ("wagers.pays", n) for n in ("Pay", "parse_pay")},
    **{n: ("analyses.pricing", n) for n in ("OutcomeLine", "WagerResult", "price")},
    **{n: ("game.rules", n) for n in ("TABLE_1", "banker_draws", "play", "player_draws", "point_count")},
    "Shoe": ("game.shoe", "Shoe"),
    **{n: ("wagers.catalogue", n) for n in ("Catalogue", "Paytable", "Wager", "load_catalogue")},
    "build_certificate": ("documents.certificate", "build"),
    "verify_certificate": ("documents.certificate", "verify"),
    **{n: ("simulation.checksim", n) for n in ("check", "read_records")},
    **{n: ("analyses.progressive", n) for n in ("mystery_return", "progressive_analysis")},
    "compile_table": ("engine.multiset", "compile_table"),
    "features": ("wagers.outcomes", "vocabulary"),
    "effects_of_removal": ("analyses.eor", "effects_of_removal"),
    **{n: ("analyses.counting", n) for n in ("Count", "suggest_tags")},
    "simulate": ("simulation.simulate", "simulate"),
    "walk": ("engine.walk", "walk"),
    "design_paytable": ("analyses.designer", "design"),
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'exactodds' has no attribute {name!r}")
    module, attribute = _EXPORTS[name]
    value = getattr(__import__(f"{__name__}.{module}", fromlist=[attribute]), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:                     # what a type checker and an IDE see
    from typing import Any

    from exactodds.analyses.analysis import MAIN_WAGERS, Analysis, analyze, load_file, select
    from exactodds.analyses.counting import Count, suggest_tags
    from exactodds.analyses.designer import design as design_paytable
    from exactodds.analyses.eor import effects_of_removal
    from exactodds.analyses.pricing import OutcomeLine, WagerResult, price
    from exactodds.analyses.progressive import mystery_return, progressive_analysis
    from exactodds.documents.certificate import build as build_certificate
    from exactodds.documents.certificate import verify as verify_certificate
    from exactodds.engine.distribution import RoundDistribution, deal, round_table
    from exactodds.engine.multiset import compile_table
    from exactodds.engine.walk import walk
    from exactodds.errors import ExactOddsError
    from exactodds.game.cards import Card, Rank, Suit, parse_card_or_rank
    from exactodds.game.rules import TABLE_1, banker_draws, play, player_draws, point_count
    from exactodds.game.shoe import Shoe
    from exactodds.simulation.checksim import check, read_records
    from exactodds.simulation.simulate import simulate
    from exactodds.wagers.catalogue import Catalogue, Paytable, Wager, load_catalogue
    from exactodds.wagers.outcomes import vocabulary as features
    from exactodds.wagers.pays import Pay, parse_pay
