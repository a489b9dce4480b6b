"""The state of a study: the exact totals of its finished shoes, kept in a file as it runs.

Each shoe of a study is shuffled from ``(seed, shoe number)`` and every total is an
exact sum (integers and Fractions), so the state of a run is just which shoes are
done and their totals. Written atomically every few seconds, it resumes a run that
was killed; the states of two parts of a study (shoes 0–N and N–2N) add up to the
whole.

A state file is JSON: what the study is (``study``: the wagers and a digest of their
definitions, the shoe, the seed, the count...), the shoes it covers, the shoes done,
the totals, and a SHA-256 digest over all of it. A check of a simulator's records
(``check-sim --checkpoint``) keeps its state the same way, its unit a file of the
record set rather than a shoe (:data:`KINDS`), with what it needs beside (``extra``:
the files' fingerprints, the file part-counted). A file whose digest does not match
(an edited total) is refused, and so is one made by another study or another
exactodds version, in one line naming what differs. The digest finds an edit, not a
forgery: whoever can write the file can write a digest.

>>> s = State({"seed": 1}, first=0, stop=10, done=[(0, 4)], totals=[])
>>> s.remaining(batch=4)
[(4, 8), (8, 10)]
>>> State.from_text(s.to_text(), where="x.json").done
[(0, 4)]
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Any

from exactodds._version import __version__
from exactodds.errors import ExactOddsError, read_json
from exactodds.files import write_atomically
from exactodds.wagers.catalogue import Paytable, Wager

__all__ = ["State", "FORMAT", "KINDS", "CHECKPOINT_EVERY", "load_state", "save_state", "covered",
           "first_difference", "definition", "state_kind"]

#: The first key of every state file: what it is, and the layout's version.
FORMAT = "exactodds exposure state 1"
#: The kinds of state, each with its ``format`` and the unit its ranges count.
KINDS = {"exposure": (FORMAT, "shoe"), "check-sim": ("exactodds check-sim state 1", "file")}
_RUN = {"exposure": "an exposure run", "check-sim": "a check-sim run"}
#: Seconds between two writes of a run's checkpoint (and one more at the end).
CHECKPOINT_EVERY = 5.0


def covered(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Half-open ranges of shoes, sorted and joined where they touch.

    >>> covered([(4, 6), (0, 2), (2, 3)])
    [(0, 3), (4, 6)]
    """
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


