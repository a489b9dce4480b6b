"""Work on an existing Dask cluster (``dask.distributed``): one way to connect, for every command.

Exposure runs and simulator checks split into independent units (shoe batches,
record shards) whose results add up exactly; they run here by default and on a
Dask cluster when the user names its scheduler. No protocol of our own.

What every unit of a run reads (an exposure run's wagers and counts, a check's wagers) is sent
to the workers once, as a :class:`Shipped` pickle named by its digest, and each worker process
unpickles it once and keeps it: the tables the wagers build on first use are built once per
process, not once per task. And a worker's heap is set the way NumPy needs it
(:func:`numpy_heap`): Dask's trimmed heap makes the kernel zero every large
array's pages anew, which costs a check of records 2.5 times its CPU.

>>> s = Shipped.of(("tie", 8))
>>> s.value() == ("tie", 8) and s.value() is s.value() and loads()[s.digest] == 1
True
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import pickle
import platform
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from exactodds import extras
from exactodds.errors import ExactOddsError

__all__ = ["dask_client", "Shipped", "loads", "numpy_heap", "process_cpu", "workers_cpu"]

#: The shipped objects a process keeps, the most recently used last (a long-lived worker serves many runs).
KEPT = 8
_kept: OrderedDict[str, Any] = OrderedDict()
_loads: dict[str, int] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class Shipped:
    """An object as its pickle and the pickle's digest: sent to a cluster once (scattered to every worker),
    unpickled once per process that reads it (:meth:`value`), the same object for every task there."""

    digest: str
    payload: bytes

    @classmethod
    def of(cls, obj: Any) -> Shipped:
        payload = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        return cls("sha256:" + hashlib.sha256(payload).hexdigest(), payload)

    def value(self) -> Any:
        """The object, unpickled by the first task of this process to read it and kept for the others."""
        with _lock:
            if self.digest in _kept:
                _kept.move_to_end(self.digest)
                return _kept[self.digest]
            obj = pickle.loads(self.payload)
            _kept[self.digest] = obj
            _loads[self.digest] = _loads.get(self.digest, 0) + 1
            while len(_kept) > KEPT:
                _kept.popitem(last=False)
            return obj


def loads() -> dict[str, int]:
    """How many times this process has unpickled each shipped object, by digest: what a worker reports to show
    that it builds a run's tables once."""
    with _lock:
        return dict(_loads)


@contextmanager
def dask_client(scheduler: Any) -> Iterator[tuple[Any, Any]]:
    """(client, as_completed) for a scheduler address or an existing ``dask.distributed.Client``."""
    distributed = extras.load("dask.distributed")
    Client, as_completed = distributed.Client, distributed.as_completed
    own = not isinstance(scheduler, Client)
    try:
        client = Client(scheduler, timeout="5s") if own else scheduler
    except (OSError, TimeoutError, ValueError) as exc:
        raise ExactOddsError(f"--scheduler {scheduler!r}: cannot reach the Dask scheduler ({exc})") from None
    try:
        yield client, as_completed
    finally:
        if own:
            client.close()


def process_cpu() -> float:
    """The CPU seconds this process has used, every thread (user and system)."""
    return time.process_time()


def workers_cpu(client: Any) -> float:
    """The CPU seconds the processes of a Dask cluster's workers have used so far, summed (two readings'
    difference is what a run cost there, with whatever else ran on the cluster meanwhile)."""
    return float(sum(client.run(process_cpu).values()))


#: glibc's mallopt parameters, and the thresholds its dynamic rule reaches on 64-bit Linux: mmap at 32 MiB,
#: trim at twice that.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_MAX = 32 * 2**20
_heap_set = False


def numpy_heap() -> None:
    """Give a process whose heap Dask set for memory the heap glibc gives any other (once; a Dask task calls it).

    A Dask worker starts with ``MALLOC_TRIM_THRESHOLD_=65536`` (``distributed.nanny.pre-spawn-environ``, so
    that freed memory goes back to the system), which also turns off glibc's dynamic mmap threshold: every
    array above 128 kB is then mapped and unmapped, and every freed block at the heap's top given back, its
    pages faulted in and zeroed by the kernel when the next array comes. Measured on a LocalCluster worker: a
    check of 10^6 records 0.25 CPU-s instead of 0.10, a batch of exposure 10% slower. The thresholds are put
    where glibc's own rule takes them after the first large array is freed (mmap 32 MiB, trim 64 MiB): the
    worker's memory, as a local process's, stays within 64 MiB of what it holds. Elsewhere (a local process, a
    worker started without that variable, not glibc) this does nothing.
    """
    global _heap_set
    with _lock:
        if _heap_set:
            return
        _heap_set = True
        libc = _glibc() if "MALLOC_TRIM_THRESHOLD_" in os.environ else None
        if libc is not None:
            libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_MAX)
            libc.mallopt(_M_TRIM_THRESHOLD, 2 * _MMAP_MAX)


def _glibc() -> Any:
    """The C library when it is glibc (its ``mallopt``), else None."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        return ctypes.CDLL(None)
    except OSError:
        return None
