"""check-sim's state: the exact tallies of a record set's finished files, kept in a file as a check goes.

A check of a large record set (``check-sim RECORDS... --checkpoint FILE``) keeps, through
:mod:`exactodds.simulation.checkpoint` (atomic writes, a digest, the version), the exact tallies
(:class:`~exactodds.simulation.checksim.Tally`) of the files it finished and of the file it is
reading, to the last chunk of it counted. The same command with the same FILE after a kill, a
crash or Ctrl-C resumes there and prints the bytes of a check never stopped; the finished states
of two parts of a record set (its first shards on one machine, the rest on another) merge into
the check of the whole (:func:`merge_checks`).

The unit of resume is a file, and within the file being read, a chunk (a known count of them:
records ``0`` to some record). A chunk's boundaries are decided by the text read before it, so a
resumed file is read again from its start and its chunks counted before the stop are skipped,
parsed but not counted: reading is about a tenth of the cost of counting (300,000 rounds, every
wager of the catalogue: 0.3 s to read, 2.8 s to count), and a seek to a byte offset is impossible in a compressed stream and would move the
boundaries, after which the within-shoe tests' float sums would no longer add up in the same order.
A file's tallies are the same however the run was stopped; files add up exactly (integers,
Fractions, and the within-shoe sums as Fractions), so the order and grouping of files changes
nothing but the order of the first few problems listed, which follows the order of the sources.

Changed input is found by a fingerprint of each file counted, taken as its reading begins: its size,
its modification time (nanoseconds) and a SHA-256 digest of its first and last 64 KiB. Any rewrite,
append or truncation changes the size or the time; a copy that keeps both (``cp -p``, ``rsync -t``)
of another file is found by the digest of its ends, where headers, the first shoes and the last ones
differ. A digest of every byte would cost a second reading of everything counted at each resume;
the ends are read in microseconds. A file is also checked after it is read: one changed during its
reading is an error. Parts merge when none holds a file another holds (the same size and ends:
the same content wherever it lies and whatever it is called).
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import os
import time
import zlib
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from exactodds.analyses.pricing import table_signature
from exactodds.errors import ExactOddsError
from exactodds.simulation.checkpoint import (
    CHECKPOINT_EVERY,
    State,
    definition,
    first_difference,
    load_state,
    save_state,
)
from exactodds.simulation.checksim import CheckResult, RuleBreaks, Tally, result_from_tally
from exactodds.simulation.roundclasses import RoundHistogram, Sparse
from exactodds.simulation.withinshoe import Carry, WithinShoe
from exactodds.wagers.catalogue import Catalogue, Wager, load_catalogue

__all__ = ["Checkpoint", "merge_checks", "tally_to_json", "tally_from_json", "fingerprint", "KIND"]

#: The kind of state (:data:`exactodds.simulation.checkpoint.KINDS`).
KIND = "check-sim"
#: Bytes read at each end of a file for its fingerprint.
ENDS = 1 << 16
_DTYPES = ("int16", "int32", "int64")
#: Raised by a state whose digest was made anew over malformed tallies.
_MALFORMED = (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError, AttributeError, zlib.error,
              binascii.Error)


def fingerprint(path: str) -> dict[str, Any]:
    """``{"path", "size", "mtime_ns", "ends"}``: what identifies a file's content here (see the module)."""
    try:
        st = os.stat(path)
        with open(path, "rb") as f:
            head = f.read(ENDS)
            f.seek(max(st.st_size - ENDS, len(head)))
            tail = f.read(ENDS)
    except OSError as exc:
        raise ExactOddsError(f"{path}: cannot read ({exc.strerror or exc})") from None
    ends = "sha256:" + hashlib.sha256(head + b"\0" + tail).hexdigest()
    return {"path": path, "size": st.st_size, "mtime_ns": st.st_mtime_ns, "ends": ends}


def _changed(then: dict[str, Any], now: dict[str, Any]) -> str | None:
    """How a file differs from its fingerprint, in words; None if it does not."""
    for key, what in (("size", "bytes"), ("mtime_ns", "modified (ns)"), ("ends", "first and last 64 KiB")):
        if then.get(key) != now.get(key):
            return f"{what}: {then.get(key)} then, {now.get(key)} now"
    return None


