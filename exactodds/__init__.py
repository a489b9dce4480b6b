"""exactodds: the exact odds of Pennsylvania baccarat wagers.

Every figure is an exact rational number, found by walking every way the cards
can come out of the shoe (58 Pa. Code §627a, §627b, §629b, §631b).

>>> from exactodds import Shoe, analyze
>>> main = deal(Shoe.decks(8)).main_game()
>>> main["banker"], main["player"], main["tie"]
(2292252566437888, 2230518282592256, 475627426473216)
"""

from __future__ import annotations

from .analysis import MAIN_WAGERS, Analysis, analyze, load_file, select
from .cards import Card, Rank, Suit, parse_card_or_rank
from .engine import RoundDistribution, deal, round_table
from .errors import ExactOddsError
from .pays import Pay, parse_pay
from .pricing import OutcomeLine, WagerResult, price
from .rules import TABLE_1, banker_draws, play, player_draws, point_count
from .shoe import Shoe
from .walk import walk
from .wagers import Catalogue, Paytable, Wager, load_catalogue
from .certificate import build as build_certificate
from .certificate import verify as verify_certificate
from .checksim import check, read_records
from .progressive import mystery_return, progressive_analysis
from .simulate import simulate

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "Analysis",
    "analyze",
    "select",
    "MAIN_WAGERS",
    "Card",
    "Rank",
    "Suit",
    "parse_card_or_rank",
    "RoundDistribution",
    "deal",
    "round_table",
    "ExactOddsError",
    "Pay",
    "parse_pay",
    "OutcomeLine",
    "WagerResult",
    "price",
    "TABLE_1",
    "banker_draws",
    "player_draws",
    "play",
    "point_count",
    "Shoe",
    "walk",
    "Catalogue",
    "Paytable",
    "Wager",
    "load_catalogue",
    "load_file",
    "build_certificate",
    "verify_certificate",
    "check",
    "read_records",
    "mystery_return",
    "progressive_analysis",
    "simulate",
]
