"""Wagers and paytables, loaded from data files that cite the regulations.

Each file under ``exactodds/data/`` holds the wagers of one chapter. A wager
lists its outcomes (a name and a condition on the round's features, see
:mod:`exactodds.wagers.outcomes`) and its paytables (a letter or name, as the
regulation gives it, with a pay per outcome). Any round that meets no outcome
loses the wager. Unless a wager says ``settle = "highest"``, its outcomes
must be mutually exclusive; that is checked when the file loads. The shape of a
file (its tables, keys and the type of each value) is checked, when its TOML is
parsed, against the JSON Schema shipped beside the data (:data:`SCHEMA_FILE`).

>>> cat = load_catalogue()
>>> w = cat["dragon-bonus-player"]
>>> w.section, sorted(w.paytables)
('627a.7(a)(4), 627a.12(e)', ['A', 'B', 'C'])
>>> w.paytables["A"].pays["win_by_9"].text
'30 to 1'
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import re
import tomllib
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from exactodds import cache, extras
from exactodds.errors import ExactOddsError
from exactodds.wagers.conditions import Condition, parameter_type
from exactodds.wagers.outcomes import feature_kind
from exactodds.wagers.pays import Pay, parse_amount, parse_pay

__all__ = ["Outcome", "Paytable", "Wager", "Catalogue", "load_catalogue", "read_file", "read_text", "file_text",
           "did_you_mean", "check_meter_names", "check_id", "DATA_FILES", "MAX_FILE_BYTES", "ID_CHARACTERS", "MAX_ID"]

#: The regulation data shipped with the package, one file per chapter.
DATA_FILES = ("627a.toml", "627b.toml", "631b.toml")
#: The most bytes a user's data file may hold (the largest shipped file holds 30 kB).
MAX_FILE_BYTES = 1 << 20


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
    award_basis: str = "to"

    @property
    def meters(self) -> frozenset[str]:
        """The progressive meters its pays share (none for fixed pays)."""
        return frozenset(p.meter for p in self.pays.values() if p.meter)

    def with_award_basis(self, basis: str) -> Paytable:
        """The paytable with dollar and meter awards paid on ``basis`` ('to' or 'for')."""
        pays = {k: parse_pay(p.text, denomination=self.denomination, award_basis=basis)
                if p.kind in ("dollars", "progressive") else p for k, p in self.pays.items()}
        return replace(self, pays=pays, award_basis=basis)


@dataclass(frozen=True)
class Alternative:
    """A plausible other reading of the regulation, selectable by id."""

    id: str
    reading: str
    conditions: Mapping[str, Condition]
    award_basis: str | None = None
    pays: Mapping[str, Mapping[str, Pay]] = field(default_factory=dict)     # paytable -> outcome -> pay
    implausible: str | None = None          # why this reading cannot be what the regulation means
    rank_meters: Mapping[str, Mapping[str, Fraction]] = field(default_factory=dict)   # paytable -> meter -> units


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
    parameters: Mapping[str, object] = field(default_factory=dict)
    follows: str | None = None              # a wager whose chosen reading this one takes too
    #: paytable -> meter -> value (units of the wager) at which "highest" ranks a meter share
    #: by the amount it pays; without it a meter share outranks every fixed award
    rank_meters: Mapping[str, Mapping[str, Fraction]] = field(default_factory=dict)

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
            f"wager {self.id!r} has no paytable {paytable_id!r}{_did_you_mean(str(paytable_id), self.paytables)} "
            f"(it has {', '.join(self.paytables)})"
        )

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without what it keeps of its pricing (``_cache``: an optimisation, and it may hold a table's
        closures): a worker process makes its own."""
        state = dict(self.__dict__)
        state.pop("_cache", None)
        return state

    def with_alternative(self, alternative_id: str) -> Wager:
        """The wager priced under a documented alternative reading."""
        alt = self.alternatives.get(alternative_id)
        if alt is None:
            have = ", ".join(self.alternatives) or "none"
            raise ExactOddsError(
                f"wager {self.id!r} has no alternative reading {alternative_id!r}"
                f"{_did_you_mean(alternative_id, self.alternatives)} (it has {have})"
            )
        outcomes = tuple(
            replace(o, condition=alt.conditions.get(o.id, o.condition)) for o in self.outcomes
        )
        tables = dict(self.paytables)
        for tid, changes in alt.pays.items():
            tables[tid] = replace(tables[tid], pays={**tables[tid].pays, **changes})
        if alt.award_basis is not None:
            tables = {k: t.with_award_basis(alt.award_basis) for k, t in tables.items()}
        return replace(self, outcomes=outcomes, paytables=tables, reading=alt.reading, reading_id=alt.id,
                       rank_meters=alt.rank_meters or self.rank_meters)

    def with_rank_meters(self, paytable_id: str, meters: Mapping[str, Fraction | int]) -> Wager:
        """The wager with "highest" ranking each meter share by what it pays at ``meters``
        (units of the wager), e.g. Royal 9 at the meters on the sign today."""
        table = self.paytable(paytable_id)
        symbols = {table.pays[o.id].meter for o in self.outcomes if table.pays[o.id].symbolic}
        for name, value in meters.items():
            if name not in symbols:
                raise ExactOddsError(f"wager {self.id!r} paytable {table.id!r} has no meter {name!r} "
                                     f"(meters: {', '.join(sorted(s for s in symbols if s))})")
            if value < 0:
                raise ExactOddsError(f"meter {name} must be >= 0, got {value}")
        if missing := symbols - set(meters):
            raise ExactOddsError(f"give every meter of paytable {table.id!r}: missing {sorted(m for m in missing if m)}")
        ranks = {**self.rank_meters, table.id: {k: Fraction(v) for k, v in meters.items()}}
        return replace(self, rank_meters=ranks)

    @property
    def implausible(self) -> str | None:
        """Why the reading priced is not a plausible reading of the regulation (None if it is)."""
        alt = self.alternatives.get(self.reading_id)
        return alt.implausible if alt is not None else None

    def rank(self, paytable: Paytable, outcome_id: str) -> tuple[int, Fraction]:
        """How "highest" orders this outcome's pay under ``paytable`` (see :func:`_rank`)."""
        return _rank(paytable.pays[outcome_id], self.rank_meters.get(paytable.id))

    @property
    def features(self) -> frozenset[str]:
        names: set[str] = set()
        for o in self.outcomes:
            names |= o.condition.names
        return frozenset(names) - frozenset(self.parameters)

    @property
    def texts(self) -> frozenset[frozenset[str]]:
        """The texts the wager's conditions name, as sets read together (suits named are told apart)."""
        return frozenset().union(*(o.condition.texts for o in self.outcomes))

    @property
    def joined(self) -> frozenset[str]:
        """The features the wager's conditions compare with another feature (see :class:`Condition`)."""
        return frozenset().union(*(o.condition.joined for o in self.outcomes))

    @property
    def kind(self) -> str:
        """'point', 'round' or 'initial': which exact table the wager reads."""
        return feature_kind(self.features)

    def with_parameters(self, values: Mapping[str, object]) -> Wager:
        """The wager with some of its declared parameters set (e.g. a Royal 9 seat)."""
        for name in values:
            if name not in self.parameters:
                have = ", ".join(self.parameters) or "none"
                raise ExactOddsError(f"wager {self.id!r} has no parameter {name!r}"
                                     f"{_did_you_mean(name, self.parameters)} (it has {have})")
        merged = {**self.parameters, **values}
        _check_parameters(self.id, merged)
        for name, value in values.items():
            default = self.parameters[name]
            was, now = parameter_type(default), parameter_type(value)
            if was != now and not (was.startswith("list of ") and now == "list of anything"):   # or empty
                raise ExactOddsError(f"wager {self.id!r}: parameter {name!r} is {was}, not {now} ({value!r}): "
                                     "its conditions were checked for that type")
            if isinstance(default, (list, tuple)) and default and all(_CARD_PAIR.match(str(v)) for v in default):
                bad = [v for v in (value if isinstance(value, (list, tuple)) else [value]) if not _CARD_PAIR.match(str(v))]
                if bad:
                    raise ExactOddsError(f"wager {self.id!r}: parameter {name!r}: {bad[0]!r} is not a pair of cards "
                                         "such as Ks9s")
        def again(c: Condition) -> Condition:                    # every check of the language, on the new values
            return Condition.parse(c.text, where=c.where, parameters=merged)

        outcomes = tuple(replace(o, condition=again(o.condition)) for o in self.outcomes)
        alternatives = {k: replace(a, conditions={o: again(c) for o, c in a.conditions.items()})
                        for k, a in self.alternatives.items()}
        return replace(self, parameters=merged, outcomes=outcomes, alternatives=alternatives)

    def settle_row(self, row: Mapping[str, object], paytable: Paytable, *, standing: bool = False) -> str | None:
        """The outcome a round with these features is paid as, or None (a loss). With ``standing``, ``row`` stands
        for rounds whose cards give the conditions the same truths (the walk's), and a refusal says so."""
        hits = [o.id for o in self.outcomes
                if paytable.pays[o.id].offered and o.condition(row, self.parameters)]
        if not hits:
            return None
        if len(hits) > 1 and self.settle == "exclusive":       # refused, never settled as the first
            seen = ", ".join(f"{n}={row[n]!r}" for n in sorted(self.features) if n in row)
            alt = f": alternative {self.reading_id!r}" if self.reading_id != "regulation" else ""
            like = "cards that give the conditions the same truths as such a round: " if standing else ""
            raise ExactOddsError(f"{self.source}: wager {self.id!r}{alt}: outcomes {hits[0]!r} and {hits[1]!r} both "
                                 f"hold on one round ({like}{seen}); make them exclusive or say settle = \"highest\"")
        if len(hits) == 1:
            return hits[0]
        return max(hits, key=lambda oid: self.rank(paytable, oid))   # "highest": pay the best


