"""One call from a shoe to priced wagers: :func:`analyze`.

>>> a = analyze(Shoe.decks(8), wagers=["tie"], paytables=["8-to-1"])
>>> [(r.wager.id, r.paytable.id, f"{float(r.house_edge):.4%}") for r in a]
[('tie', '8-to-1', '14.3596%')]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from exactodds.analyses.door import ROUTES, Door, check_route
from exactodds.analyses.given import Given, priced_given
from exactodds.analyses.pricing import WagerResult, check_wagers
from exactodds.errors import ExactOddsError, SuitsUnknown
from exactodds.game.shoe import Shoe
from exactodds.render.report import analysis_dict, analysis_report, outcome_rows, summary_report, summary_row
from exactodds.render.tables import Report, Results, counted, dataframe, render_report
from exactodds.wagers.catalogue import Catalogue, Paytable, Wager, did_you_mean, file_text, load_catalogue, read_text

__all__ = ["Analysis", "analyze", "select", "load_file", "load_text", "priced_pairs", "MAIN_WAGERS", "ROUTES"]

#: The main-game wagers `exactodds analyze` prices when none is named.
MAIN_WAGERS = (
    "banker", "player", "tie", "ez-banker", "commission-free-banker",
    "rising-phoenix-banker-commission-free",
)

@dataclass(frozen=True)
class Analysis(Results[WagerResult]):
    """Priced wagers for one shoe; shows itself as text, HTML or a DataFrame."""

    shoe: Shoe
    results: tuple[WagerResult, ...]
    route: str = "vector"
    skipped: tuple[str, ...] = ()        # WAGER:PAYTABLE that read suits, of a shoe whose suits are unknown
    given: Given | None = None           # the condition every table is priced given (analyze --given)

    @classmethod
    def made(cls, shoe: Shoe, results: tuple[WagerResult, ...], route: str) -> Analysis:
        """The same as ``Analysis(shoe, results, route)``, made faster (a frozen dataclass sets its fields one by
        one; the main game is priced in 0.04 ms)."""
        analysis = object.__new__(cls)
        fields = analysis.__dict__
        fields["shoe"], fields["results"], fields["route"], fields["skipped"], fields["given"] = \
            shoe, results, route, (), None
        return analysis

    def report(self, *, summary: bool = False) -> Report:
        """The outcome tables, or with ``summary`` one row per wager and paytable."""
        made = (summary_report if summary else analysis_report)(self.shoe, self.results, route=self.route)
        if not self.skipped and self.given is None:
            return made
        original, given, skipped = made.data, self.given, self.skipped

        def data() -> dict[str, Any]:                   # the JSON names what was left out, and what was given
            body = dict(original() if callable(original) else original or {})
            if given is not None:
                body["given"] = given.to_dict()
            if skipped:
                body["skipped"] = list(skipped)
            return body

        notes = (*made.notes, self.skipped_note()) if skipped else made.notes
        headline = {**made.headline, "Given": given.line()} if given is not None else made.headline
        return replace(made, data=data, notes=notes, headline=headline)

    def skipped_note(self) -> str:
        """What was left out, and why: one line."""
        return (f"Skipped {len(self.skipped)} wager paytable{'s' if len(self.skipped) != 1 else ''} that read "
                f"suits, since the shoe's suits are unknown (cards removed by rank only; give them with their "
                f"suits, e.g. 9h): {', '.join(self.skipped)}")

    def render(self, fmt: str, *, summary: bool = False) -> str:
        """The outcome tables, or with ``summary`` one row per wager and paytable, in ``fmt``."""
        return render_report(self.report(summary=summary), fmt)

    def to_dict(self) -> dict[str, Any]:
        body = analysis_dict(self.shoe, self.results, route=self.route)
        if self.given is not None:
            body["given"] = self.given.to_dict()
        return body

    def to_dataframe(self) -> Any:
        """One row per wager, paytable and outcome: floats beside exact twins (``probability`` and
        ``probability_exact``), the same columns as :meth:`WagerResult.to_dataframe`."""
        return dataframe([row for r in self.results for row in outcome_rows(r)])

    def summary(self) -> Any:
        """One row per wager and paytable: return, edge, variance, hit and push frequency (pandas)."""
        return dataframe([summary_row(r) for r in self.results])

    def __repr__(self) -> str:
        given = f", given {self.given.text}" if self.given is not None else ""
        return f"<Analysis of {counted(len(self.results), 'wager table')} on {self.shoe.describe()}{given}>"


def load_file(path: str | Path, *, check_all: bool = False) -> Catalogue:
    """Wagers from a user's own data file, checked exactly like the shipped ones: as data when
    read (keys, pays, conditions, which table reads each), and every outcome against every
    possible round of its exact table when the wager is first priced, or now with ``check_all``
    (which compiles the table of every wager in the file)."""
    return load_text(file_text(path), source=str(path), check_all=check_all)


def load_text(text: str, *, source: str, check_all: bool = False) -> Catalogue:
    """Wagers from the text of a user's data file (named ``source``), checked as :func:`load_file` checks them."""
    catalogue = read_text(text, source=source)
    check_wagers(catalogue, tables=check_all)
    return catalogue


