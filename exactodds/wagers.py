"""Wagers and paytables, loaded from data files that cite the regulations.

Each file under ``exactodds/data/`` holds the wagers of one chapter. A wager
lists its outcomes (a name and a condition on the round's features, see
:mod:`exactodds.outcomes`) and its paytables (a letter or name, as the
regulation gives it, with a pay per outcome). Any round that meets no outcome
loses the wager. Unless a wager says ``settle = "highest"``, its outcomes
must be mutually exclusive; that is checked when the file loads.

>>> cat = load_catalogue()
>>> w = cat["dragon-bonus-player"]
>>> w.section, sorted(w.paytables)
('627a.7(a)(4), 627a.12(e)', ['A', 'B', 'C'])
>>> w.paytables["A"].pays["win_by_9"].text
'30 to 1'
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

from .errors import ExactOddsError
from .outcomes import Condition, point_row
from .pays import Pay, parse_pay

__all__ = ["Outcome", "Paytable", "Wager", "Catalogue", "load_catalogue", "load_file", "DATA_FILES"]

#: The regulation data shipped with the package, one file per chapter.
DATA_FILES = ("627a.toml", "627b.toml", "631b.toml")


@dataclass(frozen=True)
class Outcome:
    """One way a wager can be settled other than a plain loss."""

    id: str
    name: str
    condition: Condition


@dataclass(frozen=True)
class Paytable:
    """A pay per outcome, as one paytable of the regulation lists it."""

    id: str
    section: str
    pays: Mapping[str, Pay]
    denomination: Fraction | None = None


@dataclass(frozen=True)
class Alternative:
    """A plausible other reading of the regulation, selectable by id."""

    id: str
    reading: str
    conditions: Mapping[str, Condition]


@dataclass(frozen=True)
class Wager:
    """A wager of the regulations: its citation, outcomes and paytables."""

    id: str
    name: str
    section: str
    game: str
    outcomes: tuple[Outcome, ...]
    paytables: Mapping[str, Paytable]
    source: str
    reading: str | None = None
    settle: str = "exclusive"
    alternatives: Mapping[str, Alternative] = field(default_factory=dict)
    reading_id: str = "regulation"

    def outcome(self, outcome_id: str) -> Outcome:
        for o in self.outcomes:
            if o.id == outcome_id:
                return o
        raise ExactOddsError(f"wager {self.id!r} has no outcome {outcome_id!r}")

    def paytable(self, paytable_id: str) -> Paytable:
        for key, table in self.paytables.items():
            if key.lower() == str(paytable_id).lower():
                return table
        raise ExactOddsError(
            f"wager {self.id!r} has no paytable {paytable_id!r} (it has {', '.join(self.paytables)})"
        )

    def with_alternative(self, alternative_id: str) -> Wager:
        """The wager priced under a documented alternative reading."""
        alt = self.alternatives.get(alternative_id)
        if alt is None:
            have = ", ".join(self.alternatives) or "none"
            raise ExactOddsError(
                f"wager {self.id!r} has no alternative reading {alternative_id!r} (it has {have})"
            )
        outcomes = tuple(
            replace(o, condition=alt.conditions.get(o.id, o.condition)) for o in self.outcomes
        )
        return replace(self, outcomes=outcomes, reading=alt.reading, reading_id=alt.id)

    @property
    def features(self) -> frozenset[str]:
        names: set[str] = set()
        for o in self.outcomes:
            names |= o.condition.names
        return frozenset(names)

    def settle_row(self, row: Mapping[str, object], paytable: Paytable) -> str | None:
        """The outcome a round with these features is paid as, or None (a loss)."""
        hits = [o.id for o in self.outcomes if paytable.pays[o.id].offered and o.condition(row)]
        if not hits:
            return None
        if len(hits) == 1 or self.settle == "exclusive":
            return hits[0]
        return max(hits, key=lambda oid: paytable.pays[oid].net)   # "highest": pay the best


class Catalogue(Mapping[str, Wager]):
    """All wagers by id, in the order the data files list them."""

    def __init__(self, wagers: Iterable[Wager]):
        self._wagers: dict[str, Wager] = {}
        for w in wagers:
            if w.id in self._wagers:
                first = self._wagers[w.id].source
                raise ExactOddsError(f"{w.source}: wager {w.id!r}: duplicate id (first defined in {first})")
            self._wagers[w.id] = w

    def __getitem__(self, key: str) -> Wager:
        try:
            return self._wagers[key]
        except KeyError:
            raise ExactOddsError(f"unknown wager {key!r} (see 'exactodds list')") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._wagers)

    def __len__(self) -> int:
        return len(self._wagers)

    def merged(self, other: Catalogue) -> Catalogue:
        return Catalogue([*self.values(), *other.values()])


@functools.cache
def load_catalogue() -> Catalogue:
    """The wagers of every regulation data file shipped with the package."""
    wagers: list[Wager] = []
    base = resources.files("exactodds") / "data"
    for name in DATA_FILES:
        text = (base / name).read_text(encoding="utf-8")
        wagers.extend(_parse_file(text, source=name))
    return Catalogue(wagers)


def load_file(path: str | Path) -> Catalogue:
    """Wagers from a user's own data file, checked exactly like the shipped ones."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ExactOddsError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ExactOddsError(f"{path}: not UTF-8 text") from None
    return Catalogue(_parse_file(text, source=str(path)))


