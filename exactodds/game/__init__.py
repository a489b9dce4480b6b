"""The game: cards and their point values (§627a.6), the shoe, and the round of Minibaccarat (§627a.8–.10).

The bottom layer: it knows nothing of wagers or of counting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

# Each name is imported from its module when first used, so importing one module of this layer
# does not import the others.
__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs={
    "cards": ["Rank", "Suit", "Card", "parse_card_or_rank", "VALUES"],
    "rules": [
        "TABLE_1", "point_count", "is_natural", "player_draws", "banker_draws", "Round", "play", "BANKER_DRAW_MATRIX",
        "PLAYER_STOOD"
    ],
    "shoe": ["Shoe", "CARDS_PER_ROUND", "int64_safe", "parse_card_list"],
})

if TYPE_CHECKING:  # what a type checker and an IDE see
    from exactodds.game.cards import VALUES, Card, Rank, Suit, parse_card_or_rank
    from exactodds.game.rules import (
        BANKER_DRAW_MATRIX,
        PLAYER_STOOD,
        TABLE_1,
        Round,
        banker_draws,
        is_natural,
        play,
        player_draws,
        point_count,
    )
    from exactodds.game.shoe import CARDS_PER_ROUND, Shoe, int64_safe, parse_card_list
