"""Simulator records on disk, read and written in chunks through real parsers (pyarrow).

One record per round: the cards ``player1 player2 player3 banker1 banker2
banker3`` (``Ks``, ``10h``, ``Th`` or ``K♠``; empty or null where a hand has no
third card), then optionally one column per settled wager named
``WAGER:PAYTABLE`` holding the outcome id the simulator paid (``lose`` for a
loss) or the net amount the wager won or lost (``-1``, ``0.95``, ``8``: per unit
staked, or on the round's stake where a ``stake`` column gives it), and a
``shoe`` column naming each round's shoe. Formats, chosen by extension or given:

* CSV (``.csv``; ``.csv.gz`` and ``.csv.zst`` compressed): any CSV — quoted
  fields, CRLF line ends, a byte-order mark;
* JSON Lines (``.jsonl``, ``.jsonl.gz``): ``{"player": ["Ks", "9h"], "banker":
  [...], "settled": {"WAGER:PAYTABLE": "outcome"}}`` (an amount as a number or text;
  ``"shoe"`` and ``"stake"`` beside ``"settled"``);
* Parquet (``.parquet``): the CSV's columns.

A source is a file, a directory or a glob of shards (read as one data set in
name order), or ``-`` for standard input (CSV or JSON Lines; give the format).

A file may carry a *note* (text of its own, such as the data files that define its wagers): in a CSV
or JSON Lines file, lines beginning ``#`` before the header or the first record (with ``%``, ``"``,
``,`` and a carriage return escaped, so that a CSV tool keeps each line as one field); in Parquet, the
schema's metadata key ``exactodds.note``. The readers of records pass over it; :func:`read_note`
reads it.

Memory is bounded whatever the input: text is read (and decompressed) a block
of whole lines at a time, a CSV or JSON Lines record is one line of at most
:data:`MAX_RECORD_BYTES` (64 KiB; a longer line is an error naming it), and a
chunk holds at most :data:`CHUNK_ROWS` records read from at most 8 MiB of text.

Why not ``pyarrow.dataset`` (issue 27): its scanner reads CSV and JSON in
batches of its own size on its own threads, with no line numbers, so neither
the 64 KiB line limit with errors naming file and line, nor reading on the
caller's thread (SIGTERM stops within 0.5 s) would hold. For Parquet, the
size guard runs on each row group's metadata before it is read
(``pyarrow.parquet.ParquetFile``), which the scanner does not offer either.
For discovery alone it would list a directory by the same rule as
:func:`expand_sources` (names starting ``.`` or ``_`` are not data, its
``selector_ignore_prefixes``) at the price of importing it (about 1 to 2.5 s
here, on top of ``pyarrow.csv``), and it has no globs. Decompression already
goes through pyarrow's codecs (``pyarrow.input_stream``); only the choice of
codec by extension is ours (``pyarrow.Codec.detect`` knows no ``.zstd`` and
fails with a TypeError on a name it does not know).
"""

from __future__ import annotations

import contextlib
import csv
import functools
import glob
import io
import itertools
import json
import os
import queue
import re
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, cast

import numpy as np

from exactodds import extras
from exactodds.errors import DuplicateKey, ExactOddsError, unique_keys
from exactodds.files import Outputs, cannot_write
from exactodds.game.cards import Card

__all__ = ["Chunk", "CARD_COLUMNS", "SHOE_COLUMN", "STAKE_COLUMN", "ROUND_COLUMN", "FORMATS", "MAX_RECORD_BYTES", "CHUNK_ROWS", "expand_sources", "read_chunks",
           "RecordWriter", "card_index", "arrow_strings", "dictionary_column", "read_ahead", "read_note",
           "MAX_NOTE_BYTES"]

CARD_COLUMNS = ("player1", "player2", "player3", "banker1", "banker2", "banker3")
#: The optional column naming each round's shoe (check-sim's within-shoe tests).
SHOE_COLUMN = "shoe"
#: The optional column numbering each round within its shoe (1, 2, 3 ...: a surveillance log, check-player).
ROUND_COLUMN = "round"
#: The optional column of each round's stake, where settlement columns hold the amounts won or lost on it.
STAKE_COLUMN = "stake"
FORMATS = ("csv", "jsonl", "parquet")
_COMPRESSION = {".gz": "gzip", ".zst": "zstd", ".zstd": "zstd", ".bz2": "bz2", ".lz4": "lz4"}   # LZ4: frames
#: Compressed files that pyarrow cannot read or write as a stream: named, never taken for text.
_OTHER_COMPRESSION = (".xz", ".lzma", ".zip", ".7z", ".br", ".sz", ".z", ".tgz")
#: The longest line (a CSV record or a JSON Lines record) read, in bytes: a longer one is an error
#: naming its line, so that memory stays bounded whatever the input (a stream with no line end).
MAX_RECORD_BYTES = 1 << 16
_BLOCK = 1 << 20                     # bytes read (and decompressed) at a time
_CHUNK_BYTES = 1 << 23               # the most text a chunk of records is read from
CHUNK_ROWS = 1 << 17                 # records a chunk (at most)
_JSONL_ROWS = 1 << 15                # JSON Lines records a chunk: parsed in Python, a chunk in well under a second
#: The most text a file's note may hold (sixteen data files of 1 MiB, with room to spare).
MAX_NOTE_BYTES = 1 << 25
#: Where a Parquet file keeps its note.
_NOTE_KEY = b"exactodds.note"


@dataclass
class Chunk:
    """Some rounds of a source: card indices (-1 none, -2 unreadable), where each came from, settlements."""

    player: np.ndarray                       # (n, 3) int16
    banker: np.ndarray                       # (n, 3) int16
    lines: np.ndarray                        # line (CSV, JSON Lines) or row (Parquet) of each record
    source: str
    settled: dict[str, tuple[np.ndarray, list[str]]] = field(default_factory=dict)   # codes, their ids
    invalid: list[tuple[str, int, str]] = field(default_factory=list)                # (source, line, problem)
    whole: np.ndarray | None = field(default=None, repr=False)   # (n, 6): player and banker side by side

    def line(self, entry: int) -> int:
        """The line (or row) to name for a record given its entry in :attr:`lines`: the same, blank
        lines counted as the file counts them."""
        return int(entry)

    def __len__(self) -> int:
        return len(self.player)

    @property
    def cards(self) -> np.ndarray:
        """``(n, 6)`` card indices: Player 1-3, then Banker 1-3."""
        if self.whole is None:
            self.whole = np.concatenate([self.player, self.banker], axis=1)
        return self.whole


