"""The paytable designer: pays for a wager's outcomes that give a target house edge, exactly or as near
as the constraints allow.

A paytable's house edge is linear in its pays: with ``c_i`` the ordered 6-card sequences of outcome i,
``T`` the shoe's and ``L`` those that lose, the house edge of net pays ``N_i`` is
``(L − Σ c_i · N_i) / T`` (a push adds nothing). With pays in steps of ``s`` ("N to 1", N a whole number
or a half), ``N_i = s · k_i`` and the target asks for ``Σ c_i · k_i`` as near as can be to one number: an
integer programme in a few variables. It is solved exactly, in integers, by a branch and bound:

* outcomes from the most common to the rarest, each paying at least as much as the more common one
  before it (a rarer outcome never pays less), at most ``max_pay``;
* before each pay is chosen, the pays still to come can add no less than the current pay on every one
  of them and no more than ``max_pay`` on every one, so only the pays that can still end within the
  tolerance are tried, nearest the draft's pay first; the rarest outcome's are read off an interval.

The ``top`` paytables that change the draft least are kept (ties: the smaller gap, then the smaller
pays), each priced back exactly; a search
that reaches its budget says so, and its paytables are then the best found, not proven best.

>>> from exactodds.wagers import load_catalogue
>>> from exactodds.game.shoe import Shoe
>>> tie = load_catalogue()["tie"]
>>> d = design(tie, tie.paytable("8-to-1"), Shoe.decks(8), target_edge=Fraction(1436, 10_000))
>>> [(x.pays_text["tie"], f"{float(x.edge):.4%}") for x in d.designs]        # the published 14.36% at 8 to 1
[('8 to 1', '14.3596%')]
"""

from __future__ import annotations

import hashlib
import heapq
import math
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactodds._version import __version__
from exactodds.analyses.door import Door
from exactodds.errors import ExactOddsError, ExactOddsWarning, exact_number, whole_number
from exactodds.game.shoe import Shoe
from exactodds.render.tables import Column, Describes, Report, Table, dataframe, exact, house_edge_words
from exactodds.wagers.catalogue import Paytable, Wager, check_id

__all__ = ["Design", "Designs", "design", "carries", "FAR", "SEARCH_BUDGET"]

#: The best paytable is "far off" the target past this many times the tolerance asked (a caution).
FAR = 10

#: Pays tried at most (nodes of the branch and bound) before the search stops with the best found.
SEARCH_BUDGET = 500_000


def _carrying(name: str, text: str) -> str:
    """The words a designed paytable file opens its carried file with, naming it by its SHA-256."""
    return f"# Carries {name} (SHA-256 {hashlib.sha256(text.encode('utf-8')).hexdigest()}), the file that defines wager"


def carries(text: str, other: str) -> bool:
    """Whether ``text``, a file 'design --output' wrote, carries the data file ``other`` (whatever its name).

    >>> carries("# Carries a.toml (SHA-256 " + hashlib.sha256(b"x").hexdigest() + "), the file that defines wager", "x")
    True
    """
    return _carrying("", other).partition("(")[2] in text


@dataclass(frozen=True)
class Design:
    """One paytable: net pays per outcome and its exact house edge, variance and hit frequency."""

    pays: dict[str, Fraction]            # outcome id -> net pay (pushes 0)
    pays_text: dict[str, str]            # as a paytable file writes them
    edge: Fraction                       # the house's, per unit wagered
    variance: Fraction                   # of one round's result
    hit_frequency: Fraction              # rounds paid more than the wager
    change: Fraction | None = None       # Σ |N − the draft's N| / the draft's N

    @property
    def standard_deviation(self) -> float:
        return math.sqrt(self.variance)


