"""``python -m exactodds.cli``: the ``exactodds`` command."""

from . import main

main()