def card_index(token: Any) -> int:
    """A card token → its index 0–51; -1 for no card (empty or null), -2 if it is not a card."""
    if token is None:
        return -1
    if not isinstance(token, str):
        return -2
    return _card_index(token)


@functools.lru_cache(maxsize=4096)                  # a file spells its cards a few ways: parse each once
def _card_index(token: str) -> int:
    text = token.strip()
    if not text:
        return -1
    try:
        return Card.parse(text).index
    except ExactOddsError:
        return -2


def arrow_strings(values: Sequence[str]) -> Any:
    """A pyarrow string array built from its buffers (``pa.array`` on Python objects would import pandas)."""
    pa = extras.load("pyarrow")
    data = [v.encode("utf-8") for v in values]
    offsets = np.zeros(len(data) + 1, dtype=np.int32)
    np.cumsum([len(d) for d in data], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(data), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))])


def dictionary_column(codes: np.ndarray, dictionary: Any) -> Any:
    """``codes`` (a negative code: null) as a dictionary-encoded pyarrow column over ``dictionary``."""
    pa = extras.load("pyarrow")
    missing = codes < 0
    validity = pa.py_buffer(np.packbits(~missing, bitorder="little")) if missing.any() else None
    return pa.DictionaryArray.from_buffers(pa.dictionary(pa.int8(), pa.string()), len(codes),
                                           [validity, pa.py_buffer(codes.astype(np.int8))], dictionary)


def expand_sources(spec: str) -> list[str]:
    """A file, a directory (its files, in name order, but for names starting '.' or '_', such as
    Spark's ``_SUCCESS``) or a glob → the files to read; '-' is standard input."""
    if spec == "-":
        return ["-"]
    p = Path(spec)
    if p.is_dir():
        files = sorted(str(f) for f in p.iterdir() if f.is_file() and not f.name.startswith((".", "_")))
        if not files:
            raise ExactOddsError(f"{spec}: an empty directory")
        return files
    if any(ch in spec for ch in "*?["):
        files = sorted(f for f in glob.glob(spec) if Path(f).is_file())
        if not files:
            raise ExactOddsError(f"{spec}: no file matches")
        return files
    if not p.exists():
        raise ExactOddsError(f"{spec}: no such file")
    if not p.is_file():
        raise ExactOddsError(f"{spec}: not a regular file")
    return [spec]


def detect(path: str, given: str | None) -> tuple[str, str | None]:
    """(format, compression) from ``given`` or the file's extensions."""
    suffixes = [s.lower() for s in Path(path).suffixes] if path != "-" else []
    _check_compression(path, suffixes)
    compression = _COMPRESSION.get(suffixes[-1]) if suffixes else None
    if compression:
        suffixes = suffixes[:-1]
    if given is not None:
        if given not in FORMATS:
            raise ExactOddsError(f"--input-format must be one of {', '.join(FORMATS)}, got {given!r}")
        fmt = given
    elif suffixes and suffixes[-1].lstrip(".") in FORMATS:
        fmt = suffixes[-1].lstrip(".")
    elif path == "-":
        raise ExactOddsError("reading standard input needs --input-format csv or jsonl")
    else:
        fmt = "csv"
    if fmt == "parquet" and compression:
        raise ExactOddsError(f"{path}: Parquet compresses itself; drop the {Path(path).suffix}")
    if fmt == "parquet" and path == "-":
        raise ExactOddsError("-: Parquet is read and written as a named file, not through a pipe")
    return fmt, compression


def _check_compression(path: str, suffixes: list[str]) -> None:
    if suffixes and suffixes[-1] in _OTHER_COMPRESSION:
        raise ExactOddsError(f"{path}: {suffixes[-1]} files are not read or written here; "
                             f"use .gz, .zst, .bz2 or .lz4 (or none)")


def _stream(path: str, compression: str | None) -> Any:
    pa = extras.load("pyarrow")
    try:
        return pa.input_stream(path, compression=compression)
    except (OSError, pa.ArrowException) as exc:
        raise ExactOddsError(f"{path}: cannot read ({exc})") from None


