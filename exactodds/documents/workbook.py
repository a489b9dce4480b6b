"""A certificate as an Excel workbook (``--format xlsx``), the form casinos and labs keep par sheets in.

One sheet sums up every table, one sheet per shoe, wager and paytable holds its outcomes (each one's
condition, pays, combinations, probability, 1 in N and return, the exact fraction as text beside
each number), its moments, volatility index, payout and bands, and one holds the provenance. Numbers
are numbers; the totals a reviewer recomputes are formulas (sums, and the expected return as the
sum of net win × probability). The exact JSON certificate is carried in a hidden sheet, so the file
carries its own proof: ``exactodds verify`` reads it, recomputes every figure, and checks that every
sheet is exactly what exactodds writes for that certificate, cell by cell (values, formulas, number
formats, what is hidden), as it checks a PDF's pages.

openpyxl (``exactodds[xlsx]``) is imported when a workbook is first written or read.
"""

from __future__ import annotations

import io
import json
import re
from fractions import Fraction
from typing import Any

from exactodds import extras
from exactodds.analyses.pricing import LOSE
from exactodds.documents.certificate import OTHERWISE
from exactodds.errors import ExactOddsError
from exactodds.files import Outputs, write_atomically

__all__ = ["workbook_bytes", "write_xlsx", "read_workbook", "workbook_differs", "CERTIFICATE_SHEET", "table_sheets"]

#: The hidden sheet that carries the exact certificate, as JSON text split over column A.
CERTIFICATE_SHEET = "exactodds-certificate"
#: Characters of JSON per cell (Excel holds at most 32,767 in one).
_CHUNK = 32_000
#: Whole numbers above this are not exact as an Excel number (a double): they are written as text.
_EXACT = 2 ** 53
_PERCENT, _PROBABILITY, _UNITS, _WHOLE = "0.0000%", "0.0000000000", "0.00000000", "#,##0"
_FIRST = 12                                   # the row of a table sheet's first outcome


def _openpyxl() -> Any:
    return extras.load("openpyxl")


def _number(text: Any) -> Any:
    """An exact value (a fraction as text) as the number a cell holds, or None."""
    if text is None:
        return None
    value = Fraction(str(text))
    if value.denominator == 1 and abs(value) < _EXACT:
        return int(value)
    return float(value)


def _whole(text: str) -> Any:
    """A count: a number while a double holds it exactly, else its digits as text."""
    n = int(text)
    return n if n < _EXACT else text


def _safe(name: str) -> str:
    return re.sub(r"[\[\]:*?/\\']", "-", name)


