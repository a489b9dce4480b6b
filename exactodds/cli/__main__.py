"""``python -m exactodds.cli``: the ``exactodds`` command."""

from exactodds.cli import main

main()