def _rows_for(columns: int, rows: int) -> int:
    """Records per chunk: ``rows``, or fewer for wide records, so that a chunk's memory is bounded."""
    return max(1 << 12, min(rows, (1 << 24) // max(1, columns)))


def read_chunks(path: str, *, fmt: str | None = None, rows: int = CHUNK_ROWS,
                stop: threading.Event | None = None) -> Iterator[Chunk]:
    """The rounds of one file (or standard input) in chunks of about ``rows`` records (fewer when
    a record has many settlement columns: a chunk holds about 16 million fields, and a CSV or
    JSON Lines chunk is read from at most 8 MiB of text). ``stop``: when set, the reading ends
    within a block of text (:class:`read_ahead` sets it to stop its thread in good time)."""
    kind, compression = detect(path, fmt)
    if kind == "csv" and fmt is None and path != "-" and _looks_like_json(path, compression):
        kind = "jsonl"                                  # a JSON Lines file under another name
    if kind == "parquet":
        yield from _parquet(path, rows)
    elif kind == "jsonl":
        yield from _jsonl(path, compression, rows, stop)
    else:
        yield from _csv(path, compression, rows, stop)


class read_ahead(Iterator[Chunk]):                     # noqa: N801 - used as a function
    """The same chunks, read on a thread (started at once) up to ``depth`` chunks ahead, so that
    parsing, which releases the GIL, overlaps counting. An error while reading is raised here,
    in order. The thread stops when this is exhausted, closed or dropped."""

    _END = object()

    def __init__(self, chunks: Iterator[Chunk], depth: int = 2, stop: threading.Event | None = None):

        self._ready: queue.Queue[Any] = queue.Queue(maxsize=depth)
        self._stop = stop if stop is not None else threading.Event()
        self._done = False
        self._thread = threading.Thread(target=self._run, args=(chunks,), name="exactodds-read", daemon=True)
        self._thread.start()

    @classmethod
    def of(cls, path: str, *, fmt: str | None = None) -> read_ahead:
        """The chunks of a file read ahead, the reading stopped within a block when this is closed."""
        stop = threading.Event()
        return cls(read_chunks(path, fmt=fmt, stop=stop), stop=stop)

    def _put(self, item: Any) -> bool:

        while not self._stop.is_set():
            try:
                self._ready.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _run(self, chunks: Iterator[Chunk]) -> None:
        try:
            for chunk in chunks:
                if not self._put(chunk):
                    return
            self._put(self._END)
        except BaseException as exc:                   # noqa: BLE001 - handed over to the reader
            self._put(exc)

    def __next__(self) -> Chunk:
        if self._done:
            raise StopIteration
        item = self._ready.get()
        if isinstance(item, BaseException):
            self.close()
            raise item
        if item is self._END:
            self.close()
            raise StopIteration
        return cast(Chunk, item)

    def close(self) -> None:
        """Stop reading and wait for the thread to finish the chunk it is parsing: a thread left
        inside the parser while the interpreter exits can crash it."""
        self._done = True
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join()

    def __del__(self) -> None:
        self._stop.set()


def read_note(path: str, *, fmt: str | None = None) -> str | None:
    """The note a file carries (its lines beginning ``#`` before the header or the first record, each
    without the ``#`` and one space after it, unescaped as :func:`_note_lines` escapes them; or a Parquet
    file's ``exactodds.note``), None if it has none. What a CSV tool adds on the way back is taken off: line
    ends turned to CRLF, and the commas that pad a line to the width of the records."""
    kind, compression = detect(path, fmt)
    if path == "-":
        raise ExactOddsError("-: a note is read from a named file, not standard input")
    if kind == "parquet":
        pa = extras.load("pyarrow")
        pq = extras.load("pyarrow.parquet")
        try:
            raw = (pq.ParquetFile(path).schema_arrow.metadata or {}).get(_NOTE_KEY)
        except (pa.ArrowException, OSError) as exc:
            raise ExactOddsError(f"{path}: not a readable Parquet file ({_first_line(exc)})") from None
        except UnicodeDecodeError:                     # the schema's names are read as text
            raise ExactOddsError(f"{path}: not a readable Parquet file (a column name is not UTF-8 text)") from None
        if raw is None:
            return None
        if len(raw) > MAX_NOTE_BYTES:
            raise ExactOddsError(f"{path}: its note holds more than {MAX_NOTE_BYTES:,} bytes, the most a file's "
                                 "note may")
        try:
            return bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            raise ExactOddsError(f"{path}: its note ({_NOTE_KEY.decode()}) is not UTF-8 text") from None
    source = _Lines(path, compression)
    try:
        next(source, None)
    finally:
        source.close()
    if not source.note:
        return None
    lines = [line.removesuffix(b"\r").rstrip(b",") for line in source.note]     # an escaped note has neither
    try:
        text = b"\n".join(line[1:].removeprefix(b" ") for line in lines).decode("utf-8")
    except UnicodeDecodeError:
        raise ExactOddsError(f"{path}: its note (the lines beginning '#' at the start) is not UTF-8 text") from None
    return re.sub("%(25|22|2C|0D)", lambda m: _UNESCAPED[m[1]], text)


#: What a note's lines escape, so that a CSV tool reads each as one field and writes it back as it was.
_ESCAPED = {"%": "%25", '"': "%22", ",": "%2C", "\r": "%0D"}
_UNESCAPED = {code[1:]: char for char, code in _ESCAPED.items()}


def _note_lines(note: str, where: str) -> bytes:
    """``note`` as the lines beginning ``#`` a CSV or JSON Lines file starts with, each within the longest line
    read; ``%``, ``"``, ``,`` and a carriage return written ``%25``, ``%22``, ``%2C`` and ``%0D``."""
    escaped = re.sub('[%",\r]', lambda m: _ESCAPED[m[0]], note)
    data = "".join(f"#{' ' + line if line else ''}\n" for line in escaped.split("\n")).encode("utf-8")
    if len(data) > MAX_NOTE_BYTES:
        raise ExactOddsError(f"{where}: a note of more than {MAX_NOTE_BYTES:,} bytes, the most a file's note may hold")
    if max(len(line) for line in data.split(b"\n")) > MAX_RECORD_BYTES:
        raise ExactOddsError(f"{where}: a line of its note is longer than {MAX_RECORD_BYTES:,} bytes, the longest "
                             "line read back")
    return data


def _looks_like_json(path: str, compression: str | None) -> bool:
    stream = _stream(path, compression)
    try:
        head = stream.read(256)
    except (OSError, EOFError):
        return False
    finally:
        stream.close()
    text = bytes(head).decode("utf-8-sig", errors="replace").lstrip()
    if text[:1] == "#":                                 # a note first: look past it
        source = _Lines(path, compression)
        try:
            first = next(source, None)
        except ExactOddsError:
            return False
        finally:
            source.close()
        text = "" if first is None else first[1][:256].decode("utf-8", errors="replace").lstrip()
    return text[:1] == "{"


def _decode(column: Any) -> tuple[np.ndarray, list[Any]]:
    """A pyarrow column → (codes, distinct values); null is a distinct value of its own (None).

    Dictionary-encoded columns (what Parquet and the CSV reader give here) are read
    straight from their buffers; others are dictionary-encoded first.
    """
    pa = extras.load("pyarrow")
    if isinstance(column, pa.ChunkedArray):
        parts = [_decode(c) for c in column.chunks] or [(np.zeros(0, dtype=np.intp), [])]
        if len(parts) == 1:
            return parts[0]
        values: list[Any] = []
        index: dict[Any, int] = {}
        joined = []
        for part_codes, part_values in parts:
            remap = np.array([index.setdefault(v, len(index)) for v in part_values] or [0], dtype=np.intp)
            joined.append(np.take(remap, part_codes))
        return np.concatenate(joined), list(index)
    if pa.types.is_null(column.type):
        return np.zeros(len(column), dtype=np.intp), [None]
    if not pa.types.is_dictionary(column.type):
        pc = extras.load("pyarrow.compute")
        column = pc.dictionary_encode(column)
    indices = column.indices
    n, offset = len(indices), indices.offset
    kind = "u" if pa.types.is_unsigned_integer(indices.type) else "i"
    validity, data = indices.buffers()[:2]
    codes = np.frombuffer(data, dtype=np.dtype(f"{kind}{indices.type.bit_width // 8}"), count=offset + n)[offset:]
    values = column.dictionary.to_pylist()
    if indices.null_count:                        # a null entry (no third card): a value of its own
        valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), count=offset + n, bitorder="little")[offset:]
        codes = np.where(valid.view(bool), codes.astype(np.int32), len(values))
        values = values + [None]
    return codes, values


