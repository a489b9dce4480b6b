"""The on-disk cache of compiled tables: same tables back, versioned, never in the way.

What it guarantees against damage, edits and forgery: test_cache_integrity.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from exactodds import Shoe, cache
from exactodds.engine.multiset import BY_COLOUR, _from_arrays, _table, _to_arrays, compile_table

NAMES = ("banker_rank_1", "player_suit_1", "player_two_card_total")


@pytest.fixture()
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EXACTODDS_CACHE_DIR", str(tmp_path))
    _table.cache_clear()
    yield tmp_path
    _table.cache_clear()


def test_a_table_read_back_from_disk_is_the_same_table(cache_dir: Path) -> None:
    built = compile_table(NAMES)
    (saved,) = (cache_dir / cache.SUBFOLDER).glob("multiset-*.npz")
    _table.cache_clear()
    loaded = compile_table(NAMES)
    assert loaded is not built and loaded.keys == built.keys and loaded.resolution == built.resolution
    shoe = Shoe.decks(8).remove("Ks", "9h")
    assert np.array_equal(loaded.counts(shoe), built.counts(shoe))
    assert _from_arrays(built.names, built.told, _to_arrays(built)).keys == built.keys
    assert saved.name.endswith(f"-{cache.code_version()}.npz")


def test_a_table_read_by_suit_pattern_is_saved_apart_and_read_back_the_same(cache_dir: Path) -> None:
    by_pattern = compile_table(NAMES, told="shdc")          # suits compared, none named
    by_suit = compile_table(NAMES)
    assert by_pattern.patterned and len(by_pattern.keys) < len(by_suit.keys)
    assert len(list((cache_dir / cache.SUBFOLDER).glob("multiset-*.npz"))) == 2
    _table.cache_clear()
    loaded = compile_table(NAMES, told="shdc")
    assert loaded.from_disk and loaded.patterned and loaded.keys == by_pattern.keys
    shoe = Shoe.decks(2).remove("Ks", "9h", "9h", "2c")
    assert np.array_equal(loaded.counts(shoe), by_pattern.counts(shoe))
    assert int(loaded.counts(shoe).sum()) == shoe.sequences


def test_a_table_over_colours_is_saved_apart_and_read_back_the_same(cache_dir: Path) -> None:
    names = ("player_suit_1", "banker_suit_2", "player_two_card_total")
    by_colour, by_suit = compile_table(names, told=BY_COLOUR), compile_table(names)
    assert by_colour.resolution == "colour" and len(by_colour.keys) < len(by_suit.keys)
    assert len(list((cache_dir / cache.SUBFOLDER).glob("multiset-*.npz"))) == 2
    _table.cache_clear()
    loaded = compile_table(names, told=BY_COLOUR)
    assert loaded.from_disk and loaded.resolution == "colour" and loaded.keys == by_colour.keys
    shoe = Shoe.decks(2).remove("Ks", "9h", "9h", "2c", "Qd")
    assert np.array_equal(loaded.counts(shoe), by_colour.counts(shoe))
    assert int(loaded.counts(shoe).sum()) == shoe.sequences


def test_a_table_over_a_split_of_the_ten_valued_ranks_is_saved_apart_and_read_back_the_same(cache_dir: Path) -> None:
    names = ("banker", "player", "player_rank_1", "banker_rank_3")
    split, every = compile_table(names, told="TJQ|K"), compile_table(names)
    assert len(split.keys) < len(every.keys)
    assert len(list((cache_dir / cache.SUBFOLDER).glob("multiset-*.npz"))) == 2
    _table.cache_clear()
    loaded = compile_table(names, told="TJQ|K")
    assert loaded.from_disk and loaded.told == "TJQ|K" and loaded.keys == split.keys
    shoe = Shoe.decks(2).remove("Ks", "Kh", "Jd", "Tc", "9h")
    assert np.array_equal(loaded.counts(shoe), split.counts(shoe))
    assert int(loaded.counts(shoe).sum()) == shoe.sequences


def test_a_damaged_file_is_rebuilt(cache_dir: Path) -> None:
    compile_table(NAMES)
    (saved,) = (cache_dir / cache.SUBFOLDER).glob("multiset-*.npz")
    for damaged in (saved.read_bytes()[:100], b"", b"not an npz file"):
        saved.write_bytes(damaged)
        _table.cache_clear()
        with pytest.warns(cache.CacheWarning, match="cannot be read"):
            assert int(compile_table(NAMES).counts(Shoe.decks(6)).sum()) == Shoe.decks(6).sequences
        assert saved.stat().st_size > 1000                       # built again and saved anew


def test_other_versions_are_removed_and_foreign_files_kept(cache_dir: Path) -> None:
    own = cache_dir / cache.SUBFOLDER
    own.mkdir()
    old = own / "multiset-0123456789abcdef0123-0000000000000000.npz"
    kept = [own / "notes.npz", own / "results-final-0123456789abcdef.npz", cache_dir / old.name]
    for path in (old, *kept):
        path.write_bytes(b"old")
    cache._prune.cache_clear()
    compile_table(NAMES)
    assert not old.exists() and all(path.exists() for path in kept)


def test_an_unwritable_or_disabled_cache_is_passed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    for setting in (str(blocker / "cache"), "off"):
        monkeypatch.setenv("EXACTODDS_CACHE_DIR", setting)
        _table.cache_clear()
        assert compile_table(NAMES).keys
    assert cache.cache_dir() is None
    _table.cache_clear()


def test_without_a_setting_the_cache_and_its_key_live_in_the_platforms_user_folders(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No EXACTODDS_CACHE_DIR: the cache is in the user cache folder, its key in the user
    configuration folder (on Linux, the XDG folders, else ~/.cache and ~/.config)."""
    monkeypatch.delenv("EXACTODDS_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "caches"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert cache.cache_dir() == tmp_path / "caches" / "exactodds"
    cache._secret.cache_clear()
    try:
        assert cache._secret() is not None
        key = tmp_path / "config" / "exactodds" / "cache.key"
        assert key.stat().st_size == 32 and key.stat().st_mode & 0o077 == 0
        for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
            monkeypatch.delenv(name)
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        assert cache.cache_dir() == tmp_path / "home" / ".cache" / "exactodds"
    finally:
        cache._secret.cache_clear()
