"""The live command: ``serve``, a page that follows a shoe as it is dealt."""

from __future__ import annotations

from pathlib import Path

import click

from exactodds.cli import options
from exactodds.cli.core import command
from exactodds.errors import ExactOddsError
from exactodds.serve import create_app, listen

#: The largest shoe the live page deals from.
MAX_DECKS = 100


@command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (this machine only by default).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@options.decks
@options.wager
@options.paytables
def serve(host: str, port: int, decks: int, wagers: tuple[str, ...], paytables_files: tuple[str, ...]) -> None:
    """A live shoe page: enter cards as they are dealt and watch every wager's exact edge (served by waitress).

    --decks is the shoe a new shoe starts from (at most 100); --wager names the wagers shown at first
    (default: the countable side bets and the main game).
    """
    if not 1 <= decks <= MAX_DECKS:
        raise ExactOddsError(f"--decks: {decks} is not in the range 1<=x<={MAX_DECKS}")
    files = options.user_files(paytables_files)
    options.with_files(files)                            # a bad file is named by its path here
    app = create_app(decks=decks, wagers=list(wagers),
                     files=[{"name": Path(path).name, "text": text} for path, text in files])
    server = listen(app, host, port)                     # a bad --host or --port is one line here
    try:
        bound = getattr(server, "effective_listen", None) or [(server.effective_host, server.effective_port)]
        where, at = bound[0]
        where = f"[{where}]" if ":" in str(where) else where
        click.echo(f"exactodds: the live shoe page is at http://{where}:{at}/ (Ctrl-C stops it)", err=True)
        server.run()                                     # returns only on Ctrl-C or SIGTERM: waitress catches it
    finally:
        server.close()
    raise KeyboardInterrupt                              # so the run ends as an interrupted one, not as a success
