"""``python -m exactodds``: the ``exactodds`` command."""

from exactodds.cli import main

if __name__ == "__main__":
    main()