@dataclass
class State:
    """A study (``study``: everything that decides its numbers), shoes ``first`` to ``stop - 1`` of it,
    the ranges of them ``done``, and the totals of those (JSON, one entry per wager)."""

    study: dict[str, Any]
    first: int
    stop: int
    done: list[tuple[int, int]] = field(default_factory=list)
    totals: list[Any] = field(default_factory=list)
    version: str = __version__
    kind: str = "exposure"
    extra: dict[str, Any] = field(default_factory=dict)      # what else a kind keeps (not for exposure)

    @property
    def shoes_done(self) -> int:
        return sum(b - a for a, b in self.done)

    @property
    def finished(self) -> bool:
        return self.done == [(self.first, self.stop)]

    def remaining(self, *, batch: int) -> list[tuple[int, int]]:
        """The shoes not yet done, in batches of at most ``batch`` shoes."""
        out, at = [], self.first
        for a, b in [*self.done, (self.stop, self.stop)]:
            out += [(x, min(x + batch, a)) for x in range(at, a, batch)]
            at = b
        return out

    def _body(self) -> dict[str, Any]:
        form, unit = KINDS[self.kind]
        return {"format": form, "version": self.version, "study": self.study, f"first_{unit}": self.first,
                f"stop_{unit}": self.stop, "done": [list(d) for d in self.done], "totals": self.totals, **self.extra}

    def to_text(self) -> str:
        body = self._body()
        return json.dumps({**body, "digest": _digest(body)}, sort_keys=True, separators=(",", ":")) + "\n"

    @classmethod
    def from_text(cls, text: str, *, where: str, kind: str | None = "exposure") -> State:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ExactOddsError(f"{where}: not an exactodds state file ({exc})") from None
        return cls._from(data, where=where, kind=kind)

    @classmethod
    def _from(cls, data: Any, *, where: str, kind: str | None = "exposure") -> State:
        """The state in ``data``, of ``kind`` (None: of any kind)."""
        found = next((k for k, (form, _) in KINDS.items() if isinstance(data, dict) and data.get("format") == form),
                     None)
        if found is None:
            forms = [KINDS[kind][0]] if kind is not None else [form for form, _ in KINDS.values()]
            raise ExactOddsError(f"{where}: not an exactodds {kind + ' ' if kind else ''}state file (no \"format\": "
                                 f"{' or '.join(repr(form) for form in forms)})")
        if kind is not None and found != kind:
            raise ExactOddsError(f"{where}: the state of {_RUN[found]}, not of {_RUN[kind]}: states of different "
                                 "kinds neither resume nor merge one another")
        body = {k: v for k, v in data.items() if k != "digest"}
        if data.get("digest") != _digest(body):
            raise ExactOddsError(f"{where}: its totals do not match its digest (the file was edited or damaged); "
                                 "it is not used")
        if data.get("version") != __version__:
            raise ExactOddsError(f"{where}: made by exactodds {data.get('version')}, this is {__version__}; "
                                 "a state is resumed or merged by the version that made it")
        unit = KINDS[found][1]
        known = {"format", "version", "study", f"first_{unit}", f"stop_{unit}", "done", "totals", "digest"}
        try:
            state = cls(data["study"], int(data[f"first_{unit}"]), int(data[f"stop_{unit}"]),
                        [(int(a), int(b)) for a, b in data["done"]], list(data["totals"]), data["version"], found,
                        {k: v for k, v in data.items() if k not in known})
        except (KeyError, TypeError, ValueError) as exc:
            raise ExactOddsError(f"{where}: not an exactodds {found} state file ({exc!r} missing or "
                                 "malformed)") from None
        if covered(state.done) != state.done or any(a < state.first or b > state.stop for a, b in state.done):
            raise ExactOddsError(f"{where}: its {unit}s done lie outside {unit}s {state.first}–{state.stop - 1}")
        return state


def _digest(body: dict[str, Any]) -> str:
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def load_state(path: str | os.PathLike[str], *, option: str, kind: str | None = "exposure") -> State:
    """The state in ``path`` (checked against its digest and this version), or a one-line error naming ``option``.
    ``kind``: the kind of state expected (:data:`KINDS`; None: any, :attr:`State.kind` says which)."""
    where = f"{option} {path}" if option else str(path)
    try:
        data = read_json(os.fspath(path), what="an exactodds state file")
    except ExactOddsError as exc:
        raise ExactOddsError(f"{option} {exc}" if option else str(exc)) from None
    return State._from(data, where=where, kind=kind)


def state_kind(path: str | os.PathLike[str]) -> str:
    """Which kind of state ``path`` holds (``exposure`` or ``check-sim``), checked whole; one line if none."""
    return load_state(path, option="", kind=None).kind


def save_state(path: str | os.PathLike[str], state: State, *, option: str) -> None:
    """Write ``state`` to ``path`` whole or not at all (a temporary file renamed into place)."""
    write_atomically(path, state.to_text(), option=option)


def definition(w: Wager, t: Paytable) -> str:
    """A digest of what a wager and its paytable pay on: its outcomes' conditions, its reading and settlement,
    the pays (a changed data file changes it; where the file lies does not)."""
    text = json.dumps({"outcomes": [[o.id, o.condition.text] for o in w.outcomes], "settle": w.settle,
                       "reading": w.reading_id, "parameters": {k: repr(v) for k, v in sorted(w.parameters.items())},
                       "pays": {k: repr(p) for k, p in sorted(t.pays.items())}, "denomination": str(t.denomination),
                       "award_basis": t.award_basis}, sort_keys=True)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:32]


def first_difference(stored: dict[str, Any], now: dict[str, Any]) -> str | None:
    """The first key of a study whose value differs between two of them, said as ``key: stored, now``; None if equal."""
    for key in [*now, *(k for k in stored if k not in now)]:
        if stored.get(key) != now.get(key):
            return f"{key}: {_short(stored.get(key))} there, {_short(now.get(key))} here"
    return None


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."