def _cards(columns: Sequence[Any]) -> np.ndarray:
    out = np.empty((len(columns[0]), 6), dtype=np.int16)
    for j, col in enumerate(columns):
        codes, values = _decode(col)
        lookup = np.array([card_index(v) for v in values] or [-1], dtype=np.int16)
        out[:, j] = np.take(lookup, codes)
    return out


def _check_header(path: str, names: list[str], line: int = 1) -> list[str]:
    if [n.strip() for n in names[:6]] != list(CARD_COLUMNS):
        binary = any(not ch.isprintable() for n in names for ch in n)
        raise ExactOddsError(f"{path}:{line}: the header must start with {','.join(CARD_COLUMNS)}"
                             + ("; this is not text: a compressed or Parquet file is named by its extension "
                                "(.gz, .zst, .bz2, .lz4, .parquet) or --input-format" if binary else ""))
    extra = [n.strip() for n in names[6:]]
    seen: set[str] = set()
    for name in extra:
        if name in seen:
            raise ExactOddsError(f"{path}:{line}: settlement column {name!r} appears twice")
        if ":" not in name and name not in (SHOE_COLUMN, STAKE_COLUMN, ROUND_COLUMN):
            raise ExactOddsError(f"{path}:{line}: column {name!r} is not a card column, WAGER:PAYTABLE, {SHOE_COLUMN}, "
                                 f"{ROUND_COLUMN} nor {STAKE_COLUMN}")
        seen.add(name)
    return extra


class _Lines:
    """A byte stream (a file, decompressed as it is read, or standard input) in whole lines, a block
    at a time: memory holds one block and one unfinished line, and a line longer than
    :data:`MAX_RECORD_BYTES` is an error naming it. Reading happens on the caller's thread, so
    Ctrl-C and SIGTERM are seen between blocks."""

    def __init__(self, path: str, compression: str | None, stop: threading.Event | None = None, *,
                 block: int = _BLOCK):
        self.path = path
        self.stop = stop
        self.block = block
        self.stream: Any = sys.stdin.buffer if path == "-" else _stream(path, compression)
        self.line = 1                                   # the line of the next byte handed out
        self.offset = 0                                 # bytes handed out so far
        self.note: list[bytes] = []                     # the '#' lines before the first record or header
        self._head = True                               # still at the note
        self._note_bytes = 0
        self._carry = b""
        self._done = False

    def close(self) -> None:
        if self.path != "-":
            self.stream.close()

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        return self

    def __next__(self) -> tuple[int, bytes]:
        """(the line of its first byte, whole lines, the last with its line end but at the stream's end);
        the note's lines are kept in :attr:`note`, not handed out."""
        while True:
            line, piece = self._piece()
            if self._head:
                line, piece = self._past_note(line, piece)
            if piece:
                return line, piece

    def _past_note(self, line: int, piece: bytes) -> tuple[int, bytes]:
        """``piece`` without the note's lines at its start (kept in :attr:`note`), and the line it then starts at."""
        start = 3 if line == 1 and piece.startswith(b"\xef\xbb\xbf#") else 0     # a byte-order mark before it
        while start < len(piece):
            if piece[start:start + 1] != b"#":
                self._head = False
                break
            end = piece.find(b"\n", start)
            end = len(piece) if end < 0 else end
            self._note_bytes += end - start + 1
            if self._note_bytes > MAX_NOTE_BYTES:
                raise ExactOddsError(f"{self.path}:{line}: the lines beginning '#' at the start hold more than "
                                     f"{MAX_NOTE_BYTES:,} bytes, the most a file's note may")
            self.note.append(piece[start:end])
            start, line = end + 1, line + 1
        return line, piece[start:]

    def _piece(self) -> tuple[int, bytes]:
        while not self._done:
            if self.stop is not None and self.stop.is_set():     # the reader has stopped listening
                raise StopIteration
            try:
                data = self.stream.read(self.block)
            except (OSError, EOFError) as exc:
                raise ExactOddsError(f"{self.path}: cannot read ({_first_line(exc)})") from None
            if not data:
                self._done = True
                break
            data = self._carry + bytes(data)
            end = data.rfind(b"\n") + 1
            self._carry = data[end:]
            if len(self._carry) > MAX_RECORD_BYTES:
                self._too_long(data[:end].count(b"\n"), self._carry)
            if end:
                return self._hand_out(data[:end])
        if self._carry:
            piece, self._carry = self._carry, b""
            return self._hand_out(piece)
        raise StopIteration

    def _hand_out(self, piece: bytes) -> tuple[int, bytes]:
        ends = np.flatnonzero(np.frombuffer(piece, dtype=np.uint8) == 10)
        lengths = np.diff(ends, prepend=-1) - 1
        if len(lengths) and int(lengths.max()) > MAX_RECORD_BYTES:
            k = int(np.argmax(lengths > MAX_RECORD_BYTES))
            self._too_long(k, piece[ends[k] - lengths[k]:ends[k]])
        line = self.line
        self.line += len(ends)
        self.offset += len(piece)
        return line, piece

    def _too_long(self, lines_before: int, text: bytes) -> None:
        line = self.line + lines_before
        binary = line == 1 and b"\0" in text[:4096]
        raise ExactOddsError(f"{self.path}:{line}: a line longer than {MAX_RECORD_BYTES:,} bytes, the longest "
                             "record read"
                             + ("; this is not text: a compressed or Parquet file is named by its extension "
                                "(.gz, .zst, .bz2, .lz4, .parquet) or --input-format" if binary else
                                " (is a line end missing?)"))