def priced_pairs(catalogue: Mapping[str, Wager], specs: Iterable[str], *,
                 where: str = "WAGER:PAYTABLE") -> list[tuple[Wager, str]]:
    """``WAGER:PAYTABLE`` (or a bare ``WAGER``: all its paytables) → (wager, paytable id) pairs.

    >>> [(w.id, t) for w, t in priced_pairs(load_catalogue(), ["tie", "dragon-bonus-player:b"])]
    [('tie', '8-to-1'), ('tie', '9-to-1'), ('dragon-bonus-player', 'B')]
    """
    pairs: list[tuple[Wager, str]] = []
    for spec in specs:
        wid, sep, table = spec.strip().partition(":")
        if not wid:
            raise ExactOddsError(f"{where} {spec!r}: write WAGER or WAGER:PAYTABLE (see 'exactodds list')")
        try:
            w = catalogue[wid]
            tables = [w.paytable(table).id] if sep else list(w.paytables)
        except ExactOddsError as exc:
            raise ExactOddsError(f"{where} {spec!r}: {exc}") from None
        pairs.extend((w, t) for t in tables if (w, t) not in pairs)
    return pairs


def select(
    catalogue: Mapping[str, Wager],
    *,
    wagers: Iterable[str] = (),
    paytables: Sequence[str] = (),
    everything: bool = False,
    alternatives: Mapping[str, str] | None = None,
) -> list[tuple[Wager, str]]:
    """The (wager, paytable id) pairs a request names, checked against the catalogue.

    ``wagers`` are ``WAGER`` (all its paytables, or those of ``paytables``) or
    ``WAGER:PAYTABLE``; ``paytables`` alone selects every wager that has one of them.

    >>> [(w.id, t) for w, t in select(load_catalogue(), wagers=["tie:9-to-1", "dragon-bonus-player:b"])]
    [('tie', '9-to-1'), ('dragon-bonus-player', 'B')]
    >>> len(select(load_catalogue(), paytables=["B"])) > 5
    True
    """
    wanted = [p.lower() for p in paytables]
    specs = list(wagers)
    if any(":" in spec for spec in specs):              # WAGER:PAYTABLE names each pair itself
        if wanted:
            raise ExactOddsError("--paytable goes with bare wager names; write WAGER:PAYTABLE instead")
        chosen = priced_pairs(catalogue, specs, where="--wager")
        alternatives = dict(alternatives or {})
        for wid in alternatives:
            if wid not in {w.id for w, _ in chosen}:
                _not_selected(catalogue, wid)
        out = []
        for w, t in chosen:
            if w.id in alternatives:
                w = w.with_alternative(alternatives[w.id])
            elif w.follows in alternatives and alternatives[w.follows] in w.alternatives:
                w = w.with_alternative(alternatives[w.follows])
            out.append((w, t))
        return out
    if wanted and not specs and not everything:         # --paytable alone: every wager that has it
        specs = [wid for wid in catalogue if any(t.lower() in wanted for t in catalogue[wid].paytables)]
        if not specs:
            every = {t for w in catalogue.values() for t in w.paytables}
            raise ExactOddsError(f"no wager has paytable {list(paytables)[0]!r}"
                                 f"{did_you_mean(list(paytables)[0], every)} (see 'exactodds list')")
    ids = list(catalogue) if everything else specs or [w for w in MAIN_WAGERS if w in catalogue]
    alternatives = dict(alternatives or {})
    for wid in alternatives:
        if wid not in ids:
            _not_selected(catalogue, wid)
    pairs: list[tuple[Wager, str]] = []
    used: set[str] = set()
    for wid in ids:
        if wid not in catalogue:
            catalogue[wid]                                # the error names it, with a near miss
        w = catalogue[wid]
        if wid in alternatives:
            w = w.with_alternative(alternatives[wid])
        elif w.follows in alternatives and alternatives[w.follows] in w.alternatives:
            w = w.with_alternative(alternatives[w.follows])     # e.g. Cover All reads Blazing 7's as chosen
        tables = [t for t in w.paytables if not wanted or t.lower() in wanted]
        if not tables and not everything:
            w.paytable(list(paytables)[0])                # the error names it, with a near miss
        used.update(t.lower() for t in tables)
        pairs.extend((w, t) for t in tables)
    if missing := [p for p, low in zip(paytables, wanted) if low not in used]:
        have = {t for w, _ in pairs for t in w.paytables}
        raise ExactOddsError(f"no selected wager has paytable {missing[0]!r}{did_you_mean(missing[0], have)}")
    return pairs