# -- a tally as JSON, exactly ------------------------------------------------------

def _array(a: np.ndarray) -> dict[str, Any]:
    return {"dtype": str(a.dtype), "shape": list(a.shape),
            "zlib": base64.b64encode(zlib.compress(np.ascontiguousarray(a).tobytes(), 1)).decode()}


def _from_array(d: dict[str, Any]) -> np.ndarray:
    if d["dtype"] not in _DTYPES:
        raise ValueError(f"dtype {d['dtype']!r}")
    raw = zlib.decompress(base64.b64decode(d["zlib"], validate=True))
    return np.frombuffer(raw, dtype=np.dtype(d["dtype"])).reshape([int(n) for n in d["shape"]]).copy()


def _sparse(s: Sparse) -> dict[str, Any]:
    s.compact()
    return {"keys": _array(s.keys), "counts": _array(s.counts), "rounds": _array(s.rounds)}


def _from_sparse(d: dict[str, Any]) -> Sparse:
    s = Sparse(_from_array(d["keys"]), _from_array(d["counts"]), _from_array(d["rounds"]).astype(np.int16))
    if not len(s.keys) == len(s.counts) == len(s.rounds):
        raise ValueError("a sparse histogram's keys, counts and rounds differ in number")
    s._size = len(s.keys)
    return s


def _number(x: float | Fraction) -> float | str:
    """A float as itself (JSON holds it exactly), an exact sum as ``"n/d"``: each stays what it was."""
    return str(x) if isinstance(x, Fraction) else float(x)


def _from_number(x: Any) -> float | Fraction:
    if isinstance(x, str):
        return Fraction(x)
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"not a number: {x!r}")
    return float(x)


def tally_to_json(t: Tally) -> dict[str, Any]:
    """Everything a check's tally holds, as JSON that reads back exactly (:func:`tally_from_json`): counts as
    integers, arrays as compressed bytes, sums of amounts as fractions, the within-shoe sums as they are."""
    h = t.histogram
    c = t.carry
    return {
        "rounds": t.rounds,
        "histogram": {"values": None if h.values is None else _array(h.values),
                      "initial": None if h.initial is None else _array(h.initial), "flagged": _sparse(h.flagged),
                      "other": {repr(sig): _sparse(s) for sig, s in h.other.items()}},
        "counts": {k: v.tolist() for k, v in t.counts.items()},
        "reported": {k: v.tolist() for k, v in t.reported.items()},
        "mismatches": t.mismatches, "first_mismatch": {k: list(v) for k, v in t.first_mismatch.items()},
        "paid": {k: str(v) for k, v in t.paid.items()}, "staked": {k: str(v) for k, v in t.staked.items()},
        "mispaid": t.mispaid, "first_mispaid": {k: list(v) for k, v in t.first_mispaid.items()},
        "invalid": [list(x) for x in t.invalid], "invalid_count": t.invalid_count,
        "columns": None if t.columns is None else sorted(t.columns),
        "rule_breaks": {"count": t.rule_breaks.count, "first": [list(x) for x in t.rule_breaks.first],
                        "rules": t.rule_breaks.rules},
        "cards": t.cards.tolist(),
        "within": {"shoes": t.within.shoes, "edges": [list(e) for e in t.within.edges],
                   "sums": {k: [_number(x) for x in row] for k, row in t.within.sums.items()}},
        "carry": {"shoe": c.shoe, "seen": c.seen.tolist(), "last_card": c.last_card, "last_outcome": c.last_outcome,
                  "serial_left": c.serial_left, "first": c.first},
    }


