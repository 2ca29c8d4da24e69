"""The package's version, in one place: ``pyproject.toml`` reads it (statically), the package and
``--version`` import it."""

__version__ = "0.1.0"