def _selected(catalogue: Mapping[str, Wager], wagers: tuple[str, ...], paytables: tuple[str, ...], everything: bool,
              alternatives: Mapping[str, str] | None
              ) -> tuple[list[tuple[Wager, str]], tuple[tuple[Wager, Paytable], ...]]:
    """:func:`select`, kept on a :class:`~exactodds.wagers.catalogue.Catalogue` (a mapping no one changes) per
    request: a selection priced shoe after shoe is checked once, and its wagers are the same objects each
    time (what they compiled is kept on them); with it, the pairs with their paytables (one tuple per selection:
    counted together, it is planned once)."""
    if not isinstance(catalogue, Catalogue):
        return _chosen(catalogue, wagers, paytables, everything, alternatives)
    kept: dict[Any, Any] | None = catalogue.__dict__.get("_selections")
    if kept is None:
        kept = catalogue.__dict__["_selections"] = {}
    try:
        key = (wagers, paytables, everything, tuple(sorted(alternatives.items())) if alternatives else ())
        hash(key)
    except TypeError:                                  # not strings: select says what is wrong
        return _chosen(catalogue, wagers, paytables, everything, alternatives)
    if key not in kept:
        if len(kept) >= 256:
            kept.pop(next(iter(kept)))
        kept[key] = _chosen(catalogue, wagers, paytables, everything, alternatives)
    pairs, selection = kept[key]
    return list(pairs), selection


def _chosen(catalogue: Mapping[str, Wager], wagers: tuple[str, ...], paytables: tuple[str, ...], everything: bool,
            alternatives: Mapping[str, str] | None
            ) -> tuple[list[tuple[Wager, str]], tuple[tuple[Wager, Paytable], ...]]:
    pairs = select(catalogue, wagers=wagers, paytables=paytables, everything=everything, alternatives=alternatives)
    return pairs, tuple((w, w.paytables[t]) for w, t in pairs)


