"""Work on an existing Dask cluster (``dask.distributed``): one way to connect, for every command.

Exposure runs and simulator checks split into independent units (shoe batches,
record shards) whose results add up exactly; they run here by default and on a
Dask cluster when the user names its scheduler. No protocol of our own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from exactodds import extras
from exactodds.errors import ExactOddsError

__all__ = ["dask_client"]


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
