"""The disk cache can only make things faster (issue 22): an edited, damaged or forged file is never
used, counts that do not add up are a clean error, verify never reads the cache, and the cache
deletes only what it wrote.

The CLI runs in a fresh process wherever the cache directory matters.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from exactodds import Shoe, cache
from exactodds.analyses.pricing import feature_table
from exactodds.documents.certificate import build, verify
from exactodds.engine.multiset import _compile, _table, _to_arrays, compile_table
from exactodds.engine.roundtable import POINT_NAMES
from exactodds.wagers.catalogue import load_catalogue

ROOT = Path(__file__).resolve().parents[1]
DATA_627A = ROOT / "exactodds" / "data" / "627a.toml"
POINT_TABLE = tuple(sorted(POINT_NAMES))
BANKER_8 = ("analyze", "--wager", "banker", "--decks", "8")
TIE_8 = ("analyze", "--wager", "tie:8-to-1", "--decks", "8")
BANKER_EDGE = "House edge: 1.0579% (exact 114753351728/10847218479825)"      # published, 8 decks
TIE_EDGE = "House edge: 14.3596%"                                             # published, 8 decks, 8 to 1


def exactodds(cache_dir: Path | str, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a fresh process with its own cache directory."""
    env = dict(os.environ, EXACTODDS_CACHE_DIR=str(cache_dir), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "exactodds.cli", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=600)


def cached(cache_dir: Path, kind: str) -> list[Path]:
    return sorted(cache_dir.rglob(f"{kind}-*.npz"))