def tally_from_json(d: dict[str, Any], signatures: dict[str, tuple[Any, ...]]) -> Tally:
    """The tally :func:`tally_to_json` wrote; ``signatures``: the table signatures of the wagers checked, by
    their ``repr``. A malformed one raises KeyError, TypeError or ValueError (the caller names the file)."""
    h, w, c, rb = d["histogram"], d["within"], d["carry"], d["rule_breaks"]
    histogram = RoundHistogram(None if h["values"] is None else _from_array(h["values"]),
                               None if h["initial"] is None else _from_array(h["initial"]),
                               _from_sparse(h["flagged"]),
                               {signatures[k]: _from_sparse(v) for k, v in h["other"].items()})
    cards = np.asarray(d["cards"], dtype=np.int64)
    seen = np.asarray(c["seen"], dtype=np.int64)
    if cards.shape != (52,) or seen.shape != (52,):
        raise ValueError("a count of the 52 cards has another length")
    return Tally(
        rounds=int(d["rounds"]), histogram=histogram,
        counts={k: np.asarray(v, dtype=np.int64) for k, v in d["counts"].items()},
        reported={k: np.asarray(v, dtype=np.int64) for k, v in d["reported"].items()},
        mismatches={k: int(v) for k, v in d["mismatches"].items()},
        first_mismatch={k: (str(a), int(b), str(x), str(y)) for k, (a, b, x, y) in d["first_mismatch"].items()},
        paid={k: Fraction(v) for k, v in d["paid"].items()}, staked={k: Fraction(v) for k, v in d["staked"].items()},
        mispaid={k: int(v) for k, v in d["mispaid"].items()},
        first_mispaid={k: (str(a), int(b), str(x), str(y), str(z))
                       for k, (a, b, x, y, z) in d["first_mispaid"].items()},
        invalid=[(str(a), int(b), str(x)) for a, b, x in d["invalid"]], invalid_count=int(d["invalid_count"]),
        columns=None if d["columns"] is None else frozenset(str(x) for x in d["columns"]),
        rule_breaks=RuleBreaks(int(rb["count"]), [(str(a), int(b), str(x), str(y)) for a, b, x, y in rb["first"]],
                               {str(k): int(v) for k, v in rb["rules"].items()}),
        cards=cards,
        within=WithinShoe(int(w["shoes"]), {str(k): [_from_number(x) for x in row] for k, row in w["sums"].items()},
                          [(str(a), str(b), str(x)) for a, b, x in w["edges"]]),
        carry=Carry(c["shoe"], seen, int(c["last_card"]), int(c["last_outcome"]), int(c["serial_left"]), c["first"]),
    )


# -- the study a state belongs to --------------------------------------------------

def _definitions(pairs: Sequence[tuple[Wager, str]], catalogue: Catalogue, wagers_given: bool) -> list[str]:
    """What the wagers checked pay on: those chosen (``--wager``), else every one of the catalogue (a column of
    the records may name any)."""
    chosen = pairs if wagers_given else [(w, t) for w in catalogue.values() for t in w.paytables]
    return [definition(w, w.paytables[t]) for w, t in chosen]


def _study(pairs: Sequence[tuple[Wager, str]], catalogue: Catalogue, settings: dict[str, Any]) -> dict[str, Any]:
    """Everything that decides a check's numbers but the records: the settings of its command line and the
    wagers with what they pay on (a changed ``--paytables`` file changes it)."""
    return {"wagers": [f"{w.id}:{t}" for w, t in pairs], **settings,
            "definitions": _definitions(pairs, catalogue, settings["wagers_given"])}


def _signatures(pairs: Sequence[tuple[Wager, str]]) -> dict[str, tuple[Any, ...]]:
    return {repr(sig): sig for sig in (table_signature(w) for w, _ in pairs)}


def _tallies(state: State, pairs: Sequence[tuple[Wager, str]], *, where: str) -> tuple[Tally, tuple[Tally, int] | None]:
    """The tally of a state's finished files, and of the file it was reading with its chunks counted (if any)."""
    signatures = _signatures(pairs)
    try:
        if len(state.totals) != 1:
            raise ValueError(f"{len(state.totals)} totals")
        total = tally_from_json(state.totals[0], signatures)
        current = state.extra.get("current")
        part = None
        if current is not None:
            part = (tally_from_json(current["tally"], signatures), int(current["chunks"]))
            if int(current["file"]) != (state.done[0][1] if state.done else 0) or part[1] < 1:
                raise ValueError("the file being read is not the first one not finished")
    except _MALFORMED as exc:
        raise ExactOddsError(f"{where}: its tallies are malformed ({exc!r})") from None
    return total, part


# -- keeping a check's state as it goes ------------------------------------------