def _folded(name: str) -> str:
    """A name as a near miss is compared: case and punctuation folded (``Dragon-7`` → ``dragon7``)."""
    return "".join(ch for ch in name.lower() if ch.isalnum())


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    """``" (did you mean 'banker'?)"`` for a near miss, else nothing: case and punctuation folded, a name
    that begins only one known name, then the closest by spelling.

    >>> ids = ["dragon-7-insurance", "panda-8-insurance", "dragon-bonus-player"]
    >>> _did_you_mean("dragon7", ids), _did_you_mean("Dragon-7", ids)
    (" (did you mean 'dragon-7-insurance'?)", " (did you mean 'dragon-7-insurance'?)")
    >>> _did_you_mean("PANDA_8_INSURANCE", ids), _did_you_mean("xyz", ids)
    (" (did you mean 'panda-8-insurance'?)", '')
    """
    names = list(known)
    folded: dict[str, str] = {}
    for k in names:
        folded.setdefault(_folded(k), k)
    key = _folded(name)
    begun = [k for f, k in folded.items() if len(key) >= 3 and f.startswith(key)]
    close = ([folded[key]] if key in folded else begun if len(begun) == 1 else
             [folded[f] for f in difflib.get_close_matches(key, list(folded), n=1, cutoff=0.6)] if key else [])
    close = close or difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