def _record_lines(piece: bytes, first: int) -> np.ndarray:
    """The lines of the records in ``piece`` (whole lines from line ``first``): the lines not blank."""
    data = np.frombuffer(piece, dtype=np.uint8)
    ends = np.flatnonzero(data == 10)
    if not len(data) or data[-1] != 10:
        ends = np.append(ends, len(data))
    starts = np.concatenate([[0], ends[:-1] + 1])
    blank = (ends == starts) | ((ends == starts + 1) & (np.take(data, np.maximum(ends - 1, 0), mode="clip") == 13))
    return first + np.flatnonzero(~blank)


def _csv(path: str, compression: str | None, rows: int, stop: threading.Event | None = None) -> Iterator[Chunk]:
    """CSV, a block of whole lines at a time, each parsed by pyarrow's CSV reader (in this thread:
    nothing of pyarrow's reads or calls back into Python later). A block it refuses (a wrong
    number of fields, a stray quote) is read again with the csv module, which names each record's
    line: malformed ones are listed (an error unless ``--lenient``)."""
    pa = extras.load("pyarrow")
    pcsv = extras.load("pyarrow.csv")
    source = _Lines(path, compression, stop)
    try:
        first = next(source, None)
        top, text = first if first is not None else (1, b"")      # the header's line: after the note, if any
        head, _, rest = text.partition(b"\n")
        head = head.removeprefix(b"\xef\xbb\xbf")
        if not (head + rest).strip():
            raise ExactOddsError(f"{path}: empty file")
        try:
            names = next(csv.reader([head.decode("utf-8", errors="replace").rstrip("\r")]), [])
        except csv.Error as exc:                         # e.g. a bare carriage return: lines end with \n
            raise ExactOddsError(f"{path}:{top}: not a readable CSV header ({exc}; lines end with \\n or "
                                 "\\r\\n)") from None
        extra = _check_header(path, names, top)
        rows = _rows_for(len(names), rows)
        options = (pcsv.ReadOptions(column_names=names, use_threads=False, block_size=2 * _BLOCK),
                   pcsv.ParseOptions(newlines_in_values=False),
                   pcsv.ConvertOptions(strings_can_be_null=False, quoted_strings_can_be_null=False,
                                       column_types={n: pa.dictionary(pa.int32(), pa.string()) for n in names}))
        pending: list[Any] = []
        lines: list[np.ndarray] = []
        count = size = 0
        pieces = itertools.chain([(top + 1, rest)] if rest else [], source)
        for line, piece in pieces:
            try:
                table = pcsv.read_csv(pa.py_buffer(piece), *options)
                at = _record_lines(piece, line)
                if len(at) != table.num_rows:
                    raise pa.ArrowInvalid("records span lines")
            except pa.ArrowInvalid:                      # read again, record by record
                if pending:
                    yield _csv_chunk(path, pending, extra, lines)
                    pending, lines, count, size = [], [], 0, 0
                yield _csv_by_line(path, piece, line, extra, len(names))
                continue
            except pa.ArrowException as exc:
                raise ExactOddsError(f"{path}:{line}: {_first_line(exc)}") from None
            pending.append(table)
            lines.append(at)
            count += len(at)
            size += len(piece)
            if count >= rows or size >= _CHUNK_BYTES:    # a chunk is bounded in records and in bytes read
                yield _csv_chunk(path, pending, extra, lines)
                pending, lines, count, size = [], [], 0, 0
        if pending:
            yield _csv_chunk(path, pending, extra, lines)
    finally:
        source.close()


def _csv_by_line(path: str, piece: bytes, first: int, extra: list[str], ncols: int) -> Chunk:
    """Whole lines from line ``first`` read by the csv module, every record with its line; malformed ones listed."""
    fields: list[list[str]] = []
    lines: list[int] = []
    invalid: list[tuple[str, int, str]] = []
    reader = csv.reader(io.StringIO(piece.decode("utf-8", errors="replace"), newline=""))
    start = 0
    while True:
        try:
            record = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:                         # e.g. a quote never closed
            raise ExactOddsError(f"{path}:{first + start}: not a readable CSV record ({exc})") from None
        line, start = first + start, reader.line_num
        if not record or record == [""]:
            continue
        if len(record) != ncols:
            invalid.append((path, line, f"expected {ncols} fields, found {len(record)} "
                            "(a truncated or malformed line)"))
        else:
            fields.append(record)
            lines.append(line)
    return _rows_chunk(path, fields, lines, invalid, extra)


def _rows_chunk(path: str, fields: list[list[str]], lines: list[int], invalid: list[tuple[str, int, str]],
                extra: list[str]) -> Chunk:
    pa = extras.load("pyarrow")
    columns = list(zip(*fields)) if fields else [()] * (6 + len(extra))
    cards = _cards([pa.array(list(c), pa.string()) for c in columns[:6]]) if fields else np.zeros((0, 6), np.int16)
    settled = {}
    for k, name in enumerate(extra):
        codes, values = _decode(pa.array(list(columns[6 + k]), pa.string())) if fields else (np.zeros(0, np.int64), [])
        settled[name] = (codes, [str(v).strip() for v in values])
    return Chunk(cards[:, :3], cards[:, 3:], np.array(lines, dtype=np.int64), path, settled, list(invalid), cards)


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _csv_chunk(path: str, tables: list[Any], extra: list[str], lines: list[np.ndarray]) -> Chunk:
    pa = extras.load("pyarrow")
    table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
    cards = _cards([table.column(i) for i in range(6)])
    settled = {name: _decode(table.column(6 + k)) for k, name in enumerate(extra)}
    settled = {name: (codes, [str(v).strip() for v in values]) for name, (codes, values) in settled.items()}
    return Chunk(cards[:, :3], cards[:, 3:], np.concatenate(lines), path, settled, whole=cards)