class Checkpoint:
    """A check's state in the file ``path`` (``check-sim --checkpoint``), written atomically at most every
    ``every`` seconds (less often if a write is slow: at most a twentieth of the time goes to writing; 0: after
    every chunk) and when the check ends or is stopped (unless the total is half-changed then: the file keeps the
    write before). Pass it to :func:`~exactodds.simulation.checksim.check_files`."""

    def __init__(self, path: str | os.PathLike[str], *, every: float = CHECKPOINT_EVERY):
        self.path = os.fspath(path)
        self.every = every
        self.state: State | None = None
        self.files: list[dict[str, Any]] = []
        self.total = Tally()
        self.current: tuple[int, Tally, int] | None = None       # the file being read, its tally, chunks counted
        self.whole = True                                        # the total is not half-changed: a write may be made
        self.unsaved = False
        self.last = time.monotonic()
        self.cost = 0.0                                          # seconds the last write took
        self.reading = 0

    @property
    def option(self) -> str:
        return f"--checkpoint {self.path}"

    def begin(self, *, specs: list[str], files: list[str], pairs: list[tuple[Wager, str]], catalogue: Catalogue,
              settings: dict[str, Any]) -> None:
        """Make the state of a check, or read the one of this very check in the file (refused in one line, and
        left as it is, if another command line, another version or other records made it)."""
        study = _study(pairs, catalogue, settings)
        self.files = [{"path": f} for f in files]
        fresh = State(study, 0, len(files), [], [tally_to_json(Tally())], kind=KIND,
                      extra={"sources": list(specs), "files": self.files, "current": None, "pairs": []})
        if not os.path.exists(self.path):
            self.state = fresh
            return
        stored = load_state(self.path, option="--checkpoint", kind=KIND)
        differs = first_difference(stored.study, study)
        theirs = stored.extra.get("files")
        if not (isinstance(theirs, list) and all(isinstance(f, dict) and isinstance(f.get("path"), str)
                                                 for f in theirs)):
            raise ExactOddsError(f"{self.option}: its list of files is malformed; it is not used")
        if differs is None and [f["path"] for f in theirs] != files:
            differs = first_difference({"records": [f["path"] for f in theirs]}, {"records": files})
        if differs is not None:
            raise ExactOddsError(f"{self.option}: made by another command line ({differs}); name another file, or "
                                 "run the command that made it")
        for then in theirs:
            if "size" in then:                           # a file counted, in full or in part
                how = _changed(then, fingerprint(then["path"]))
                if how is not None:
                    raise ExactOddsError(f"{self.option}: {then['path']} changed since it was counted ({how}); the "
                                         "checkpoint is not used: name another file to check the records as they are")
        self.state = stored
        self.files = theirs

    def resumed(self, pairs: list[tuple[Wager, str]]) -> tuple[Tally, int, tuple[Tally, int] | None]:
        """(the tally of the files finished, the first file not finished, the tally of its chunks counted and
        how many they are, or None); ``pairs``: every wager checked, those of the records' columns added."""
        assert self.state is not None
        self.state.extra["pairs"] = [f"{w.id}:{t}" for w, t in pairs]
        self.total, part = _tallies(self.state, pairs, where=self.option)
        start = self.state.done[0][1] if self.state.done else 0
        self.current = None if part is None else (start, *part)
        return self.total, start, part

    def opening(self, file: int) -> None:
        """File ``file`` is about to be read: its fingerprint, unless it was taken when it was begun before."""
        self.reading = file
        if "size" not in self.files[file]:
            self.files[file] = fingerprint(self.files[file]["path"])

    def counted(self, current: Tally, chunks: int) -> None:
        """The file being read has ``chunks`` chunks counted, in ``current``: a copy is kept (a few ms), so that
        a stop while the next chunk is counted, which is most of the time, writes this one."""
        self.current = (self.reading, copy.deepcopy(current), chunks)
        self._whole()

    def adding(self) -> None:
        """The total is about to change: no write until it is whole again."""
        self.whole = False

    def finished(self, file: int, total: Tally) -> None:
        """File ``file`` is counted and added to ``total``; it must not have changed while it was read."""
        then = self.files[file]
        now = fingerprint(then["path"])
        if now["size"] != then["size"] or now["mtime_ns"] != then["mtime_ns"]:
            raise ExactOddsError(f"{then['path']}: changed while it was read ({_changed(then, now)}); check it "
                                 "again when it is written")
        assert self.state is not None
        self.state.done = [(0, file + 1)]
        self.total, self.current = total, None
        self._whole()

    def _whole(self) -> None:
        self.whole = self.unsaved = True
        if not self.every or time.monotonic() - self.last >= max(self.every, 20 * self.cost):
            self.save()

    def save(self) -> None:
        """Write what is counted, whole, in place of the file's last state."""
        assert self.state is not None
        started = time.monotonic()
        self.state.totals = [tally_to_json(self.total)]
        self.state.extra["current"] = None if self.current is None else {
            "file": self.current[0], "chunks": self.current[2], "tally": tally_to_json(self.current[1])}
        save_state(self.path, self.state, option="--checkpoint")
        self.last = time.monotonic()
        self.cost = self.last - started
        self.unsaved = False

    def close(self) -> None:
        """The check ended, was stopped or failed: the last write of what is whole."""
        if self.state is not None and self.whole and self.unsaved:
            self.save()