did_you_mean = _did_you_mean


def check_meter_names(names: Iterable[str], tables: Iterable[Paytable], *, where: str = "--meter") -> None:
    """Refuse a meter value for a meter that none of ``tables`` has (it would change nothing)."""
    known = sorted(frozenset().union(*(t.meters for t in tables)))
    for name in names:
        if name not in known:
            have = f"meters: {', '.join(known)}" if known else "none of them is a progressive"
            raise ExactOddsError(f"{where} {name}: no selected wager has a meter {name!r}"
                                 f"{_did_you_mean(name, known)} ({have})")


def _rank(pay: Pay, meters: Mapping[str, Fraction] | None = None) -> tuple[int, Fraction]:
    """Order pays for "highest": a progressive share is the top award, then by net win;
    with ``meters`` (units of the wager), every pay ranks by what it pays at those meters."""
    if pay.symbolic:
        return (0, pay.net.at(meters)) if meters else (1, Fraction(0))
    return (0, Fraction(pay.net))


#: Two cards written with suit symbols, e.g. 'K♠9♥' (how card-pair parameters are held).
_CARD_PAIR = re.compile(r"^(?:10|[2-9AJQK])[♠♥♦♣](?:10|[2-9AJQK])[♠♥♦♣]$")


def _parse_paytable(t: Any, outcomes: Sequence[Outcome], *, where: str, n: int, default_section: str) -> Paytable:
    """One ``[[wager.paytable]]`` (or a user's top-level ``[[paytable]]``) against a wager's outcomes."""
    ids = [o.id for o in outcomes]
    tid = _id({"id": str(t["id"])}, "id", f"{where}: paytable #{n}")     # a number is read as its text
    twhere = f"{where}: paytable {tid!r}"
    denom = t.get("denomination")
    denomination = None
    if denom is not None:
        denomination = parse_amount(denom, where=f"{twhere}: denomination", what="a number")
        if not Fraction(1, 100) <= denomination <= 10**6:
            raise ExactOddsError(f"{twhere}: denomination must be from $0.01 to $1,000,000, got {denom!r}")
    basis = t.get("award_basis", "to")
    pays: dict[str, Pay] = {}
    for oid, text in t["pays"].items():
        if oid not in ids:
            raise ExactOddsError(f"{twhere}: names unknown outcome {oid!r} (outcomes: {', '.join(ids)})")
        try:
            pays[oid] = parse_pay(text, denomination=denomination, award_basis=basis)
        except ExactOddsError as exc:
            raise ExactOddsError(f"{twhere}: outcome {oid!r}: {exc}") from None
    if missing := [o for o in ids if o not in pays]:
        raise ExactOddsError(f"{twhere}: no pay for outcome {sorted(missing)[0]!r} (write 'N/A' if not offered)")
    return Paytable(tid, str(t.get("section", default_section)).strip(), {o: pays[o] for o in ids},
                    denomination, basis)


def _rank_meters(raw: Any, paytables: Mapping[str, Paytable], where: str) -> dict[str, dict[str, Fraction]]:
    """``rank_meters.'$5' = { J_minor = 90, ... }``: meter values (units of the wager) per paytable."""
    out: dict[str, dict[str, Fraction]] = {}
    for tid, meters in raw.items():
        if tid not in paytables:
            raise ExactOddsError(f"{where}: rank_meters names unknown paytable {tid!r}")
        for name, value in meters.items():
            if not isinstance(value, int):                   # the schema lets 1.0 pass as a whole number
                raise ExactOddsError(f"{where}: rank_meters.{tid}.{name} must be a whole number of wagers >= 0")
            out.setdefault(tid, {})[name] = Fraction(value)
    return out


def _follows(raw: Any, where: str) -> str | None:
    if raw is not None and not raw.strip():
        raise ExactOddsError(f"{where}: 'follows' must name a wager")
    return raw


def _check_parameters(wager_id: str, values: Mapping[str, object]) -> None:
    for name, value in values.items():
        ok = isinstance(value, (int, str)) and not isinstance(value, bool)
        ok = ok or (isinstance(value, (list, tuple)) and all(isinstance(v, (int, str)) for v in value))
        if not ok:
            raise ExactOddsError(f"wager {wager_id!r}: parameter {name!r} must be a number, text or a list")
    seat, combos = values.get("seat"), values.get("combinations")
    if isinstance(seat, int) and isinstance(combos, tuple) and not 1 <= seat <= len(combos):
        raise ExactOddsError(f"wager {wager_id!r}: seat must be 1 to {len(combos)} (one per printed combination), got {seat}")


