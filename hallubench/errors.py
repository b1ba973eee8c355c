"""The one exception type users see: its message is printed as a single line by the CLI."""


class HallubenchError(Exception):
    """A user-facing error (bad input, unreachable endpoint, shortfall...)."""
