"""``python -m exactodds.cli``: the ``exactodds`` command (through its entry point, :mod:`exactodds.__main__`)."""

from exactodds.__main__ import main

main()