def _parquet_batches(pf: Any, rows: int, path: str) -> Iterator[Any]:
    """The file's records about ``rows`` at a time, small row groups gathered together. A reader
    per row group: one reader over a whole file held more and more memory (pyarrow 26)."""
    pa = extras.load("pyarrow")
    pending: list[Any] = []
    size = 0
    meta = pf.metadata
    for group in range(meta.num_row_groups):
        g = meta.row_group(group)
        limit = MAX_RECORD_BYTES * max(g.num_rows, 1)      # no more text than its records may hold
        for j in range(g.num_columns):
            if g.column(j).total_uncompressed_size > limit:
                raise ExactOddsError(
                    f"{path}: row group {group}: column {g.column(j).path_in_schema} holds "
                    f"{g.column(j).total_uncompressed_size:,} bytes for {g.num_rows:,} records, more than "
                    f"{MAX_RECORD_BYTES:,} a record")
        for batch in pf.iter_batches(batch_size=rows, row_groups=[group]):
            if batch.num_rows >= rows // 2:              # large enough on its own
                yield batch
                continue
            pending.append(batch)
            size += batch.num_rows
            if size >= rows // 2:
                yield pa.Table.from_batches(pending)
                pending, size = [], 0
    if pending:
        yield pa.Table.from_batches(pending)


def _longest_value(batch: Any) -> int:
    """The length in bytes of the longest text value of a batch of Parquet records."""
    pa = extras.load("pyarrow")
    pc = extras.load("pyarrow.compute")
    longest = 0
    arrays = [a for c in batch.columns for a in (c.chunks if isinstance(c, pa.ChunkedArray) else [c])]
    for column in arrays:
        if pa.types.is_dictionary(column.type):
            column = column.dictionary
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type) or \
                pa.types.is_binary(column.type):
            longest = max(longest, pc.max(pc.binary_length(column)).as_py() or 0)
    return longest


def _parquet(path: str, rows: int) -> Iterator[Chunk]:
    pa = extras.load("pyarrow")
    pq = extras.load("pyarrow.parquet")
    try:
        pf = pq.ParquetFile(path)
        names = pf.schema_arrow.names
    except (pa.ArrowException, OSError) as exc:
        raise ExactOddsError(f"{path}: not a readable Parquet file ({_first_line(exc)})") from None
    except UnicodeDecodeError:                      # a damaged file: a column name that is not text
        raise ExactOddsError(f"{path}: not a readable Parquet file (a column name is not UTF-8 text)") from None
    extra = _check_header(path, names)
    rows = _rows_for(len(names), rows)
    row = 1
    try:
        for batch in _parquet_batches(pf, rows, path):
            cols = [batch.column(i) for i in range(6)]
            if (longest := _longest_value(batch)) > MAX_RECORD_BYTES:
                raise ExactOddsError(f"{path}: rows from {row}: a value of {longest:,} bytes, longer than the "
                                     f"{MAX_RECORD_BYTES:,} bytes a record may hold")
            for name, col in zip(CARD_COLUMNS, cols):
                if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)
                        or pa.types.is_dictionary(col.type) or pa.types.is_null(col.type)):
                    raise ExactOddsError(f"{path}: column {name} holds {col.type}, not card text such as 'Ks'")
            cards = _cards(cols)
            settled = {}
            for k, name in enumerate(extra):
                codes, values = _decode(batch.column(6 + k))
                settled[name] = (codes, ["" if v is None else str(v) for v in values])
            yield Chunk(cards[:, :3], cards[:, 3:], np.arange(row, row + len(cards), dtype=np.int64), path, settled,
                        whole=cards)
            row += len(cards)
    except (pa.ArrowException, OSError) as exc:
        raise ExactOddsError(f"{path}: not a readable Parquet file ({_first_line(exc)})") from None
    except UnicodeDecodeError:                      # a damaged file: a string column that is not text
        raise ExactOddsError(f"{path}: rows from {row}: a value that is not UTF-8 text (a damaged Parquet "
                             "file?)") from None


def _jsonl(path: str, compression: str | None, rows: int, stop: threading.Event | None = None) -> Iterator[Chunk]:
    """JSON Lines: a record per line, read a block of whole lines at a time. Settlements are kept
    as codes per column while a chunk fills, and a chunk holds fewer records the more columns it
    has (and at most :data:`_CHUNK_BYTES` of text), so memory stays bounded."""
    source = _Lines(path, compression, stop)
    records = _JsonlRecords(path)
    rows = limit = min(rows, _JSONL_ROWS)
    size = 0
    try:
        for line, piece in source:
            for number, raw in enumerate(piece.split(b"\n"), start=line):
                if number % 1024 == 0 and stop is not None and stop.is_set():
                    return
                records.add(number, raw)
                if records.names is not None:            # Python lists hold a record: fewer a chunk
                    limit = _rows_for(4 * (6 + len(records.names)), rows)
                if records.pending >= limit:
                    yield records.flush()
                    size = 0
            size += len(piece)
            if size >= _CHUNK_BYTES:
                yield records.flush()
                size = 0
        if records.pending:
            yield records.flush()
    finally:
        source.close()


