"""The version of exactodds, in one place (the package, the cache keys and every document read it)."""

__all__ = ["__version__"]

__version__ = "0.1.0"