def _not_selected(catalogue: Mapping[str, Wager], wid: str) -> None:
    """Refuse ``--alternative WAGER=...`` for a wager not priced (naming a near miss if it is unknown)."""
    try:
        catalogue[wid]
    except ExactOddsError as exc:
        raise ExactOddsError(f"--alternative: {exc}") from None
    raise ExactOddsError(f"--alternative names wager {wid!r}, which is not selected")


def analyze(
    shoe: Shoe | None = None,
    *,
    wagers: Iterable[str] = (),
    paytables: Sequence[str] = (),
    everything: bool = False,
    catalogue: Catalogue | None = None,
    alternatives: Mapping[str, str] | None = None,
    route: str | None = None,
    given: str | None = None,
) -> Analysis:
    """Price the selected wagers exactly, off the top of ``shoe`` (8 decks by default).

    ``wagers`` name ``WAGER`` (every paytable) or ``WAGER:PAYTABLE`` (see :func:`select`). ``route``: ``auto``,
    ``vector`` or ``walk`` (:class:`~exactodds.analyses.door.Door`); by default the route in force
    (:func:`~exactodds.analyses.door.routed`), else ``auto``. ``given``: a condition on the round's cards
    (paytable-file language); every table is then over the rounds where it holds, and
    :attr:`Analysis.given` says how often that is (:mod:`exactodds.analyses.given`).
    """
    shoe = shoe if shoe is not None else Shoe.decks(8)
    if route is not None:
        check_route(route)
    if type(everything) is not bool:                  # "no" priced every paytable
        raise ExactOddsError(f"everything must be True or False, got {everything!r}")
    if isinstance(wagers, str):                        # one id, not its letters
        wagers = (wagers,)
    pairs, selection = _selected(catalogue if catalogue is not None else load_catalogue(), tuple(wagers),
                                 tuple(paytables), everything, alternatives)
    door = Door(shoe, route=route)
    route = door.route
    if given is not None:                              # suits unknown: as below, the wagers that read them left out
        held, results, left = priced_given(door, selection, given,
                                           skip_suits_unknown=shoe.card_counts is None and len(pairs) > 1)
        if not results:
            raise SuitsUnknown("every wager chosen reads suits, but the shoe's suits are unknown (cards were given "
                               "by rank only); give removed cards with their suits, e.g. 9h")
        return Analysis(shoe, tuple(results), _route_shown(route, door.walked, len(results) + 1),
                        tuple(f"{pairs[i][0].id}:{pairs[i][1]}" for i in left), given=held)
    if shoe.card_counts is not None:
        results, _ = door.price_all(selection)
        return Analysis.made(shoe, tuple(results), _route_shown(route, door.walked, len(results)))
    # suits unknown: the wagers that read them are left out, and named
    priced, left_out = door.price_all(selection, skip_suits_unknown=len(pairs) > 1)
    if not priced:
        raise SuitsUnknown(f"every wager chosen reads suits, but the shoe's suits are unknown (cards were given by "
                           "rank only); give removed cards with their suits, e.g. 9h")
    skipped = tuple(f"{pairs[i][0].id}:{pairs[i][1]}" for i in left_out)
    return Analysis(shoe, tuple(priced), _route_shown(route, door.walked, len(priced)), skipped)


def _route_shown(route: str, walked: Sequence[str], priced: int) -> str:
    """The route named in a result: ``vector`` or ``walk``; ``auto`` is shown as the one it took (of the
    ``priced`` wagers, those ``walked``), both where some wagers were walked and some not.

    >>> _route_shown("auto", ["mirror:A"], 2), _route_shown("auto", ["mirror:A"], 1), _route_shown("auto", [], 1)
    ('vector; walk for mirror:A', 'walk', 'vector')
    """
    if route != "auto":
        return route
    if walked and len(walked) == priced:
        return "walk"
    return f"vector; walk for {', '.join(walked)}" if walked else "vector"