class _JsonlRecords:
    """The records of a JSON Lines chunk as they are read: cards, lines, and per settlement column
    the code of each record's value. The first record's ``settled`` keys name the file's columns."""

    def __init__(self, path: str):
        self.path = path
        self.names: list[str] | None = None
        self.key_colons: int | None = None
        self.players: list[list[int]] = []
        self.bankers: list[list[int]] = []
        self.lines: list[int] = []
        self.codes: dict[str, list[int]] = {}
        self.values: dict[str, dict[str, int]] = {}
        self.invalid: list[tuple[str, int, str]] = []

    @property
    def pending(self) -> int:
        return len(self.lines) + len(self.invalid)

    def add(self, number: int, raw: bytes) -> None:
        text = raw.decode("utf-8", errors="replace").strip()
        if number == 1 and text.startswith("\ufeff"):
            text = text[1:]
        if not text:
            return
        try:
            hands, settle = _jsonl_record(text, self.key_colons)
            if self.names is None:
                self.names = list(settle)
                self.key_colons = "".join(settle).count(":")
                self.codes = {name: [] for name in self.names}
                self.values = {name: {} for name in self.names}
            elif settle.keys() != self.codes.keys():        # the columns are the first record's
                lacks = sorted(set(self.names) - set(settle))
                raise ValueError(f"'settled' lacks {lacks[0]!r}, which the file's first record has" if lacks else
                                 f"'settled' has {sorted(set(settle) - set(self.names))[0]!r}, "
                                 "which the file's first record has not")
        except (json.JSONDecodeError, RecursionError, ValueError) as exc:
            self.invalid.append((self.path, number, f"unreadable record ({exc})"))
            return
        self.players.append(hands[0])
        self.bankers.append(hands[1])
        self.lines.append(number)
        for name, value in settle.items():
            seen = self.values[name]
            self.codes[name].append(seen.setdefault(value.strip(), len(seen)))

    def flush(self) -> Chunk:
        settled = {name: (np.array(codes, dtype=np.int64), list(self.values[name]))
                   for name, codes in self.codes.items()}
        chunk = Chunk(np.array(self.players, dtype=np.int16).reshape(-1, 3),
                      np.array(self.bankers, dtype=np.int16).reshape(-1, 3),
                      np.array(self.lines, dtype=np.int64), self.path, settled, list(self.invalid))
        for pending in (self.players, self.bankers, self.lines, self.invalid):
            pending.clear()
        for codes in self.codes.values():
            codes.clear()
        return chunk


def _jsonl_record(text: str, key_colons: int | None = None) -> tuple[list[list[int]], dict[str, str]]:
    """(the Player's and the Banker's card indices, -1 for none; the settlements) of one record.

    ``key_colons``: the ':'s inside the settlement names of the file's first record, which every other
    record must repeat (checked by the caller; a record that does not is refused)."""
    rec = json.loads(text)
    if not isinstance(rec, dict):
        raise ValueError("a record is an object with 'player' and 'banker'")
    hands = []
    for hand in ("player", "banker"):
        cards = rec.get(hand)
        if not isinstance(cards, list) or not 2 <= len(cards) <= 3:
            raise ValueError(f"'{hand}' must list 2 or 3 cards")
        idx = []
        for c in cards:
            if not isinstance(c, str):
                raise ValueError(f"'{hand}' holds {json.dumps(c)}: cards are text such as \"Ks\", not numbers")
            k = card_index(c)
            if k < 0:
                raise ValueError(f"'{hand}' holds {c!r}, not a card")
            idx.append(k)
        hands.append(idx + [-1] * (3 - len(idx)))
    settle = rec.get("settled", {})
    if not isinstance(settle, dict) or not all(isinstance(v, str) or _number(v) for v in settle.values()):
        raise ValueError("'settled' maps WAGER:PAYTABLE to the outcome id paid, or the amount won or lost")
    settle = {k: v if isinstance(v, str) else str(v) for k, v in settle.items()}
    if extra := set(rec) - {"player", "banker", "settled", SHOE_COLUMN, STAKE_COLUMN, ROUND_COLUMN}:
        raise ValueError(f"unknown key {sorted(extra)[0]!r}")
    shoe = rec.get(SHOE_COLUMN)
    if SHOE_COLUMN in rec and (isinstance(shoe, bool) or not isinstance(shoe, (str, int))):
        raise ValueError(f"'{SHOE_COLUMN}' names the round's shoe: a number or text")
    colons = text.count(":")                            # one after each key, so a key given twice adds one
    if (colons != len(rec) + len(settle) + ("".join(settle).count(":") if key_colons is None else key_colons)
            and colons != len(rec) + len(settle) + "".join(settle).count(":") + "".join(settle.values()).count(":")):
        try:                                            # the uncommon case: read again, strictly
            json.loads(text, object_pairs_hook=unique_keys)
        except DuplicateKey as exc:
            raise ValueError(f"duplicate key {exc.key!r}") from None
    if SHOE_COLUMN in rec:
        settle = {**settle, SHOE_COLUMN: str(shoe)}
    if ROUND_COLUMN in rec:
        number = rec[ROUND_COLUMN]
        if isinstance(number, bool) or not isinstance(number, (str, int)):
            raise ValueError(f"'{ROUND_COLUMN}' numbers the round in its shoe: a whole number")
        settle = {**settle, ROUND_COLUMN: str(number)}
    if STAKE_COLUMN in rec:
        stake = rec[STAKE_COLUMN]
        if not (isinstance(stake, str) or _number(stake)):
            raise ValueError(f"'{STAKE_COLUMN}' is the round's stake: a number")
        settle = {**settle, STAKE_COLUMN: str(stake)}
    return hands, settle


