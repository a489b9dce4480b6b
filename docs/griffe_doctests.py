"""A griffe extension for the API pages: doctest examples in docstrings become fenced code blocks,
so Markdown does not read their brackets as links, and Sphinx cross-reference roles (written for
readers of the source: ``:func:`~exactodds.engine.deal```) become code spans (`deal`), so no page
shows a raw role."""

from __future__ import annotations

import re
from typing import Any

import griffe


def fence(text: str) -> str:
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        starts = line.lstrip().startswith(">>>")
        if starts and not inside:
            out.append("```pycon")
            inside = True
        elif inside and not line.strip():
            out.append("```")
            inside = False
        out.append(line)
    if inside:
        out.append("```")
    return "\n".join(out)


#: A Sphinx role: ``:func:`target``` or ``:class:`~a.b.Name``` (the ~ shows the last part only).
ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const|ref|term):`(~?)([^`]+)`")


def roles_as_code(text: str) -> str:
    """``:func:`~a.b.c``` -> `c`; ``:mod:`a.b``` -> `a.b` (code spans Markdown renders)."""
    def code(m: re.Match[str]) -> str:
        target = m[2].strip()
        if "<" in target and target.endswith(">"):             # :ref:`words <label>`
            target = target.split("<", 1)[0].strip()
        return f"`{target.rsplit('.', 1)[-1] if m[1] else target}`"
    return ROLE.sub(code, text)


class DoctestsAsCode(griffe.Extension):
    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence(roles_as_code(obj.docstring.value))