def table_sheets(cert: dict[str, Any]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(sheet name, shoe result, wager block) of every priced table, in the certificate's order."""
    out: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    for res in cert["results"]:
        for block in res["wagers"]:
            n = len(out) + 1
            out.append((_safe(f"{n} {block['wager']} {block['paytable']}")[:31], res, block))
    return out


def _put(ws: Any, row: int, values: list[Any], formats: dict[int, str] | None = None) -> None:
    for col, value in enumerate(values, start=1):
        if value is None:
            continue
        cell = ws.cell(row=row, column=col, value=value)
        if formats and col in formats:
            cell.number_format = formats[col]


def _summary(wb: Any, cert: dict[str, Any], sheets: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> None:
    ws = wb.active
    ws.title = "Summary"
    inputs = cert["inputs"]
    game = inputs.get("game") or {}
    head: list[tuple[str, Any]] = [("Certificate", cert["certificate_number"]), ("Title", cert["title"]),
                                   ("Date of issue", cert["issued"])]
    head += [(label, cert["parties"][key]) for key, label in (
        ("issuer", "Issued by"), ("prepared_by", "Prepared by"), ("approved_by", "Approved by"))]
    head += [("Game", game.get("name")), ("Game version", game.get("version"))]
    head += [(f"Revision {i}", line) for i, line in enumerate(game.get("revisions", []), start=1)]
    head += [("Table limit ($)", _number(inputs["table_max"]) if "table_max" in inputs else None),
             ("Bet size ($)", _number(inputs["bet"]) if "bet" in inputs else None)]
    row = 1
    for label, value in head:
        _put(ws, row, [label, value])
        row += 1
    row += 1
    columns = ["Shoe", "Wager", "Wager id", "Section", "Paytable", "Sheet", "RTP", "RTP (exact)", "House edge",
               "House edge (exact)", "Hit frequency", "Standard deviation", "Volatility index 90%",
               "Volatility index 95%", "Volatility index 99%", "Maximum net win per unit", "Liability per round ($)"]
    _put(ws, row, columns)
    for name, res, b in sheets:
        row += 1
        s, payout = b["summary"], b["payout"]
        vi = s.get("volatility_index", {})
        top, liability = payout["maximum_payout"], payout["liability"]
        _put(ws, row, [res["shoe"]["description"], b["name"], b["wager"], b["section"], b["paytable"], name,
                       _number(s.get("rtp")) if "rtp" in s else "by meter", s.get("rtp"),
                       _number(s.get("house_edge")) if "house_edge" in s else "by meter", s.get("house_edge"),
                       _number(s["hit_frequency"]), _number(s.get("standard_deviation")),
                       *(_number(vi.get(level)) for level in ("90%", "95%", "99%")),
                       _number(top["net_per_unit"]) if top else None,
                       _number(liability["per_round"]) if liability else None],
             {7: _PERCENT, 9: _PERCENT, 11: _PERCENT, 12: "0.0000", 13: "0.0000", 14: "0.0000", 15: "0.0000",
              16: _UNITS, 17: "#,##0.00"})


def _table(wb: Any, name: str, res: dict[str, Any], b: dict[str, Any]) -> None:
    ws = wb.create_sheet(name)
    not_offered = "; ".join(f"{o['outcome']} ({o['condition']})" for o in b["rules"]["not_offered"])
    rules = b["rules"]["settlement"] + (f" Not offered under this paytable: {not_offered}." if not_offered else "")
    head: list[list[Any]] = [
        [f"{b['name']} — paytable {b['paytable']}"],
        ["Shoe", res["shoe"]["description"]],
        ["Game cycle (ordered 6-card sequences)", _whole(b["game_cycle"]), b["game_cycle"]],
        ["Section", b["section"], b["game"]],
        ["Paytable cited as", b["paytable_section"]],
        ["Wager from", b["data_file"]["name"], b["data_file"]["sha256"]],
        ["Paytable from", b["paytable_file"]["name"], b["paytable_file"]["sha256"]],
        ["Reading", b["reading"]],
        ["Rules as counted", rules],
    ]
    for row, values in enumerate(head, start=1):
        _put(ws, row, values, {2: _WHOLE} if row == 3 else None)
    _put(ws, _FIRST - 1, ["Outcome", "Condition as counted", "Pays", "Net win per unit", "Net (exact)",
                          "Combinations", "Probability", "Probability (exact)", "1 in N", "Return per unit",
                          "Return (exact)"])
    row = _FIRST
    progressive = "progressive" in b
    for o in b["outcomes"]:
        symbolic = progressive and not _is_number(o["return"])
        _put(ws, row, [o["outcome"], o["condition"] if o["id"] != LOSE else OTHERWISE, o["pays"],
                       None if symbolic else _number(o["net"]), o["net"], _whole(o["combinations"]),
                       _number(o["probability"]), o["probability"], _number(o["one_in"]),
                       None if symbolic else _number(o["return"]), o["return"]],
             {4: _UNITS, 6: _WHOLE, 7: _PROBABILITY, 9: "#,##0.0", 10: _UNITS})
        row += 1
    last = row - 1
    _put(ws, row, ["Total", None, None, None, None, f"=SUM(F{_FIRST}:F{last})", f"=SUM(G{_FIRST}:G{last})",
                   b["totals"]["probability"], None, None if progressive else f"=SUM(J{_FIRST}:J{last})",
                   b["totals"]["return"]], {6: _WHOLE, 7: _PROBABILITY, 10: _UNITS})
    row += 1
    if not progressive:
        _put(ws, row, ["Expected return, recomputed (Σ net × probability)", None, None, None, None, None, None,
                       None, None, f"=SUMPRODUCT(D{_FIRST}:D{last},G{_FIRST}:G{last})"], {10: _UNITS})
        row += 1
    row += 1
    _put(ws, row, ["Moments and figures", "Value", "Exact"])
    for label, key, fmt in (("Return to player", "rtp", _PERCENT), ("House edge", "house_edge", _PERCENT),
                            ("Edge with pushes excluded", "edge_excluding_pushes", _PERCENT),
                            ("Hit frequency", "hit_frequency", _PERCENT),
                            ("Push frequency", "push_frequency", _PERCENT),
                            ("Loss frequency", "loss_frequency", _PERCENT), ("Variance", "variance", _UNITS),
                            ("Standard deviation", "standard_deviation", _UNITS),
                            ("Third central moment", "third_central_moment", _UNITS),
                            ("Skewness", "skewness", _UNITS), ("Excess kurtosis", "excess_kurtosis", _UNITS)):
        if b["summary"].get(key) is not None:
            row += 1
            _put(ws, row, [label, _number(b["summary"][key]), b["summary"][key]], {2: fmt})
    for level, value in b["summary"].get("volatility_index", {}).items():
        row += 1
        _put(ws, row, [f"Volatility index {level} (z × SD)", _number(value), value], {2: "0.0000"})
    payout = b["payout"]
    row += 1
    if payout["maximum_payout"] is None:
        _put(ws, row, ["Maximum payout", payout["note"]])
    else:
        top = payout["maximum_payout"]
        _put(ws, row, ["Maximum net win per unit", _number(top["net_per_unit"]), top["net_per_unit"], top["pays"],
                       top["outcome"]], {2: _UNITS})
        if payout["liability"] is not None:
            row += 1
            liability = payout["liability"]
            _put(ws, row, ["Liability per round ($) at a wager of", _number(liability["per_round"]),
                           liability["per_round"], _number(liability["table_max"])], {2: "#,##0.00", 4: "#,##0.00"})
    sim = b.get("simulation")
    if sim is not None:
        row += 1
        _put(ws, row, ["Simulated rounds (seed)", sim["rounds"], str(sim["seed"]), sim["dealt"]], {2: _WHOLE})
        if sim["observed_rtp"] is not None:
            lo, hi = (Fraction(x) / 100 for x in sim["interval_95_percent"])
            row += 1
            _put(ws, row, ["Observed RTP, its 95% interval, z", _number(sim["observed_rtp"]), sim["observed_rtp"],
                           float(lo), float(hi), _number(sim["z"])],
                 {2: _PERCENT, 4: _PERCENT, 5: _PERCENT, 6: "0.0000"})
        row += 1
        _put(ws, row, ["Simulation verdict", sim["verdict"]])
    row = _exposure_rows(ws, row, b.get("exposure"))
    row = _advantage_rows(ws, row, b.get("advantage"))
    if progressive:
        row += 1
        _put(ws, row, ["Expected return (each J is the meter divided by the wager)",
                       b["progressive"]["expected_return"]])
    if b.get("bands"):
        row += 2
        levels = list(b["bands"]["ranges"][0]["rtp_percent"])
        _put(ws, row, ["Rounds", *(f"RTP {level} {end}" for level in levels for end in ("from", "to"))])
        for band in b["bands"]["ranges"]:
            row += 1
            cells = [Fraction(x) / 100 for level in levels for x in band["rtp_percent"][level]]
            _put(ws, row, [band["rounds"], *(float(c) for c in cells)],
                 {1: _WHOLE, **{k: _PERCENT for k in range(2, 2 + len(cells))}})
        row += 1
        _put(ws, row, [b["bands"]["method"]])
    ws.column_dimensions["A"].width = 38
    ws.column_dimensions["B"].width = 40


def _exposure_rows(ws: Any, row: int, x: dict[str, Any] | None) -> int:
    """The exposure section of one table, from ``row`` on; the last row written."""
    if x is None:
        return row
    row += 1
    _put(ws, row, ["Exposure to counting", x["verdict"]])
    count = x["count"]
    if count is not None and count["betting_correlation"] is not None:
        row += 1
        _put(ws, row, ["Betting correlation of the suggested count", _number(count["betting_correlation"]),
                       count["betting_correlation_squared"] and f"squared: {count['betting_correlation_squared']}"],
             {2: "0.000000"})
    measured = x["measured"]
    if measured is not None and "note" in measured:
        row += 1
        _put(ws, row, ["Measured exposure", measured["note"]])
    elif measured is not None:
        row += 1
        _put(ws, row, ["Measured exposure: shoes, seed, rounds", measured["shoes"], str(measured["seed"]),
                       measured["rounds"], measured["dealt"]], {2: _WHOLE, 4: _WHOLE})
        for label, key, fmt in (("Rounds in the player's favour", "advantage_share", _PERCENT),
                                ("Mean player's expected return", "mean_player_expected_return", _PERCENT),
                                ("Perfect play: units won a shoe", "perfect_per_shoe", "0.000000")):
            row += 1
            _put(ws, row, [label, _number(measured[key]), measured[key]], {2: fmt})
        row += 1
        _put(ws, row, ["Its standard error", _number(measured["perfect_per_shoe_se"]), measured["perfect_per_shoe_se"]],
             {2: "0.000000"})
    row += 1
    _put(ws, row, ["Removed", "Effect of removal", "Effect (exact)", "In the shoe", "Tag"])
    tags = {} if count is None else count["tags"]
    for e in x["effects"]:
        row += 1
        number = _number(e["effect"]) if e["effect"] is not None and _is_number(e["effect"]) else None
        _put(ws, row, [e["removed"], number, e["effect"], e["in_shoe"], tags.get(e["removed"])], {2: "0.0000000000"})
    return row


def _advantage_rows(ws: Any, row: int, x: dict[str, Any] | None) -> int:
    """The advantage-play section of one table, from ``row`` on; the last row written."""
    if x is None:
        return row
    row += 1
    if "note" in x:
        _put(ws, row, ["Advantage play", x["note"]])
        return row
    _put(ws, row, ["Advantage play", x["verdict"]])
    first, burn, sort = x["first_card"], x["burn_card"], x["edge_sorting"]
    for label, value, words in (
            ("A flashed first card: betting only where positive", first["when_positive"], f"read by {first['read_by']}"),
            ("Its best state for the player", first["worst"]["expected_return"], f"first card {first['worst']['card']}"),
            ("Edge sorting: the most exposed split's gain", sort["gain"],
             ", ".join(sort["ranks"]) + " against the rest" if sort["ranks"] else "no split gains"),
            ("A seen burn card: its best state for the player", burn["worst"]["expected_return"], burn["worst"]["card"]),
            ("The worst case", x["worst_case"], "the largest edge a seen card gives the player")):
        row += 1
        _put(ws, row, [label, _number(value), value, words], {2: _PERCENT})
    row += 1
    _put(ws, row, ["Flashed first card", "Probability", "Player's expected return", "exact"])
    for state in first["states"]:
        row += 1
        e = state["expected_return"]
        _put(ws, row, [state["card"], _number(state["probability"]), None if e is None else _number(e), e],
             {2: "0.00000000", 3: _PERCENT})
    return row


def _is_number(text: Any) -> bool:
    try:
        Fraction(str(text))
        return True
    except (ValueError, ZeroDivisionError):
        return False


def _provenance(wb: Any, cert: dict[str, Any]) -> None:
    ws = wb.create_sheet("Provenance")
    prov = cert["provenance"]
    rows: list[list[Any]] = [["exactodds version", prov["exactodds_version"]],
                             ["Source commit", prov["source_commit"] or "not recorded (not a built package)"],
                             ["Built from a modified tree", None if prov["source_modified"] is None else
                              ("yes" if prov["source_modified"] else "no")],
                             ["Content SHA-256", prov["content_sha256"]]]
    rows += [[f"SHA-256 of {name}", digest] for name, digest in sorted(prov["data_sha256"].items())]
    rows += [[f"Data file {f['name']}", f["sha256"]] for f in cert["inputs"].get("files", [])]
    record = cert["inputs"].get("validation")
    if record:
        rows.append([f"Validation file {record['name']} ({record['format']}, {record['rows']:,} rounds)",
                     record["sha256"]])
    signature = cert.get("signature")
    rows.append(["Signature", "none" if signature is None else
                 f"Ed25519 by {signature['signer'] or 'an unnamed signer'} at {signature['signed_at']}, "
                 f"key {signature['key_id']}"])
    rows += [["Assumption", a] for a in cert["assumptions"]]
    rows += [["Rounding policy", cert["rounding"]],
             ["To check this workbook", "exactodds verify FILE.xlsx (the certificate is in the hidden sheet "
                                        f"{CERTIFICATE_SHEET!r})"]]
    for row, values in enumerate(rows, start=1):
        _put(ws, row, values)
    ws.column_dimensions["A"].width = 40


def _certificate(wb: Any, cert: dict[str, Any]) -> None:
    ws = wb.create_sheet(CERTIFICATE_SHEET)
    ws.sheet_state = "hidden"
    text = json.dumps(cert, ensure_ascii=False, separators=(",", ":"))
    ws.cell(row=1, column=1, value="The exact certificate (JSON), its text split over the cells below; "
                                   "exactodds verify reads it.")
    for k in range(0, len(text), _CHUNK):
        ws.cell(row=2 + k // _CHUNK, column=1, value=text[k:k + _CHUNK])


def _workbook(cert: dict[str, Any]) -> Any:
    wb = _openpyxl().Workbook()
    sheets = table_sheets(cert)
    _summary(wb, cert, sheets)
    for name, res, block in sheets:
        _table(wb, name, res, block)
    _provenance(wb, cert)
    _certificate(wb, cert)
    return wb


def workbook_bytes(cert: dict[str, Any]) -> bytes:
    """The workbook exactodds writes for ``cert``."""
    out = io.BytesIO()
    _workbook(cert).save(out)
    return out.getvalue()


def write_xlsx(cert: dict[str, Any], path: str, *, outputs: Outputs | None = None) -> None:
    """Write the workbook of ``cert`` (atomically; with ``outputs``, as one of that group of files)."""
    data = workbook_bytes(cert)
    if outputs is None:
        write_atomically(path, data)
    else:
        outputs.write(path, data)


def _load(data: bytes, where: str) -> Any:
    openpyxl = _openpyxl()
    try:
        return openpyxl.load_workbook(io.BytesIO(data))
    except Exception as exc:      # noqa: BLE001 - anything openpyxl meets in a file exactodds did not write
        raise ExactOddsError(f"{where}: an unreadable workbook ({type(exc).__name__})") from None


def read_workbook(data: bytes, where: str) -> str:
    """The certificate's JSON text carried by a workbook's hidden sheet."""
    wb = _load(data, where)
    if CERTIFICATE_SHEET not in wb.sheetnames:
        raise ExactOddsError(f"{where}: a workbook without the sheet {CERTIFICATE_SHEET!r} that carries the "
                             "certificate (not written by exactodds)")
    ws = wb[CERTIFICATE_SHEET]
    parts = [ws.cell(row=r, column=1).value for r in range(2, ws.max_row + 1)]
    if not parts or not all(isinstance(p, str) for p in parts):
        raise ExactOddsError(f"{where}: the sheet {CERTIFICATE_SHEET!r} does not hold the certificate's text")
    return "".join(parts)


def _cells(ws: Any, rows: int, columns: int) -> Any:
    for r in range(1, rows + 1):
        for c in range(1, columns + 1):
            yield r, c, ws.cell(row=r, column=c)


def workbook_differs(data: bytes, cert: dict[str, Any], where: str) -> str | None:
    """Why the workbook ``data`` is not what exactodds writes for ``cert`` (the certificate it carries), or
    None: every sheet, in order and state, and every cell's value or formula and number format must be
    the fresh workbook's; nothing more (no comment, defined name, conditional format or validation)."""
    got, want = _load(data, where), _load(workbook_bytes(cert), where)
    if got.sheetnames != want.sheetnames:
        return f"the workbook's sheets are {got.sheetnames!r}, not {want.sheetnames!r}"
    if len(got.defined_names):
        return "the workbook holds defined names, which exactodds never writes"
    for name in want.sheetnames:
        a, b = got[name], want[name]
        if a.sheet_state != b.sheet_state:
            return f"sheet {name!r} is {a.sheet_state}, not {b.sheet_state}"
        if a.conditional_formatting or a.data_validations.dataValidation:
            return f"sheet {name!r} holds a conditional format or a data validation, which exactodds never writes"
        rows, columns = max(a.max_row, b.max_row), max(a.max_column, b.max_column)
        for r, c, cell in _cells(a, rows, columns):
            fresh = b.cell(row=r, column=c)
            if cell.value != fresh.value or type(cell.value) is not type(fresh.value):
                return (f"sheet {name!r}, cell {cell.coordinate}: {cell.value!r} where the certificate gives "
                        f"{fresh.value!r}")
            if cell.value is not None and cell.number_format != fresh.number_format:
                return (f"sheet {name!r}, cell {cell.coordinate}: number format {cell.number_format!r}, "
                        f"not {fresh.number_format!r}")
            if cell.comment is not None:
                return f"sheet {name!r}, cell {cell.coordinate} holds a comment, which exactodds never writes"
        hidden = [k for k, d in a.row_dimensions.items() if d.hidden] + [
            k for k, d in a.column_dimensions.items() if d.hidden]
        if hidden:
            return f"sheet {name!r} hides row or column {hidden[0]}, which exactodds never does"
    return None
