"""The cluster adapter: what a run ships to Dask workers once, the workers' heap, and runs that give the same
bytes on one process, two processes and a Dask LocalCluster (issue 39)."""

from __future__ import annotations

import os
import pickle
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from exactodds.simulation import cluster, exposure as exposure_module
from exactodds.simulation.checksim import check_files, render
from exactodds.simulation.cluster import Shipped, loads
from exactodds.simulation.exposure import exposure

from .test_cli import run

PAIRS = [("dragon-7-insurance", "standard"), ("tie", "8-to-1")]


def test_a_shipped_object_is_unpickled_once_per_process() -> None:
    payload = {"wagers": PAIRS, "seed": 3}
    first, again = Shipped.of(payload), pickle.loads(pickle.dumps(Shipped.of(payload)))
    assert first.digest == again.digest and first.digest.startswith("sha256:")
    assert first.value() == payload and again.value() is first.value()       # a second copy: the kept object
    assert loads()[first.digest] == 1
    assert Shipped.of({**payload, "seed": 4}).digest != first.digest


def test_the_kept_objects_are_bounded() -> None:
    shipped = [Shipped.of(("bounded", k)) for k in range(cluster.KEPT + 3)]
    for s in shipped:
        s.value()
    assert shipped[0].value() == ("bounded", 0) and loads()[shipped[0].digest] == 2     # dropped, unpickled anew
    assert loads()[shipped[-1].digest] == 1


_FAULTS = """
import resource, sys
import numpy as np
from exactodds.simulation.cluster import numpy_heap
def faults():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    older = np.ones(2**18)                       # 2 MiB: above the 128 kB threshold, below 32 MiB
    for _ in range(100):
        newer = np.ones(2**18)                   # a new array made while the older one is alive, as in a
        older, newer = newer, older              # kernel's steps; then the older one freed
        del newer
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
faults()
trimmed = faults()
numpy_heap()
faults()
print(trimmed, faults())
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's heap")
def test_a_worker_heap_stops_faulting_in_every_array() -> None:
    """Under Dask's MALLOC_TRIM_THRESHOLD_ every 2 MiB array is mapped anew (512 page faults each); once the
    task has set the heap, the arrays reuse the memory the freed ones leave."""
    env = dict(os.environ, MALLOC_TRIM_THRESHOLD_="65536")
    out = subprocess.run([sys.executable, "-c", _FAULTS], env=env, capture_output=True, text=True, check=True)
    trimmed, kept = map(int, out.stdout.split())
    assert trimmed >= 100 * 500 and kept < 100 * 50, (trimmed, kept)


@pytest.fixture(scope="module")
def client():  # type: ignore[no-untyped-def]
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c, distributed.Client(c) as client:
        yield client


@pytest.mark.slow
def test_exposure_gives_the_same_bytes_on_one_process_two_and_dask(client, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    one = exposure(PAIRS, shoes=24, seed=4, batch=24).render("json")
    two = exposure(PAIRS, shoes=24, seed=4, batch=5, workers=2).render("json")
    spans: list[tuple[int, int]] = []
    real = exposure_module._on_dask

    def watched(spec, work, scheduler, collect):  # type: ignore[no-untyped-def]
        def seen(part, span, cpu):  # type: ignore[no-untyped-def]
            spans.append(span)
            collect(part, span, cpu)
        real(spec, work, scheduler, seen)

    monkeypatch.setattr(exposure_module, "_on_dask", watched)
    monkeypatch.setattr(exposure_module, "TASK_SECONDS", 60.0)        # tasks as large as the end of a run allows
    monkeypatch.setattr(exposure_module, "DASK_WINDOW", 1)            # two tasks waiting per worker
    on_dask = exposure(PAIRS, shoes=24, seed=4, batch=1, scheduler=client)
    assert on_dask.render("json") == one == two
    assert sorted(spans)[0][0] == 0 and all(a[1] == b[0] for a, b in zip(sorted(spans), sorted(spans)[1:]))
    assert sorted(spans)[-1][1] == 24 and len(spans) <= 16                # every shoe once, batches grouped
    assert max(b - a for a, b in spans) >= 3
    assert on_dask.throughput is not None and on_dask.throughput.shoes == 24


@pytest.mark.slow
def test_a_worker_builds_a_runs_tables_once(client) -> None:  # type: ignore[no-untyped-def]
    """Twelve tasks on two workers: each worker unpickles the run's spec, and so builds its wagers' tables,
    once (the tables hang on the spec's wagers), not once per task."""
    before = client.run(loads)
    x = exposure(PAIRS[:1], shoes=12, seed=8, batch=1, scheduler=client)
    assert x.throughput is not None and x.throughput.shoes == 12
    after = client.run(loads)
    new = {w: {d: n - before[w].get(d, 0) for d, n in after[w].items() if n != before[w].get(d, 0)} for w in after}
    assert sum(len(d) for d in new.values()) >= 1
    assert all(n == 1 for d in new.values() for n in d.values()), new
    assert len({d for per in new.values() for d in per}) == 1                 # one spec, the same on each


@pytest.mark.slow
def test_check_sim_gives_the_same_bytes_here_and_on_dask(client, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shards = tmp_path / "shards"
    shards.mkdir()
    for k in range(3):
        code, _, err = run("simulate", "--rounds", "20000", "--seed", str(k + 1), "--wager", "tie", "--wager",
                           "dragon-7-insurance", "--output", str(shards / f"part-{k}.parquet"), "--quiet")
        assert code == 0, err
    before = client.run(loads)
    here = render(check_files(str(shards)), "json")
    there = check_files(str(shards), scheduler=client)
    assert render(there, "json") == here and there.rounds >= 60000
    after = client.run(loads)
    new = [n - before[w].get(d, 0) for w in after for d, n in after[w].items() if n != before[w].get(d, 0)]
    assert new and all(n == 1 for n in new)                                  # three files, the wagers once each
