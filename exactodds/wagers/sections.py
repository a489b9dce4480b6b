"""How a wager's or a paytable's section is printed: '§' before a citation of the regulations only.

A section is where a wager is defined: a citation (``627a.7(a)(5)``, ``631b.9(f) Paytable C``) for
the catalogue, and free text for a user's own bet ("inventor's proposal"), which '§' would misquote.
"""

from __future__ import annotations

import re

__all__ = ["cited"]

#: A section that begins with a citation of the regulations (``627a.7``, ``631b.12``).
_CITATION = re.compile(r"\d{3}[a-z]\.\d")


def cited(section: str) -> str:
    """``section`` as printed: '§' before a citation of the regulations, never before free text.

    >>> cited("631b.3(h) Paytable A"), cited("inventor's proposal")
    ('§631b.3(h) Paytable A', "inventor's proposal")
    """
    return "§" + section if _CITATION.match(section) else section