class Catalogue(Mapping[str, Wager]):
    """All wagers by id, in the order the data files list them.

    A wager may be held unread (``pending``: its id, its file and a function
    that reads it) and is read the first time it is looked up, so a command that
    prices a few wagers reads only those; a duplicate id is refused at once.
    """

    def __init__(self, wagers: Iterable[Wager] = (), *,
                 pending: Iterable[tuple[str, str, Callable[[], Wager]]] = ()):
        self._sources: dict[str, str] = {}
        self._wagers: dict[str, Wager] = {}
        self._pending: dict[str, Callable[[], Wager]] = {}
        for w in wagers:
            self._add(w.id, w.source)
            self._wagers[w.id] = w
        for wid, source, read in pending:
            self._add(wid, source)
            self._pending[wid] = read

    def _add(self, wid: str, source: str) -> None:
        if wid in self._sources:
            raise ExactOddsError(f"{source}: wager {wid!r}: duplicate id (first defined in {self._sources[wid]})")
        self._sources[wid] = source

    def __getitem__(self, key: str) -> Wager:
        if key in self._pending:
            self._wagers[key] = self._pending.pop(key)()
        try:
            return self._wagers[key]
        except KeyError:
            raise ExactOddsError(f"unknown wager {key!r}{_did_you_mean(key, self._sources)}"
                                 " (see 'exactodds list')") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._sources)

    def __len__(self) -> int:
        return len(self._sources)

    def __contains__(self, key: object) -> bool:
        return key in self._sources

    #: Paytables a user's file adds to wagers defined elsewhere: (wager id, raw table, where).
    extensions: tuple[tuple[str, dict[str, Any], str], ...] = ()

    def merged(self, other: Catalogue) -> Catalogue:
        """Both catalogues' wagers (an id in both is refused), with ``other``'s extra paytables added."""
        out = Catalogue()
        for cat in (self, other):
            for wid in cat:
                out._add(wid, cat._sources[wid])
            out._wagers.update(cat._wagers)
            out._pending.update(cat._pending)
        for wid, raw, where in other.extensions:
            if wid not in out:
                raise ExactOddsError(f"{where}: paytable for unknown wager {wid!r}{_did_you_mean(wid, out)}; a wager "
                                     "of your own: give the --paytables file that defines it before this one")
            w = out[wid]
            table = _parse_paytable(raw, w.outcomes, where=f"{where}: wager {wid!r}", n=1, default_section="")
            if table.id.lower() in (t.lower() for t in w.paytables):
                raise ExactOddsError(f"{where}: wager {wid!r} already has a paytable {table.id!r} "
                                     "(ids are read in any case)")
            out._wagers[wid] = replace(w, paytables={**w.paytables, table.id: table})
        return out


@cache.register_memo                     # its wagers may come from parses read from the disk cache
@functools.cache
def load_catalogue() -> Catalogue:
    """The wagers of every regulation data file shipped with the package (each read when first used)."""
    pending: list[tuple[str, str, Callable[[], Wager]]] = []
    base = Path(__file__).parent.parent / "data"
    for name in DATA_FILES:
        text = (base / name).read_text(encoding="utf-8")
        pending.extend(_entries(text, source=name, cached=True))
    return Catalogue(pending=pending)


def read_file(path: str | Path) -> Catalogue:
    """Wagers from a user's own data file, read and checked as data (keys, pays, conditions).

    That no two outcomes of an exclusive wager meet on one round is checked
    against its exact table when the wager is first priced, or for every wager
    at once by :func:`exactodds.analyses.analysis.load_file` with ``check_all``.
    """
    return read_text(file_text(path), source=str(path))


def file_text(path: str | Path) -> str:
    """The text of a user's data file, exactly as its bytes are (UTF-8, at most :data:`MAX_FILE_BYTES`)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ExactOddsError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ExactOddsError(f"{path}: larger than {MAX_FILE_BYTES:,} bytes, the most a wager data file may hold")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ExactOddsError(f"{path}: not UTF-8 text") from None


def read_text(text: str, *, source: str) -> Catalogue:
    """Wagers from the text of a user's data file (``source`` names it in messages), as :func:`read_file`."""
    data = _read_toml(text, source=source)
    extensions = [(t["wager"], t, source) for t in data.get("paytable", [])]
    cat = Catalogue(_parse_file(text, source=source, optional=bool(extensions)))
    cat.extensions = tuple(extensions)
    return cat


# -- parsing and validation ---------------------------------------------------

#: The JSON Schema of a data file, shipped beside the regulation data (docs/ holds a copy).
SCHEMA_FILE = "paytable-file.schema.json"


