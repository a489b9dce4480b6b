"""Speed and memory, measured and printed (not a timed test).

Run ``python -m exactodds.benchmark``. It prints:

* the one-time build of the shoe-independent round table;
* the exact main game for 8 decks in-process (median of repeated runs), and
  the same through the recursive walk;
* every wager and paytable of the catalogue for 8 decks, in-process;
* a depleted shoe recomputed in a warm process;
* cold ``exactodds analyze --decks 8`` and ``--all`` processes (wall time and
  peak resident memory of the child).
"""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


_PEAK = (
    "import resource, runpy, sys\n"
    "sys.argv = ['exactodds', *sys.argv[1:]]\n"
    "try:\n    runpy.run_module('exactodds.cli', run_name='__main__')\n"
    "finally:\n    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
)


def _cold(args: list[str], repeat: int = 3) -> tuple[float, float]:
    """Median wall time of a fresh ``exactodds`` process, and its own peak RSS in MB."""
    exe = shutil.which("exactodds")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "exactodds.cli", *args]
    walls = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t)
    probe = subprocess.run([sys.executable, "-c", _PEAK, *args], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, check=False)
    peak_kb = int(probe.stderr.strip().splitlines()[-1])
    return statistics.median(walls), peak_kb / 1024


def _cold_import_ms() -> float:
    code = "import time; t = time.perf_counter(); import exactodds; print((time.perf_counter() - t) * 1e3)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout)


def main() -> None:
    from exactodds import Shoe, analyze, deal, load_catalogue, walk
    from exactodds.engine import round_table

    import_ms = _cold_import_ms()
    t = time.perf_counter()
    table = round_table()
    build_ms = (time.perf_counter() - t) * 1e3
    t = time.perf_counter()
    cat = load_catalogue()
    load_ms = (time.perf_counter() - t) * 1e3

    shoe = Shoe.decks(8)
    first_ms = _median_ms(lambda: deal(shoe).main_game(), 1)
    main_ms = _median_ms(lambda: deal(shoe).main_game(), 25)
    main_priced_ms = _median_ms(lambda: analyze(shoe), 10)
    analyze(shoe, everything=True)                        # classify every wager once
    point_ids = [w.id for w in cat.values() if w.kind == "point"]
    point_ms = _median_ms(lambda: analyze(shoe, wagers=point_ids), 10)
    all_ms = _median_ms(lambda: analyze(shoe, everything=True), 10)
    depleted = Shoe.decks(8).remove("5s", "5s", "9h", "Kc", "2d", "7d", "Qs")
    depleted_ms = _median_ms(lambda: analyze(depleted, everything=True), 10)
    walk_ms = _median_ms(lambda: walk(Shoe.decks(7)), 1)
    pairs = sum(len(w.paytables) for w in cat.values())

    print(f"import exactodds (fresh process):         {import_ms:8.1f} ms")
    print(f"round table build (once per process):     {build_ms:8.1f} ms  ({len(table):,} value-level rounds)")
    print(f"catalogue load + checks (once):           {load_ms:8.1f} ms  ({len(cat)} wagers, {pairs} paytables)")
    print(f"main game, 8 decks, first call:           {first_ms:8.1f} ms")
    print(f"main game, 8 decks, in-process (median):  {main_ms:8.1f} ms")
    print(f"main wagers priced, 8 decks (median):     {main_priced_ms:8.1f} ms")
    print(f"point-total wagers, 8 decks (median):     {point_ms:8.1f} ms  ({len(point_ids)} wagers, all paytables)")
    print(f"whole catalogue, 8 decks (median):        {all_ms:8.1f} ms")
    print(f"whole catalogue, depleted shoe, warm:     {depleted_ms:8.1f} ms")
    print(f"recursive walk, 7 decks (cold memo):      {walk_ms:8.1f} ms")
    wall, peak = _cold(["analyze", "--decks", "8"])
    print(f"cold `exactodds analyze --decks 8`:       {wall * 1e3:8.1f} ms  (peak RSS {peak:.0f} MB)")
    wall, peak = _cold(["analyze", "--all", "--decks", "8"])
    print(f"cold `exactodds analyze --all --decks 8`: {wall * 1e3:8.1f} ms  (peak RSS {peak:.0f} MB)")


if __name__ == "__main__":
    main()
