"""Helpers the subcommands share (a leaf: `syncattn.cli` dispatches to them, nothing imports `cli`)."""

from __future__ import annotations

import importlib


def parse_command_line(parser, argv, *, intermixed: bool = False):
    """`parser`'s namespace for `argv` (``None``: ``sys.argv[1:]``), or, where argparse
    exits (``--help``, or a usage error it has printed), the exit status it chose as an
    int: a subcommand returns that int instead of exiting.

    With ``intermixed``, options and positionals may interleave
    (``parse_intermixed_args``).
    """
    parse = parser.parse_intermixed_args if intermixed else parser.parse_args
    try:
        return parse(argv)
    except SystemExit as e:
        return int(e.code or 0)


def registered_module(registry: dict[str, str], name: str, package: str, what: str):
    """The module ``package.registry[name]`` (imported on first use).

    Raises:
        ValueError: ``"unknown {what} ..."`` with the registered names, for a name not in
            `registry`.
    """
    if name not in registry:
        raise ValueError(f"unknown {what} {name!r}; choose one of {sorted(registry)}.")
    return importlib.import_module(f".{registry[name]}", package)