# -- parts of a record set, merged ---------------------------------------------------

def merge_checks(paths: Sequence[str | os.PathLike[str]], *, catalogue: Catalogue | None = None) -> CheckResult:
    """The check that the finished parts in state files ``paths`` (``check-sim --checkpoint``) make together:
    the bytes one check over all their records prints, their sources in the order of ``paths``. States of
    other kinds, of another check (other wagers, decks, settings), unfinished, or holding the same file as
    another, are refused in one line."""
    if not paths:
        raise ExactOddsError("merge: name the state files of the parts (check-sim --checkpoint FILE)")
    states = [(str(p), load_state(p, option="", kind=KIND)) for p in paths]
    (first_path, base), *others = states
    for path, s in states:
        if not s.done == [(0, s.stop)]:
            raise ExactOddsError(f"{path}: unfinished ({s.done[0][1] if s.done else 0:,} of {s.stop:,} files "
                                 "counted); resume it with the command that made it first")
    for path, s in others:
        differs = first_difference(base.study, s.study) or first_difference(
            {"wagers checked": base.extra.get("pairs")}, {"wagers checked": s.extra.get("pairs")})
        if differs is not None:
            raise ExactOddsError(f"{path}: a check of other wagers, decks or settings than {first_path} ({differs}); "
                                 "parts merge when made by one command line over other records")
    held: dict[tuple[Any, Any], tuple[str, str]] = {}
    for path, s in states:
        for f in s.extra.get("files", []):
            key = (f.get("size"), f.get("ends"))
            if key in held:
                other, name = held[key]
                raise ExactOddsError(f"{other} and {path} both hold the records of {name}"
                                     + (f" (as {f.get('path')})" if f.get("path") != name else "")
                                     + ": they would count twice")
            held[key] = (path, f.get("path"))
    study = base.study
    cat = catalogue if catalogue is not None else load_catalogue()
    try:
        pairs = [(cat[w], t) for w, _, t in (name.partition(":") for name in base.extra["pairs"])]
        defined = _definitions([(cat[w], t) for w, _, t in (n.partition(":") for n in study["wagers"])], cat,
                               study["wagers_given"])
    except (KeyError, TypeError, AttributeError) as exc:
        raise ExactOddsError(f"{first_path}: names a wager not defined here ({exc!r}); give the same --paytables "
                             "files") from None
    if defined != study["definitions"]:
        raise ExactOddsError(f"{first_path}: its wagers are not defined here as they were when it was made; give "
                             "the same --paytables files")
    total = Tally()
    for path, s in states:
        part, _ = _tallies(s, pairs, where=path)
        if total.columns is not None and part.columns != total.columns:
            raise ExactOddsError(f"{path}: settlement columns {', '.join(sorted(part.columns or ())) or 'none'}, "
                                 f"but {first_path} has {', '.join(sorted(total.columns)) or 'none'}")
        total.add(part)
    source = " ".join(src for _, s in states for src in s.extra.get("sources", []))
    if total.rounds == 0 and not total.rule_breaks.count:
        raise ExactOddsError(f"{source}: no valid rounds to check"
                             + (f" ({total.invalid_count:,} invalid)" if total.invalid_count else ""))
    return result_from_tally(total, pairs, decks=study["decks"], alpha=study["alpha"],
                             detect=None if study["detect"] is None else Fraction(study["detect"]),
                             validation=study["validation"], complete=not study["lenient"], source=source)