@dataclass(frozen=True)
class Designs(Describes):
    """The best paytables found for a target house edge: those within the tolerance that change the
    draft's pays least, fewest changes first (then nearest the target, then the smaller pays)."""

    wager: Wager
    base: Paytable
    shoe: str
    target: Fraction
    designs: tuple[Design, ...]
    outcomes: tuple[tuple[str, str, int], ...]     # (id, name, combinations) of every outcome priced
    total: int
    searched: int
    complete: bool                                 # the search ran to its end: the best are proven best
    constraints: dict[str, str] = field(default_factory=dict)
    tolerance: Fraction = Fraction(1, 10_000)      # as asked (the search may have widened it)

    @property
    def best(self) -> Design:
        return self.designs[0]

    @property
    def cautions(self) -> tuple[str, ...]:
        """What a reader must not miss about the best paytable: it gives the player the edge, or it lies
        farther from the target than the tolerance asked."""
        out = []
        best = self.best
        if best.edge < 0:
            out.append(f"the best paytable gives the player the edge: its house edge is {float(best.edge):.4%} "
                       f"(exact {best.edge}), not the house's")
        if abs(best.edge - self.target) > FAR * max(self.tolerance, Fraction(1, 10**6)):
            out.append(f"the best paytable is {float(best.edge - self.target):+.4%} off the target "
                       f"{float(self.target):.4%}, more than {FAR} times the tolerance asked "
                       f"({float(self.tolerance):.4%}): the constraints (--max-pay, --step, --form, --max-sd) "
                       "reach no nearer")
        return tuple(out)

    def paytable_toml(self, *, paytable_id: str = "designed", k: int = 0,
                      carrying: tuple[str, str] | None = None) -> str:
        """Design ``k`` as a paytable file for this wager (``exactodds analyze --paytables FILE``).

        Every outcome of the wager has its pay: one the draft does not offer is written "N/A" as the draft
        writes it. A wager of a user's file needs that file to be read: ``carrying`` (its name and text) puts
        the file's text first, unchanged, so that the file written stands alone in its place.
        """
        check_id(paytable_id, where="paytable_id")      # written into the TOML as it is: nothing to escape
        d = self.designs[k]
        pays = ", ".join(f'{o.id} = "{d.pays_text.get(o.id, self.base.pays[o.id].text)}"' for o in self.wager.outcomes)
        carried = "" if carrying is None else (
            f"{_carrying(*carrying)} {self.wager.id!r}, unchanged,\n# then the designed paytable: give this file in its "
            f"place, not beside it.\n\n{carrying[1].rstrip()}\n\n")
        return (f"# Designed by exactodds {__version__}: house edge {float(d.edge):.6%} (exactly {d.edge})"
                f"{house_edge_words(d.edge)} "
                f"on {self.shoe},\n# target {float(self.target):.4%}; constraints: "
                + "; ".join(f"{k} {v}" for k, v in self.constraints.items()) + "\n" + carried + "\n"
                f'[[paytable]]\nwager = "{self.wager.id}"\nid = "{paytable_id}"\n'
                f'section = "designed for a house edge of {float(self.target):.4%} (exactodds design)"\n'
                f"pays = {{ {pays} }}\n")

    def report(self) -> Report:
        ids = [oid for oid, _, _ in self.outcomes]
        shown = (Column("rank", "#", "int"), *(Column(f"pay_{oid}", name) for oid, name, _ in self.outcomes),
                 Column("house_edge", "House edge", "percent", 4, house_edge=True), Column("gap", "Off target", "percent", 6,
                                                                          signed=True),
                 Column("sd", "SD", "float", 4), Column("hit_frequency", "Hit frequency", "percent", 4),
                 Column("change", f"Change from {self.base.id}", "percent", 2))
        rows = tuple((k + 1, *(d.pays_text.get(oid, "") for oid in ids), d.edge, d.edge - self.target,
                      d.standard_deviation, d.hit_frequency, d.change) for k, d in enumerate(self.designs))
        tidy = (Column("rank", kind="int"), *(Column(f"pay_{oid}") for oid in ids),
                Column("house_edge", kind="decimal", places=10, twin=True),
                Column("gap", kind="decimal", places=10, twin=True), Column("sd", kind="float", places=10),
                Column("hit_frequency", kind="decimal", places=10, twin=True),
                Column("change", kind="decimal", places=10, twin=True))
        note = ("" if self.complete else
                f" The search stopped after {self.searched:,} pays tried: the best found, not proven best.")
        title = (f"Paytables for {self.wager.name} ({self.wager.id}) nearest a house edge of "
                 f"{float(self.target):.4%}{house_edge_words(self.target)}, {self.shoe}")
        within = self.constraints.get("search", "within the tolerance").split(", nearest paytable")[0]
        order = (f"Paytables {within}, in order of change from paytable {self.base.id!r} (fewest changes "
                 "first), then nearest the target")
        return Report("design", title=title,
                      headline={"Constraints": "; ".join(f"{k} {v}" for k, v in self.constraints.items()),
                                "Searched": f"{self.searched:,} pays tried"
                                            + (", every paytable the constraints allow" if self.complete else
                                               ", stopped at the budget")},
                      tables=(Table(shown, rows, title=order,
                                    notes=(("Exact edges: each paytable priced back from the exact outcome "
                                            "counts." + note),)),),
                      notes=tuple(f"Caution: {c}." for c in self.cautions),
                      tidy=Table(tidy, rows), data=self.data())

    def data(self) -> dict[str, Any]:
        return {"wager": self.wager.id, "base_paytable": self.base.id, "shoe": self.shoe,
                "target_house_edge": exact(self.target), "complete": self.complete, "searched": self.searched,
                "constraints": self.constraints, "cautions": list(self.cautions),
                "outcomes": [{"id": oid, "name": name, "combinations": c} for oid, name, c in self.outcomes],
                "total": self.total,
                "designs": [{"pays": d.pays_text, "house_edge": exact(d.edge), "variance": exact(d.variance),
                             "standard_deviation": d.standard_deviation, "hit_frequency": exact(d.hit_frequency),
                             "change": None if d.change is None else exact(d.change)}
                            for d in self.designs]}

    def to_dataframe(self) -> Any:
        return dataframe([{**{f"pay_{k}": v for k, v in d.pays_text.items()}, "house_edge": float(d.edge),
                           "house_edge_exact": d.edge, "sd": d.standard_deviation,
                           "hit_frequency": float(d.hit_frequency)} for d in self.designs])