def edit(path: Path, change: Callable[[dict[str, np.ndarray]], None]) -> None:
    """Change a cached file as anyone with NumPy would: every array kept, one changed, saved in place."""
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    change(arrays)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def one_warning(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("exactodds: warning:") and "Traceback" not in stderr, stderr
    return lines[0]


def banker_7_over_player_6_becomes_a_tie(arrays: dict[str, np.ndarray]) -> None:
    banker, player = arrays["column:banker"].copy(), arrays["column:player"]
    banker[np.flatnonzero((banker == 7) & (player == 6))[0]] = 6
    arrays["column:banker"] = banker


def parse_of_627a(cache_dir: Path) -> Path:
    shipped = tomllib.loads(DATA_627A.read_text(encoding="utf-8"))
    (path,) = [p for p in cached(cache_dir, "toml") if json.loads(str(np.load(p)["json"])) == shipped]
    return path


def tie_pays_80_to_1(arrays: dict[str, np.ndarray]) -> None:
    text = str(arrays["json"])
    assert text.count('"tie": "8 to 1"') == 1
    arrays["json"] = np.array(text.replace('"tie": "8 to 1"', '"tie": "80 to 1"'))


def forge_627a_tie_80_to_1() -> None:
    """Write the parse of 627a with the Tie at 80 to 1 through the cache itself (its digest is right)."""
    text = DATA_627A.read_text(encoding="utf-8")
    forged = json.dumps(tomllib.loads(text)).replace('"tie": "8 to 1"', '"tie": "80 to 1"')
    cache.save("toml", hashlib.sha256(text.encode()).hexdigest(), {"json": np.array(forged)})


@pytest.fixture()
def in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This process's cache in ``tmp_path``, with nothing held in memory before or after."""
    def clear() -> None:
        for memo in (_table, feature_table, load_catalogue):
            memo.cache_clear()

    monkeypatch.setenv("EXACTODDS_CACHE_DIR", str(tmp_path))
    clear()
    yield tmp_path
    monkeypatch.undo()
    clear()


# -- the findings ---------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_changed_value_in_a_cached_table_is_rebuilt_not_used(tmp_path: Path) -> None:
    assert BANKER_EDGE in exactodds(tmp_path, *BANKER_8).stdout
    (table,) = cached(tmp_path, "multiset")
    edit(table, banker_7_over_player_6_becomes_a_tie)
    r = exactodds(tmp_path, *BANKER_8)
    assert r.returncode == 0 and BANKER_EDGE in r.stdout
    assert table.name in one_warning(r.stderr)
    again = exactodds(tmp_path, *BANKER_8)                    # rebuilt: read from the cache, no word
    assert again.returncode == 0 and BANKER_EDGE in again.stdout and again.stderr == ""


@pytest.mark.slow
def test_80_to_1_in_the_cached_parse_of_627a_is_rebuilt_not_used(tmp_path: Path) -> None:
    uncached = exactodds("off", *TIE_8)
    assert TIE_EDGE in uncached.stdout
    exactodds(tmp_path, *TIE_8)
    parse = parse_of_627a(tmp_path)
    edit(parse, tie_pays_80_to_1)
    r = exactodds(tmp_path, *TIE_8)
    assert r.returncode == 0 and r.stdout == uncached.stdout
    assert parse.name in one_warning(r.stderr)


@pytest.mark.slow
def test_a_certificate_built_on_an_edited_cache_holds_the_right_figures_and_verifies(tmp_path: Path) -> None:
    args = ("certificate", "--wager", "tie:8-to-1", "--decks", "8", "--issued", "2025-01-02", "--format", "json")
    uncached = exactodds("off", *args)
    assert uncached.returncode == 0 and '"pays": "8 to 1"' in uncached.stdout
    exactodds(tmp_path, *TIE_8)
    (table,) = cached(tmp_path, "multiset")
    edit(table, banker_7_over_player_6_becomes_a_tie)
    edit(parse_of_627a(tmp_path), tie_pays_80_to_1)
    r = exactodds(tmp_path, *args, "--output", str(tmp_path / "tie.json"))
    assert r.returncode == 0 and "Traceback" not in r.stderr
    # the figures are computed with the cache off; the catalogue read before that warns of its damaged parse
    assert sum(line.startswith("exactodds: warning:") for line in r.stderr.splitlines()) <= 2   # one per file read
    assert json.loads((tmp_path / "tie.json").read_text()) == json.loads(uncached.stdout)
    v = exactodds(tmp_path, "verify", str(tmp_path / "tie.json"))
    assert v.returncode == 0 and "verified" in v.stdout


@pytest.mark.slow
@pytest.mark.parametrize("array", ["entry_orderings", "key_starts", "entry_multiset", "multisets", "leaves",
                                   "resolution", "column:player"])
def test_tampering_any_array_of_a_cached_table_is_rebuilt_not_used(in_process: Path, array: str) -> None:
    fresh = _compile(POINT_TABLE)
    compile_table(POINT_TABLE)
    (table,) = cached(in_process, "multiset")

    def change(arrays: dict[str, np.ndarray]) -> None:
        a = arrays[array]
        arrays[array] = np.array("suit") if a.dtype.kind == "U" else (a + 1 if a.ndim == 0 else np.roll(a, 1))

    edit(table, change)
    _table.cache_clear()
    with pytest.warns(cache.CacheWarning, match=table.name):
        loaded = compile_table(POINT_TABLE)
    shoe = Shoe.decks(8).remove("9h", "5s")
    assert loaded.keys == fresh.keys and np.array_equal(loaded.counts(shoe), fresh.counts(shoe))


@pytest.mark.slow
def test_a_changed_count_in_a_cached_table_is_no_traceback(tmp_path: Path) -> None:
    exactodds(tmp_path, *BANKER_8)
    (table,) = cached(tmp_path, "multiset")
    edit(table, lambda a: a.update(entry_orderings=a["entry_orderings"] * 2))
    r = exactodds(tmp_path, *BANKER_8)
    assert r.returncode == 0 and BANKER_EDGE in r.stdout
    one_warning(r.stderr)


@pytest.mark.slow
def test_a_table_that_breaks_the_invariant_is_a_clean_error_and_discarded(in_process: Path) -> None:
    arrays = _to_arrays(_compile(POINT_TABLE))
    arrays["entry_orderings"] = arrays["entry_orderings"].copy()
    arrays["entry_orderings"][0] += 1                       # forged: the digest is right, the counts are not
    cache.save("multiset", "|".join(POINT_TABLE), arrays)
    r = exactodds(in_process, *BANKER_8)
    assert r.returncode == 1 and r.stdout == "" and "Traceback" not in r.stderr
    (line,) = r.stderr.splitlines()
    assert line.startswith("exactodds: error:") and "do not add up" in line and "discarded" in line
    assert not cached(in_process, "multiset")
    again = exactodds(in_process, *BANKER_8)
    assert again.returncode == 0 and BANKER_EDGE in again.stdout


@pytest.mark.slow
def test_a_certificate_is_built_with_the_cache_off_so_a_forged_cache_cannot_reach_it(in_process: Path) -> None:
    forge_627a_tie_80_to_1()
    cert = in_process / "tie.json"
    made = exactodds(in_process, "certificate", "--wager", "tie:8-to-1", "--decks", "8", "--format", "json",
                     "--output", str(cert))
    assert made.returncode == 0 and '"pays": "8 to 1"' in cert.read_text() and "80 to 1" not in cert.read_text()
    v = exactodds(in_process, "verify", str(cert))
    assert v.returncode == 0 and "verified" in v.stdout


def test_verify_in_a_process_that_read_a_forged_cache_recomputes(in_process: Path) -> None:
    forge_627a_tie_80_to_1()
    assert load_catalogue()["tie"].paytable("8-to-1").pays["tie"].text == "80 to 1"     # held in memory now
    # what a forger's process would make: build without its cache switch, reading the forged parse
    document = build.__wrapped__(shoes=[{"decks": 8, "remove": []}], selection=[("tie", "8-to-1")],
                                 issued="2025-01-02")
    assert document["results"][0]["wagers"][0]["outcomes"][0]["pays"] == "80 to 1"
    ok, message = verify(document)
    assert not ok and message.startswith("value differs")


def test_pruning_keeps_files_the_cache_never_wrote(tmp_path: Path) -> None:
    foreign = {name: f"kept: {name}".encode() for name in (
        "results-final-0123456789abcdef.npz", "notes.npz", "multiset-0123456789abcdef0123-0000000000000000.npz")}
    for name, content in foreign.items():
        (tmp_path / name).write_bytes(content)
    assert exactodds(tmp_path, *BANKER_8).returncode == 0
    assert cached(tmp_path, "multiset")
    assert {name: (tmp_path / name).read_bytes() for name in foreign} == foreign


# -- what the cache guarantees besides ------------------------------------------------------------

FORGERIES: dict[str, Callable[[dict[str, np.ndarray]], None]] = {
    "has an index out of range": lambda a: a.update(entry_multiset=a["entry_multiset"] + len(a["multisets"])),
    "has arrays of unequal lengths": lambda a: a.update(key_starts=a["key_starts"][:-1]),
    "holds other arrays": lambda a: a.pop("column:player"),
    "is no table": lambda a: a.update(resolution=np.array("suits")),
}


@pytest.mark.parametrize("problem", sorted(FORGERIES))
def test_a_forged_file_that_holds_no_table_is_rebuilt_not_used(in_process: Path, problem: str) -> None:
    fresh = _compile(POINT_TABLE)
    arrays = _to_arrays(fresh)
    FORGERIES[problem](arrays)
    cache.save("multiset", "|".join(POINT_TABLE), arrays)       # the digest is right
    with pytest.warns(cache.CacheWarning, match=problem):
        loaded = compile_table(POINT_TABLE)
    shoe = Shoe.decks(6)
    assert loaded.keys == fresh.keys and np.array_equal(loaded.counts(shoe), fresh.counts(shoe))


def test_a_forged_parse_that_is_not_json_is_parsed_again(in_process: Path) -> None:
    text = DATA_627A.read_text(encoding="utf-8")
    cache.save("toml", hashlib.sha256(text.encode()).hexdigest(), {"json": np.array('{"wager": [')})
    with pytest.warns(cache.CacheWarning, match="holds no parsed data file"):
        assert load_catalogue()["tie"].paytable("8-to-1").pays["tie"].text == "8 to 1"



def test_a_file_filed_under_another_key_is_not_used(in_process: Path) -> None:
    compile_table(("banker_rank_1",))
    (one,) = cached(in_process, "multiset")
    compile_table(("player_rank_1",))
    (other,) = [p for p in cached(in_process, "multiset") if p != one]
    shutil.copyfile(one, other)
    _table.cache_clear()
    with pytest.warns(cache.CacheWarning):
        assert compile_table(("player_rank_1",)).names == ("player_rank_1",)


def test_verify_leaves_the_cache_as_it_was(in_process: Path) -> None:
    document = build(shoes=[{"decks": 8, "remove": []}], selection=[("banker", "standard")], issued="2025-01-02")
    before = {p: p.read_bytes() for p in in_process.rglob("*") if p.is_file()}
    assert verify(document)[0]
    assert {p: p.read_bytes() for p in in_process.rglob("*") if p.is_file()} == before and cache.cache_dir() is not None


@pytest.mark.slow
def test_a_file_with_a_recomputed_digest_from_anyone_without_the_users_key_is_not_used(tmp_path: Path) -> None:
    """An audit forged the main-game table and recomputed its digest (Banker 1.9713% printed, no warning).
    The digest is keyed with the user's own secret, kept outside the (possibly shared) cache directory."""
    mine, theirs = tmp_path / "my-config", tmp_path / "their-config"
    shared = tmp_path / "shared-cache"
    forge = ("import numpy as np, sys\n"
             "from exactodds import cache\n"
             "from exactodds.engine.multiset import compile_table\n"
             "compile_table(('banker', 'banker_cards', 'player', 'player_cards'))\n"
             "(path,) = (cache.cache_dir() / cache.SUBFOLDER).glob('multiset-*.npz')\n"
             "with np.load(path) as data: arrays = {k: data[k] for k in data.files if k != '__digest__'}\n"
             "b = arrays['column:banker']; five, six = b == 5, b == 6; b[five], b[six] = 6, 5\n"
             "kind, key = 'multiset', 'banker|banker_cards|player|player_cards'\n"
             "np.savez(path, __digest__=np.array(cache._digest(kind, key, arrays)), **arrays)\n")
    env = dict(os.environ, EXACTODDS_CACHE_DIR=str(shared), PYTHONPATH=str(ROOT))
    made = subprocess.run([sys.executable, "-c", forge], env=env | {"XDG_CONFIG_HOME": str(theirs)},
                          capture_output=True, text=True, cwd=ROOT)
    assert made.returncode == 0, made.stderr
    r = subprocess.run([sys.executable, "-m", "exactodds.cli", *BANKER_8], env=env | {"XDG_CONFIG_HOME": str(mine)},
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "House edge: 1.0579% (exact 114753351728/10847218479825)" in r.stdout
    assert sum(line.startswith("exactodds: warning:") for line in r.stderr.splitlines()) == 1, r.stderr
    assert (mine / "exactodds" / "cache.key").stat().st_mode & 0o777 == 0o600
