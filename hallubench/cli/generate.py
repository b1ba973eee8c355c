"""``hallubench generate NAME``: the generators' own parsers (hallubench_generators.cli), only NAME's built."""

from __future__ import annotations

import argparse


def add_parser(subparsers: argparse._SubParsersAction, name: str, argv: list[str] | None) -> None:
    from hallubench_generators.cli import add_parsers

    add_parsers(subparsers, only=None if argv is None else (argv[1:2] or [""])[0])