def _number(value: Any) -> bool:
    """A JSON number (an amount written without quotes), not a boolean."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# -- writing -------------------------------------------------------------------------------------

class RecordWriter:
    """Writes records in chunks to a temporary file beside ``path``, renamed into place when
    complete; removed on an error, Ctrl-C or SIGTERM. ``-`` writes standard output.

    ``option`` names the file in an error (``--output``, ``--validation``). With ``outputs`` (a
    :class:`exactodds.files.Outputs` the caller holds) the file is one of a group and is renamed into
    place with the others when the group's block ends, or not at all. ``note``: text the file carries
    before its records (:func:`read_note` reads it back).
    """

    def __init__(self, path: str, fmt: str, columns: Sequence[str], *, option: str = "--output",
                 outputs: Outputs | None = None, note: str | None = None):
        if fmt not in FORMATS:
            raise ExactOddsError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
        self.path, self.fmt, self.columns, self.option = path, fmt, list(columns), option
        self.compression: str | None = None
        if path != "-":
            _check_compression(f"{option} {path}", [Path(path).suffix.lower()])
            self.compression = _COMPRESSION.get(Path(path).suffix.lower())
            if fmt == "parquet" and self.compression:
                raise ExactOddsError(f"{option} {path}: Parquet compresses itself; drop the {Path(path).suffix}")
        elif fmt == "parquet":
            raise ExactOddsError(f"{option} -: Parquet is written to a file")
        lines = None if note is None else _note_lines(note, f"{option} {path}")     # checked in any format
        self.note = lines if fmt != "parquet" or note is None else note.encode("utf-8")
        self._group = outputs
        self._own = contextlib.ExitStack()
        self._sink: Any = None
        self._writer: Any = None
        self.rows = 0

    def __enter__(self) -> RecordWriter:
        pa = extras.load("pyarrow")
        if self.path == "-":
            self._raw: BinaryIO = sys.stdout.buffer
            self._sink = pa.PythonFile(self._raw, mode="w")
            return self
        group = self._group or self._own.enter_context(Outputs())      # its own group of one, else the caller's
        tmp = group.temporary(self.path, option=self.option)
        with self._failing():
            self._sink = pa.output_stream(tmp, compression=self.compression)
        return self

    @contextlib.contextmanager
    def _failing(self) -> Iterator[None]:
        """A failed write to the file (a full disk) as one line naming it; standard output's own errors pass."""
        try:
            yield
        except OSError as exc:                            # pyarrow's I/O errors are OSErrors too
            if self.path == "-":
                raise
            raise cannot_write(self.option, self.path, exc) from None

    def _discard(self) -> None:
        parts = (self._writer,) if self.path == "-" else (self._writer, self._sink)   # standard output stays open
        for part in parts:                            # the writer first: closed later, it would find no file
            try:
                if part is not None:
                    part.close()
            except Exception:                         # noqa: BLE001 - the file goes anyway (with its group)
                pass
        self._writer = self._sink = None

    def write(self, table: Any) -> None:
        """Write one chunk (a pyarrow Table with :attr:`columns`)."""
        pcsv = extras.load("pyarrow.csv")
        pq = extras.load("pyarrow.parquet")
        with self._failing():
            if self.fmt == "parquet":
                if self._writer is None:
                    schema = table.schema if self.note is None else table.schema.with_metadata(
                        {**(table.schema.metadata or {}), _NOTE_KEY: self.note})
                    self._writer = pq.ParquetWriter(self._sink, schema, compression="snappy",
                                                   write_statistics=False)   # min/max of card text: of no use
                self._writer.write_table(table)
            elif self.fmt == "csv":
                if self._writer is None:
                    self._sink.write((self.note or b"") + (",".join(self.columns) + "\n").encode("utf-8"))
                    self._writer = pcsv.CSVWriter(self._sink, table.schema, write_options=pcsv.WriteOptions(
                        include_header=False, quoting_style="none"))
                self._writer.write_table(table)
            else:                                             # slices: Python objects for a few rows at a time
                if self.rows == 0 and self.note is not None:
                    self._sink.write(self.note)
                    self.note = None
                step = max(1, _rows_for(table.num_columns, 1 << 19) // 16)
                for start in range(0, table.num_rows, step):
                    self._sink.write(_jsonl_bytes(table.slice(start, step)))
        self.rows += table.num_rows

    def __exit__(self, kind: Any, value: Any, tb: Any) -> None:
        try:
            if kind is None:
                with self._failing():
                    if self._writer is not None:
                        self._writer.close()
                    if self.path != "-":
                        self._sink.close()
                    else:
                        self._sink.flush()
            else:
                self._discard()
        except BaseException as exc:
            self._discard()
            self._own.__exit__(type(exc), exc, exc.__traceback__)     # its own group removes the file
            raise
        self._own.__exit__(kind, value, tb)           # its own group renames the file into place, or removes it


def _jsonl_bytes(table: Any) -> bytes:
    """A record table as JSON Lines, ``{"player": [...], "banker": [...], "settled": {...}}`` a line
    (as ``json.dumps`` writes it): each distinct value is encoded once, then joined row by row."""
    def texts(name: str, entry: str = "") -> list[str | None]:     # each row's JSON text, None when null
        codes, values = _decode(table.column(name))
        encoded = [None if v is None else entry + json.dumps(v) for v in values]
        return [encoded[c] for c in codes.tolist()]

    hands = [list(zip(*(texts(n) for n in names))) for names in (CARD_COLUMNS[:3], CARD_COLUMNS[3:])]
    settled = [texts(n, json.dumps(n) + ": ") for n in table.column_names
               if n not in (*CARD_COLUMNS, SHOE_COLUMN, STAKE_COLUMN)]
    shoes = texts(SHOE_COLUMN, f'"{SHOE_COLUMN}": ') if SHOE_COLUMN in table.column_names else None
    stakes = texts(STAKE_COLUMN, f'"{STAKE_COLUMN}": ') if STAKE_COLUMN in table.column_names else None
    out = []
    for row, (player, banker) in enumerate(zip(*hands)):
        line = ('{"player": [' + ", ".join(c for c in player if c) + '], "banker": ['
                + ", ".join(c for c in banker if c) + "]")
        if settled:
            line += ', "settled": {' + ", ".join(str(column[row]) for column in settled) + "}"
        if shoes is not None:
            line += ", " + str(shoes[row])
        if stakes is not None:
            line += ", " + str(stakes[row])
        out.append(line + "}")
    return ("\n".join(out) + "\n").encode("utf-8") if out else b""