def _text(k: int, step: Fraction, form: str) -> str:
    n = k * step
    shown = str(n.numerator) if n.denominator == 1 else f"{float(n):g}"
    return f"{shown} {form} 1"


def design(wager: Wager, base: Paytable, shoe: Shoe, *, target_edge: Fraction, max_pay: Fraction = Fraction(1000),
           step: Fraction = Fraction(1, 2), form: str = "to", max_sd: Fraction | None = None, top: int = 5,
           tolerance: Fraction = Fraction(1, 10_000), budget: int = SEARCH_BUDGET) -> Designs:
    """The ``top`` paytables of ``wager`` nearest ``target_edge`` (the house's, per unit) on ``shoe``.

    The outcomes ``base`` pays are designed; those it pushes stay pushes, those it does not offer stay
    not offered. Pays are ``"N to 1"`` (``form="for"``: ``"N for 1"``) with N a multiple of ``step``, the
    smallest N above nothing paid (1/2 to 1, or 1.5 for 1), at most ``max_pay``; a rarer outcome pays at
    least as much as a more common one. ``max_sd``: only paytables whose standard deviation is at most
    this.

    First the paytables within ``tolerance`` of the target nearest ``base`` (the fewest relative changes
    of its pays: Σ |N − base N| / base N), so a draft keeps its shape; if none is within it, the paytables
    nearest the target whatever their shape.
    """
    if form not in ("to", "for"):
        raise ExactOddsError(f"--form: 'to' or 'for', got {form!r}")
    target_edge, max_pay, step, tolerance = (exact_number(x, where) for x, where in (
        (target_edge, "--target-edge"), (max_pay, "--max-pay"), (step, "--step"), (tolerance, "--tolerance")))
    top, budget = whole_number(top, "--top"), whole_number(budget, "budget")
    if max_sd is not None and not exact_number(max_sd, "--max-sd") > 0:       # it is squared: -1 read as 1
        raise ExactOddsError(f"--max-sd: a standard deviation above 0, got {max_sd}")
    if not 0 < step <= 1 or (1 / step).denominator != 1:
        raise ExactOddsError(f"--step: 1, 1/2, 1/4 ... (pays in steps of it), got {step}")
    if not -1 < target_edge < 1:
        raise ExactOddsError(f"--target-edge: a house edge between -100% and 100%, got {float(target_edge):.4%}")
    if not 0 <= tolerance < 1:
        raise ExactOddsError(f"--tolerance: from 0 (the target exactly) to below 100%, got {float(tolerance):.4%}")
    if not 1 <= top <= 100:
        raise ExactOddsError(f"--top: 1 to 100 paytables, got {top}")
    for oid, pay in base.pays.items():
        if pay.symbolic or pay.kind in ("dollars", "combined"):
            raise ExactOddsError(f"paytable {base.id!r} of {wager.id}: {oid!r} pays {pay.text!r}; the designer sets "
                                 "pays 'N to 1' (or 'N for 1') of a fixed wager, not meters or dollar amounts")
    result = Door(shoe).price(wager, base)
    total = result.total
    combos = {ln.id: ln.combinations for ln in result.lines}
    names = {ln.id: ln.name for ln in result.lines}
    paying = [o.id for o in wager.outcomes if base.pays[o.id].offered and base.pays[o.id].kind != "push"]
    pushes = [o.id for o in wager.outcomes if base.pays[o.id].kind == "push"]
    if not paying:
        raise ExactOddsError(f"paytable {base.id!r} of {wager.id} pays no outcome: nothing to design")
    lose = combos["lose"]
    shift = 0 if form == "to" else 1                     # "N for 1" nets N − 1
    lowest = 1 if form == "to" else int(1 / step) + 1    # the smallest N·(1/step) that pays something
    highest = int(max_pay / step)
    if highest < lowest:
        raise ExactOddsError(f"--max-pay {max_pay}: below the smallest pay, {_text(lowest, step, form)}")
    order = sorted((oid for oid in paying if combos[oid]), key=lambda oid: (-combos[oid], oid))  # most common first
    never = [oid for oid in paying if not combos[oid]]     # the shoe cannot deal them: paid as the rarest
    if not order:
        raise ExactOddsError(f"the shoe deals no outcome paytable {base.id!r} of {wager.id} pays: nothing to design")
    c = [combos[oid] for oid in order]
    # Σ c_i (k_i·step − shift) = lose − target·total, i.e. Σ c_i k_i = goal (a Fraction)
    goal = (lose - target_edge * total + shift * sum(c)) / step
    a, b = goal.numerator, goal.denominator                                # gap of a choice: |b·Σ c k − a|
    rest = [sum(c[i + 1:]) for i in range(len(c))]
    searched = 0
    stopped = False

    base_k = [(base.pays[oid].net + shift) / step for oid in order]          # the draft's pays, in steps
    weight = [step / max(base.pays[oid].net, step) for oid in order]         # a step's share of the draft's pay
    near_kept: list[tuple[Fraction, int, tuple[int, ...]]] = []               # (−distance, −gap, −pays)
    slack_s = Fraction(0)

    def nearest(lo: int, hi: int, target: Fraction) -> Any:
        """lo..hi by distance from target, nearest first."""
        left = min(max(math.floor(target), lo - 1), hi)
        right = left + 1
        while left >= lo or right <= hi:
            if right > hi or (left >= lo and target - left <= right - target):
                yield left
                left -= 1
            else:
                yield right
                right += 1

    def near(i: int, partial: int, floor: int, dist: Fraction, ks: list[int]) -> None:
        nonlocal searched, stopped
        if stopped:
            return
        lo = max(floor, math.ceil((goal - slack_s - partial - highest * rest[i]) / c[i]))
        hi = min(highest, math.floor((goal + slack_s - partial) / (c[i] + rest[i])))
        last = i == len(c) - 1
        if last:                                              # the rarest: the pays that end within tolerance
            lo = max(lo, math.ceil((goal - slack_s - partial) / c[i]))
            hi = min(hi, math.floor((goal + slack_s - partial) / c[i]))
        for k in nearest(lo, hi, base_k[i]):
            d = dist + abs(k - base_k[i]) * weight[i]
            if len(near_kept) == top and d > -near_kept[0][0]:
                break                                         # the rest are farther from the draft still
            searched += 1
            if searched > budget:
                stopped = True
                return
            if last:
                ks_all = (*ks, k)
                if max_sd is not None and _variance(ks_all, c, step, shift, lose, total) > max_sd * max_sd:
                    continue
                item = (-d, -abs(b * (partial + c[i] * k) - a), tuple(-x for x in ks_all))
                if len(near_kept) < top:
                    heapq.heappush(near_kept, item)
                elif item > near_kept[0]:
                    heapq.heapreplace(near_kept, item)
                continue
            ks.append(k)
            near(i + 1, partial + c[i] * k, k, d, ks)
            ks.pop()

    within = tolerance
    while True:                                  # none within the tolerance: ten times as wide, and again
        slack_s = within * total / step
        near(0, 0, lowest, Fraction(0), [])
        if near_kept or stopped or within >= 2:
            break
        within = max(within * 10, Fraction(1, 10**6))
    if not near_kept:
        raise ExactOddsError("no paytable meets the constraints (--max-pay, --max-sd)"
                             + (f" in {budget:,} pays tried" if stopped else ""))
    found = [(g, ks, -d) for d, g, ks in sorted(near_kept, reverse=True)]
    mode = (f"within {float(within):.4%} of the target" + ("" if within == tolerance else
                                                          f" (none within {float(tolerance):.4%})")
            + f", nearest paytable {base.id!r}")
    designs = []
    for _, negated, distance in found:
        ks = tuple(-k for k in negated)
        pays = {oid: k * step - shift for oid, k in zip(order, ks)}
        texts = {oid: _text(k, step, form) for oid, k in zip(order, ks)}
        for oid in never:
            pays[oid], texts[oid] = ks[-1] * step - shift, _text(ks[-1], step, form)
        for oid in pushes:
            pays[oid], texts[oid] = Fraction(0), "push"
        ordered_text = {o.id: texts[o.id] for o in wager.outcomes if o.id in texts}
        edge = Fraction(lose - sum(combos[oid] * pays[oid] for oid in paying), total)
        variance = _variance(ks, c, step, shift, lose, total)
        hit = Fraction(sum(c), total)
        designs.append(Design(pays, ordered_text, edge, variance, hit, distance))
    constraints = {"pays": f"'N {form} 1', N in steps of {step}", "max pay": _text(highest, step, form),
                   "order": "a rarer outcome pays at least as much", "pushes": ", ".join(pushes) or "none"}
    if max_sd is not None:
        constraints["max SD"] = f"{float(max_sd):g}"
    outcomes = tuple((o.id, names.get(o.id, o.id), combos.get(o.id, 0)) for o in wager.outcomes
                     if o.id in paying or o.id in pushes)
    constraints["search"] = mode
    found_designs = Designs(wager, base, result.shoe_description, target_edge, tuple(designs), outcomes, total,
                            searched, not stopped, constraints, tolerance)
    for caution in found_designs.cautions:
        warnings.warn(ExactOddsWarning(f"design: {caution}"), stacklevel=2)
    return found_designs


def _variance(ks: tuple[int, ...], c: list[int], step: Fraction, shift: int, lose: int, total: int) -> Fraction:
    """The variance of one round's result: E[X²] − E[X]² (a push's 0 adds nothing, a loss's −1 squared)."""
    nets = [k * step - shift for k in ks]
    mean = Fraction(sum(ci * n for ci, n in zip(c, nets)) - lose, total)
    square = Fraction(sum(ci * n * n for ci, n in zip(c, nets)) + lose, total)
    return square - mean * mean