@functools.cache
def _schema_validator() -> Any:
    """The shipped schema's validator. jsonschema is imported here only: a data file is validated when
    its TOML is parsed, never when the shipped catalogue is read back parsed from the disk cache."""
    jsonschema = extras.load("jsonschema")
    schema = json.loads((Path(__file__).parent.parent / "data" / SCHEMA_FILE).read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def validate_file(data: Mapping[str, Any], *, source: str) -> None:
    """Refuse a parsed data file that the shipped JSON Schema refuses, with one line naming the file,
    the wager, its outcome or paytable and the key (the first problem, in the order the file is read)."""
    errors = list(_schema_validator().iter_errors(data))
    if errors:
        first = min(errors, key=_reading_order)
        raise ExactOddsError(_schema_message(first, data, source))


#: The order in which a table's keys are read (problems are named in this order, then in file order).
_KEY_ORDER = ("id", "wager", "<unknown>", "settle", "parameters", "outcome", "denomination", "award_basis", "pays",
              "when", "paytable", "alternative", "implausible", "rank_meters", "reading", "name", "section")


def _key_rank(key: str) -> int:
    return _KEY_ORDER.index(key) if key in _KEY_ORDER else len(_KEY_ORDER)


def _subject(error: Any, instance: Any) -> str | None:
    """The key of its table a problem is about (a missing or unknown key), or None for the value itself."""
    if error.validator == "required" and isinstance(instance, dict):
        return next((k for k in error.validator_value if k not in instance), None)
    if error.validator == "additionalProperties":
        return "<unknown>"
    if error.validator == "anyOf" and not error.absolute_path:
        return "wager"
    return None


def _reading_order(error: Any) -> tuple[int, ...]:
    steps = [k if isinstance(k, int) else _key_rank(k) for k in error.absolute_path]
    subject = _subject(error, error.instance)
    return (*steps, -1 if subject is None else _key_rank(subject))


def _label(kind: str, table: Any, n: int) -> str:
    """``wager 'x'`` by its id where it has a usable one, else ``wager #n``."""
    tid = table.get("id") if isinstance(table, dict) else None
    if isinstance(tid, (int, float)) and not isinstance(tid, bool) and kind == "paytable":
        tid = str(tid)
    return f"{kind} {tid.strip()!r}" if isinstance(tid, str) and tid.strip() else f"{kind} #{n}"


def _schema_message(error: Any, data: Mapping[str, Any], source: str) -> str:
    """The one-line message for a schema error, as the loader words it."""
    path = list(error.absolute_path)
    value = error.instance
    unknown = (sorted(set(value) - set(error.schema.get("properties", {})))[:1] or ["?"])[0] \
        if error.validator == "additionalProperties" and isinstance(value, dict) else ""
    missing = _subject(error, value) if error.validator == "required" else None
    if not path:
        if unknown:
            return f"{source}: unknown top-level key {unknown!r}"
        return f"{source}: no [[wager]] entries (or [[paytable]] entries for wagers of the catalogue)"
    if path == ["wager"]:
        return f"{source}: no [[wager]] entries (or [[paytable]] entries for wagers of the catalogue)"
    if path[0] == "paytable":
        t = data["paytable"][path[1]] if len(path) > 1 else None
        if not isinstance(t, dict) or "wager" not in t or missing == "wager" or path[2:3] == ["wager"]:
            return f"{source}: paytable #{path[1] + 1 if len(path) > 1 else 1}: a [[paytable]] names the 'wager' it is for"
        return _paytable_message(error, path[2:], t, f"{source}: wager {t['wager']!r}", 1, unknown, missing)
    if path[0] != "wager":
        return f"{source}: {path[0]!r} must be {_wanted(error)}"
    entry = data["wager"][path[1]]
    numbered = f"{source}: wager #{path[1] + 1}"
    where = f"{source}: {_label('wager', entry, path[1] + 1)}"
    rest = path[2:]
    if not rest:
        if not isinstance(value, dict):
            return f"{numbered}: not a table"
        if missing == "id":
            return f"{numbered}: missing or empty 'id'"
        if missing:
            return f"{where}: missing or empty {missing!r}"
        return f"{where}: unknown key {unknown!r}"
    key = rest[0]
    if key == "id":
        _id(entry, "id", numbered)                          # raises: the schema's pattern is _id's rule
    if key in ("name", "section") and len(rest) == 1:
        _text(entry, key, where)                            # raises: not text
    if key == "settle":
        return f"{where}: settle must be 'exclusive' or 'highest', got {value!r}"
    if key == "parameters":
        return f"{where}: parameters must be a table"
    if key == "follows":
        return f"{where}: 'follows' must name a wager"
    if key == "combine":
        return f"{where}: combine must list two wager ids"
    if key in ("outcome", "paytable") and len(rest) == 1:
        return f"{where}: no [[wager.{key}]] entries"
    if key in ("outcome", "paytable", "alternative") and len(rest) >= 2:
        n = rest[1] + 1
        table = entry[key][rest[1]]
        if len(rest) == 2 and not isinstance(value, dict):
            return f"{where}: {key} #{n} is not a table"
        if key == "paytable":
            return _paytable_message(error, rest[2:], table, where, n, unknown, missing)
        inner = f"{where}: {_label(key, table, n)}"
        sub = rest[2:]
        if missing == "id" or sub == ["id"]:
            (_id if key == "alternative" else _text)(table, "id", f"{where}: {key} #{n}")     # raises if it must
            return f"{inner}: outcome id {table['id'].strip()!r} is reserved (the line of losing rounds and the " \
                "totals row); choose another"
        if missing == "when":
            return f"{inner}: no definition ('when' is missing)"
        if missing:
            return f"{inner}: missing or empty {missing!r}"
        if unknown and not sub:
            return f"{inner}: unknown key {unknown!r}"
        if sub in (["name"], ["reading"]):
            _text(table, sub[0], inner)                     # raises: not text
        if key == "outcome" and sub == ["when"]:
            Condition.parse(value, where=inner)             # raises: not text
        if key == "alternative" and sub[:1] == ["when"] and len(sub) == 2:
            Condition.parse(value, where=f"{inner}: outcome {sub[1]!r}")
        if sub == ["award_basis"]:
            return f"{inner}: award_basis must be 'to' or 'for', got {value!r}"
        if sub == ["implausible"]:
            return f"{inner}: 'implausible' must be a sentence saying why"
        if sub[:1] == ["rank_meters"]:
            if len(sub) == 1:
                return f"{inner}: rank_meters must map paytables to meter values"
            if len(sub) == 2:
                return f"{inner}: rank_meters names unknown paytable {sub[1]!r}"
            return f"{inner}: rank_meters.{sub[1]}.{sub[2]} must be a whole number of wagers >= 0"
        if sub[:1] == ["pays"]:
            if len(sub) == 2:
                return f"{inner}: pays names unknown paytable {sub[1]!r}"
            if len(sub) == 3:
                return f"{inner}: paytable {sub[1]!r}: outcome {sub[2]!r}: {_pay_problem(value)}"
        if sub[:1] in (["when"], ["pays"]):
            return f"{inner}: give 'when' (outcome id -> condition), 'pays', 'award_basis' or 'rank_meters'"
        return f"{inner}: {'.'.join(map(str, sub))} must be {_wanted(error)}"
    return f"{where}: {'.'.join(map(str, rest))} must be {_wanted(error)}"


def _paytable_message(error: Any, rest: list[Any], table: Any, where: str, n: int, unknown: str,
                      missing: str | None) -> str:
    """A schema error inside a paytable (of a wager, or a user's top-level ``[[paytable]]``)."""
    numbered = f"{where}: paytable #{n}"
    if not isinstance(table, dict):
        return f"{numbered} is not a table"
    if missing == "id" or rest == ["id"]:
        return f"{numbered}: missing or empty 'id'" if missing or not isinstance(table["id"], str) or \
            not table["id"].strip() else _id_problem(table, numbered)
    inner = f"{where}: {_label('paytable', table, n)}"
    if missing == "pays" or rest == ["pays"]:
        return f"{inner}: no pays"
    if unknown and not rest:
        return f"{inner}: unknown key {unknown!r}"
    if rest == ["denomination"]:
        return f"{inner}: denomination must be a number"
    if rest == ["award_basis"]:
        return f"{inner}: award_basis must be 'to' or 'for', got {error.instance!r}"
    if rest[:1] == ["pays"] and len(rest) == 2:
        return f"{inner}: outcome {rest[1]!r}: {_pay_problem(error.instance)}"
    return f"{inner}: {'.'.join(map(str, rest))} must be {_wanted(error)}"


def _id_problem(table: Mapping[str, Any], where: str) -> str:
    """What :func:`_id` says of an id the schema refuses."""
    try:
        _id(table, "id", where)
    except ExactOddsError as exc:
        return str(exc)
    return f"{where}: 'id' {table['id']!r} is not an id"


def _pay_problem(value: Any) -> str:
    """What :func:`parse_pay` says of a pay the schema refuses (one that is not text)."""
    try:
        parse_pay(value)
    except ExactOddsError as exc:
        return str(exc)
    return f"a pay must be text such as '30 to 1', got {value!r}"


def _wanted(error: Any) -> str:
    """What the schema wanted, in words: ``text``, ``a table``, ``one of 'to', 'for'``..."""
    words = {"string": "text", "number": "a number", "integer": "a whole number", "object": "a table",
             "array": "a list", "boolean": "true or false"}
    if error.validator == "type":
        kinds = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        return " or ".join(words.get(k) or str(k) for k in kinds) + f", got {error.instance!r}"
    if error.validator == "enum":
        return "one of " + ", ".join(repr(v) for v in error.validator_value) + f", got {error.instance!r}"
    if error.validator == "minimum":
        return f"at least {error.validator_value}, got {error.instance!r}"
    return f"as docs/{SCHEMA_FILE} says ({error.validator} {error.validator_value!r})"

def _read_toml(text: str, *, source: str, cached: bool = False) -> dict[str, Any]:
    """Parse TOML; a shipped file's parse is kept on disk as JSON, which reads faster."""
    if cached:
        key = hashlib.sha256(text.encode()).hexdigest()
        saved = cache.load("toml", key)
        if saved is not None:
            try:
                parsed = json.loads(str(saved["json"])) if set(saved) == {"json"} else None
            except (ValueError, RecursionError):
                parsed = None
            if isinstance(parsed, dict):
                return parsed
            cache.reject("toml", key, "holds no parsed data file")

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ExactOddsError(f"{source}: not valid TOML ({exc})") from None
    except RecursionError:
        raise ExactOddsError(f"{source}: nested too deeply to be a wager file") from None
    validate_file(data, source=source)
    if cached:
        encoded = json.dumps(data)
        if json.loads(encoded) == data:          # plain strings, numbers, lists and tables only
            cache.save("toml", key, {"json": np.array(encoded)})
    return data


def _parse_file(text: str, *, source: str, cached: bool = False, optional: bool = False) -> list[Wager]:
    """Every wager of a data file, read and checked now (``optional``: the file may have none)."""
    return [read() for _wid, _source, read in _entries(text, source=source, cached=cached, optional=optional)]


def _entries(text: str, *, source: str, cached: bool = False, optional: bool = False
             ) -> list[tuple[str, str, Callable[[], Wager]]]:
    """Each wager of a data file as (id, file, a function that reads it once)."""
    data = _read_toml(text, source=source, cached=cached)
    entries = data.get("wager", [])
    if not entries and not optional:
        raise ExactOddsError(f"{source}: no [[wager]] entries (or [[paytable]] entries for wagers of the catalogue)")
    read: dict[str, Wager] = {}
    readers: dict[str, Callable[[], Wager]] = {}
    out: list[tuple[str, str, Callable[[], Wager]]] = []
    for i, e in enumerate(entries):
        wid = _id(e, "id", f"{source}: wager #{i + 1}")
        if wid in readers:
            raise ExactOddsError(f"{source}: wager {wid!r}: duplicate id (first defined in {source})")
        earlier = list(readers)

        def reader(e: dict[str, Any] = e, wid: str = wid, n: int = i + 1, earlier: list[str] = earlier) -> Wager:
            if wid not in read:
                if "combine" in e:
                    read[wid] = _combine(e, [readers[x]() for x in earlier if x in e["combine"]], source=source, n=n)
                else:
                    read[wid] = _parse_wager(e, source=source, n=n)
            return read[wid]

        readers[wid] = reader
        out.append((wid, source, reader))
    return out


def _combine(entry: dict[str, Any], earlier: list[Wager], *, source: str, n: int) -> Wager:
    """A wager of one unit on each of several component wagers, settled together.

    Each line is one combination of the components' results; its net is the
    sum of their nets divided by the units wagered, so figures stay per unit.
    """
    wid = _id(entry, "id", f"{source}: wager #{n}")
    where = f"{source}: wager {wid!r}"
    if extra := set(entry) - {"id", "name", "section", "game", "reading", "combine"}:
        raise ExactOddsError(f"{where}: unknown key {sorted(extra)[0]!r} beside 'combine'")
    ids = entry["combine"]
    by_id = {w.id: w for w in earlier}
    parts = []
    for cid in ids:
        if cid not in by_id:
            raise ExactOddsError(f"{where}: combine names {cid!r}, not defined earlier in this file")
        parts.append(by_id[cid])
    tables = [t for t in parts[0].paytables if t in parts[1].paytables]
    if not tables:
        raise ExactOddsError(f"{where}: {ids[0]!r} and {ids[1]!r} share no paytable")
    for name in sorted(set(parts[0].parameters) & set(parts[1].parameters)):   # one name reads one value in both
        a, b = parts[0].parameters[name], parts[1].parameters[name]
        if a != b or type(a) is not type(b):
            raise ExactOddsError(f"{where}: {ids[0]!r} and {ids[1]!r} both have parameter {name!r}, with different "
                                 f"values ({a!r} and {b!r}): their conditions would read one of them; rename it in one")
    params = {**parts[0].parameters, **parts[1].parameters}

    def results(w: Wager) -> list[tuple[str, str, str]]:
        lose = "not (" + " or ".join(f"({o.condition.text})" for o in w.outcomes) + ")"
        return [(o.id, o.name, o.condition.text) for o in w.outcomes] + [("lose", "no win", lose)]

    outcomes: list[Outcome] = []
    pays: dict[str, dict[str, Pay]] = {t: {} for t in tables}
    lose_pay = Pay("lose", "lose", Fraction(-1))
    for a_id, a_name, a_when in results(parts[0]):
        for b_id, b_name, b_when in results(parts[1]):
            if a_id == b_id == "lose":
                continue
            oid = f"{a_id}+{b_id}"
            name = f"{parts[0].name.split(' on ')[-1]}: {a_name}; {parts[1].name.split(' on ')[-1]}: {b_name}"
            cond = Condition.parse(f"({a_when}) and ({b_when})", where=f"{where}: outcome {oid!r}",
                                   parameters=params)
            outcomes.append(Outcome(oid, name, cond))
            for t in tables:
                pa = parts[0].paytables[t].pays.get(a_id, lose_pay)
                pb = parts[1].paytables[t].pays.get(b_id, lose_pay)
                pa = pa if pa.offered else lose_pay
                pb = pb if pb.offered else lose_pay
                pays[t][oid] = Pay(f"{pa.text} + {pb.text}", "combined", (pa.net + pb.net) / 2)
    paytables = {
        t: Paytable(t, " + ".join(dict.fromkeys(p.paytables[t].section for p in parts)), pays[t])
        for t in tables
    }
    wager = Wager(
        id=wid, name=_text(entry, "name", where), section=_text(entry, "section", where),
        game=str(entry.get("game", parts[0].game)), outcomes=tuple(outcomes), paytables=paytables,
        source=source, reading=entry.get("reading"), parameters=params,
    )
    return wager


def _text(entry: Mapping[str, Any], key: str, where: str) -> str:
    """A name, id, section or reading: text with no control, format (bidirectional) or line-separating
    characters, which would reach every table and certificate that shows it."""
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ExactOddsError(f"{where}: missing or empty {key!r}")
    value = " ".join(value.split()) if key == "reading" else value.strip()
    for i, ch in enumerate(value):
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"):
            raise ExactOddsError(f"{where}: {key!r} holds the invisible or control character U+{ord(ch):04X} "
                                 f"at position {i + 1}")
    return value


#: The characters of an id of a wager, paytable or reading (ASCII letters, digits and - _ . $): it is named on
#: the command line as WAGER[:PAYTABLE][=STAKE] (comma-separated in places) and in the live page's addresses.
#: An allowlist, so that what the rule lets through is what its message says (the schema's pattern is the same).
ID_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.$")
#: The longest id, in characters (the catalogue's longest is 44).
MAX_ID = 64


def check_id(value: str, *, where: str) -> str:
    """``value`` as an id (:data:`ID_CHARACTERS`, at most :data:`MAX_ID` long), or a one-line error that
    begins with ``where`` (what names it: ``--id``, or a file's wager and key).

    >>> check_id("8-to-1", where="--id")
    '8-to-1'
    >>> check_id("a+b", where="--id")
    Traceback (most recent call last):
    ...
    exactodds.errors.ExactOddsError: --id 'a+b' holds '+' at position 2, which the command line (WAGER:PAYTABLE=STAKE) or the live page's addresses cannot name: use ASCII letters, digits and - _ . $
    """
    shown = repr(value) if len(value) <= 40 else repr(value[:40]) + "…"
    if not value:
        raise ExactOddsError(f"{where}: an empty id")
    if len(value) > MAX_ID:
        raise ExactOddsError(f"{where} {shown} is {len(value):,} characters long; an id has at most {MAX_ID}")
    for i, ch in enumerate(value):
        if ch not in ID_CHARACTERS:
            raise ExactOddsError(f"{where} {shown} holds {ch!r} at position {i + 1}, which the command line "
                                 "(WAGER:PAYTABLE=STAKE) or the live page's addresses cannot name: use ASCII letters, "
                                 "digits and - _ . $")
    return value


def _id(entry: Mapping[str, Any], key: str, where: str) -> str:
    """An id (:func:`_text`) that the command line and the live page's addresses can name (:func:`check_id`)."""
    return check_id(_text(entry, key, where), where=f"{where}: {key!r}")


def _parse_wager(entry: dict[str, Any], *, source: str, n: int) -> Wager:
    """One ``[[wager]]`` of a file the schema has passed: its outcomes, paytables and readings checked
    as the language and the pays require (conditions, pays, ids the command line can name)."""
    wid = _id(entry, "id", f"{source}: wager #{n}")
    where = f"{source}: wager {wid!r}"
    settle = entry.get("settle", "exclusive")
    params = {k: tuple(v) if isinstance(v, list) else v for k, v in entry.get("parameters", {}).items()}
    _check_parameters(wid, params)

    outcomes: list[Outcome] = []
    raw_outcomes = entry.get("outcome")
    if not raw_outcomes:
        raise ExactOddsError(f"{where}: no [[wager.outcome]] entries")
    for i, o in enumerate(raw_outcomes):
        oid = _text(o, "id", f"{where}: outcome #{i + 1}")
        owhere = f"{where}: outcome {oid!r}"
        if any(x.id == oid for x in outcomes):
            raise ExactOddsError(f"{owhere}: duplicate outcome id")
        outcomes.append(Outcome(oid, _text(o, "name", owhere),
                                Condition.parse(o["when"], where=owhere, parameters=params)))
    ids = {o.id for o in outcomes}

    paytables: dict[str, Paytable] = {}
    raw_tables = entry.get("paytable")
    if not raw_tables:
        raise ExactOddsError(f"{where}: no [[wager.paytable]] entries")
    for i, t in enumerate(raw_tables):
        table = _parse_paytable(t, outcomes, where=where, n=i + 1, default_section=str(entry.get("section", "")))
        if table.id.lower() in (t.lower() for t in paytables):
            raise ExactOddsError(f"{where}: paytable {table.id!r}: duplicate paytable id (ids are read in any case)")
        paytables[table.id] = table

    alternatives: dict[str, Alternative] = {}
    for i, a in enumerate(entry.get("alternative", [])):
        aid = _id(a, "id", f"{where}: alternative #{i + 1}")
        awhere = f"{where}: alternative {aid!r}"
        if aid in alternatives or aid == "regulation":
            raise ExactOddsError(f"{awhere}: " + ("duplicate alternative id" if aid in alternatives else
                                 "the id 'regulation' names the regulation's own reading; choose another"))
        when = a.get("when", {})
        alt_basis = a.get("award_basis")
        raw_alt_pays = a.get("pays", {})
        rank_meters = _rank_meters(a.get("rank_meters", {}), paytables, awhere)
        if not when and alt_basis is None and not raw_alt_pays and not rank_meters:
            raise ExactOddsError(f"{awhere}: give 'when' (outcome id -> condition), 'pays', 'award_basis' "
                                 "or 'rank_meters'")
        implausible = a.get("implausible")
        if implausible is not None and not implausible.strip():
            raise ExactOddsError(f"{awhere}: 'implausible' must be a sentence saying why")
        alt_pays: dict[str, dict[str, Pay]] = {}
        for tid, changes in raw_alt_pays.items():
            if tid not in paytables:
                raise ExactOddsError(f"{awhere}: pays names unknown paytable {tid!r}")
            for oid, text in changes.items():
                if oid not in ids:
                    raise ExactOddsError(f"{awhere}: pays names unknown outcome {oid!r}")
                try:
                    alt_pays.setdefault(tid, {})[oid] = parse_pay(
                        text, denomination=paytables[tid].denomination, award_basis=paytables[tid].award_basis)
                except ExactOddsError as exc:
                    raise ExactOddsError(f"{awhere}: paytable {tid!r}: outcome {oid!r}: {exc}") from None
        conds = {}
        for oid, text in when.items():
            if oid not in ids:
                raise ExactOddsError(f"{awhere}: names unknown outcome {oid!r}")
            conds[oid] = Condition.parse(text, where=f"{awhere}: outcome {oid!r}", parameters=params)
        alternatives[aid] = Alternative(aid, _text(a, "reading", awhere), conds, alt_basis, alt_pays,
                                        implausible, rank_meters)

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
        parameters=params,
        follows=_follows(entry.get("follows"), where),
    )
    try:
        wager.kind
    except ExactOddsError as exc:
        raise ExactOddsError(f"{where}: {exc}") from None
    return wager