# -- parsing and validation ---------------------------------------------------

_WAGER_KEYS = {"id", "name", "section", "game", "reading", "settle", "outcome", "paytable", "alternative"}
_OUTCOME_KEYS = {"id", "name", "when", "section"}
_PAYTABLE_KEYS = {"id", "section", "pays", "denomination"}


def _parse_file(text: str, *, source: str) -> list[Wager]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ExactOddsError(f"{source}: not valid TOML ({exc})") from None
    entries = data.get("wager")
    if not isinstance(entries, list) or not entries:
        raise ExactOddsError(f"{source}: no [[wager]] entries")
    unknown = set(data) - {"wager", "chapter", "title"}
    if unknown:
        raise ExactOddsError(f"{source}: unknown top-level key {sorted(unknown)[0]!r}")
    wagers = [_parse_wager(e, source=source, n=i + 1) for i, e in enumerate(entries)]
    Catalogue(wagers)     # duplicate ids within the file
    return wagers


def _text(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ExactOddsError(f"{where}: missing or empty {key!r}")
    return value.strip()


def _parse_wager(entry: Any, *, source: str, n: int) -> Wager:
    where = f"{source}: wager #{n}"
    if not isinstance(entry, dict):
        raise ExactOddsError(f"{where}: not a table")
    wid = _text(entry, "id", where)
    where = f"{source}: wager {wid!r}"
    if extra := set(entry) - _WAGER_KEYS:
        raise ExactOddsError(f"{where}: unknown key {sorted(extra)[0]!r}")
    settle = entry.get("settle", "exclusive")
    if settle not in ("exclusive", "highest"):
        raise ExactOddsError(f"{where}: settle must be 'exclusive' or 'highest', got {settle!r}")

    outcomes: list[Outcome] = []
    raw_outcomes = entry.get("outcome")
    if not isinstance(raw_outcomes, list) or not raw_outcomes:
        raise ExactOddsError(f"{where}: no [[wager.outcome]] entries")
    for i, o in enumerate(raw_outcomes):
        if not isinstance(o, dict):
            raise ExactOddsError(f"{where}: outcome #{i + 1} is not a table")
        oid = _text(o, "id", f"{where}: outcome #{i + 1}")
        owhere = f"{where}: outcome {oid!r}"
        if extra := set(o) - _OUTCOME_KEYS:
            raise ExactOddsError(f"{owhere}: unknown key {sorted(extra)[0]!r}")
        if any(x.id == oid for x in outcomes):
            raise ExactOddsError(f"{owhere}: duplicate outcome id")
        if "when" not in o:
            raise ExactOddsError(f"{owhere}: no definition ('when' is missing)")
        outcomes.append(Outcome(oid, _text(o, "name", owhere), Condition.parse(o["when"], where=owhere)))
    ids = {o.id for o in outcomes}

    paytables: dict[str, Paytable] = {}
    raw_tables = entry.get("paytable")
    if not isinstance(raw_tables, list) or not raw_tables:
        raise ExactOddsError(f"{where}: no [[wager.paytable]] entries")
    for i, t in enumerate(raw_tables):
        if not isinstance(t, dict):
            raise ExactOddsError(f"{where}: paytable #{i + 1} is not a table")
        tid = str(t.get("id", "")).strip()
        if not tid:
            raise ExactOddsError(f"{where}: paytable #{i + 1}: missing or empty 'id'")
        twhere = f"{where}: paytable {tid!r}"
        if extra := set(t) - _PAYTABLE_KEYS:
            raise ExactOddsError(f"{twhere}: unknown key {sorted(extra)[0]!r}")
        if tid in paytables:
            raise ExactOddsError(f"{twhere}: duplicate paytable id")
        denom = t.get("denomination")
        if denom is not None and (isinstance(denom, bool) or not isinstance(denom, (int, float, str))):
            raise ExactOddsError(f"{twhere}: denomination must be a number")
        denomination = None
        if denom is not None:
            try:
                denomination = Fraction(str(denom).lstrip("$").replace(",", ""))
            except ValueError:
                raise ExactOddsError(f"{twhere}: denomination {denom!r} is not a number") from None
            if denomination <= 0:
                raise ExactOddsError(f"{twhere}: denomination must be positive")
        raw_pays = t.get("pays")
        if not isinstance(raw_pays, dict) or not raw_pays:
            raise ExactOddsError(f"{twhere}: no pays")
        pays: dict[str, Pay] = {}
        for oid, text in raw_pays.items():
            if oid not in ids:
                raise ExactOddsError(f"{twhere}: names unknown outcome {oid!r}")
            try:
                pays[oid] = parse_pay(text, denomination=denomination)
            except ExactOddsError as exc:
                raise ExactOddsError(f"{twhere}: outcome {oid!r}: {exc}") from None
        if missing := [o for o in ids if o not in pays]:
            raise ExactOddsError(f"{twhere}: no pay for outcome {sorted(missing)[0]!r} (write 'N/A' if not offered)")
        pays = {o.id: pays[o.id] for o in outcomes}
        paytables[tid] = Paytable(tid, str(t.get("section", entry.get("section", ""))).strip(), pays, denomination)

    alternatives: dict[str, Alternative] = {}
    for i, a in enumerate(entry.get("alternative", []) or []):
        if not isinstance(a, dict):
            raise ExactOddsError(f"{where}: alternative #{i + 1} is not a table")
        aid = _text(a, "id", f"{where}: alternative #{i + 1}")
        awhere = f"{where}: alternative {aid!r}"
        when = a.get("when", {})
        if not isinstance(when, dict) or not when:
            raise ExactOddsError(f"{awhere}: 'when' must map outcome ids to conditions")
        conds = {}
        for oid, text in when.items():
            if oid not in ids:
                raise ExactOddsError(f"{awhere}: names unknown outcome {oid!r}")
            conds[oid] = Condition.parse(text, where=f"{awhere}: outcome {oid!r}")
        alternatives[aid] = Alternative(aid, _text(a, "reading", awhere), conds)

    wager = Wager(
        id=wid,
        name=_text(entry, "name", where),
        section=_text(entry, "section", where),
        game=str(entry.get("game", "Minibaccarat")),
        outcomes=tuple(outcomes),
        paytables=paytables,
        source=source,
        reading=entry.get("reading"),
        settle=settle,
        alternatives=alternatives,
    )
    _check_exclusive(wager, where)
    for alt in alternatives:
        _check_exclusive(wager.with_alternative(alt), f"{where}: alternative {alt!r}")
    return wager


def _check_exclusive(wager: Wager, where: str) -> None:
    """Outcomes of an exclusive wager must never meet on one round."""
    if wager.settle != "exclusive" or not wager.features <= _point_names():
        return
    from .engine import round_table

    for key in round_table().point_keys:
        row = point_row(key)
        hits = [o.id for o in wager.outcomes if o.condition(row)]
        if len(hits) > 1:
            raise ExactOddsError(
                f"{where}: outcomes {hits[0]!r} and {hits[1]!r} both hold on one round "
                f"(player {key[0]}, banker {key[1]}, cards {key[2]}+{key[3]}); "
                "make them exclusive or say settle = \"highest\""
            )


@functools.cache
def _point_names() -> frozenset[str]:
    from .outcomes import DERIVED, POINT_FEATURES

    return frozenset(POINT_FEATURES) | frozenset(DERIVED)
