"""The ``syncattn`` command line: ``verify``, ``study``, ``demo``, ``train``, ``eval``, ``sample``, ``report``, ``experiment``.

Each subcommand is a function ``f(argv) -> int`` (``module:function``, default
``main``) in its own module; this
file only dispatches, so that ``syncattn --help`` stays fast (no JAX import).
"""

from __future__ import annotations

import importlib
import sys

# the helpers the subcommands share live in a leaf (nothing imports this module);
# these names stay importable from here
from ._commands import (
    parse_command_line as parse_command_line,
    registered_module as registered_module,
)


_COMMANDS = {
    "verify": (
        "syncattn.verify",
        "run every proof and numeric theorem check; write report.json/report.md",
    ),
    "study": (
        "syncattn.studies",
        "numerical studies (failure, convergence, kuramoto, lohe) with plots",
    ),
    "demo": ("syncattn._demo", "a short demo of the Kuramoto and Lohe flows"),
    "train": (
        "syncattn.training._cli:train",
        "train a language model into a run folder (resumes it)",
    ),
    "eval": ("syncattn.training._cli:evaluate", "BPC / perplexity of a run folder"),
    "sample": ("syncattn.training._cli:sample", "generate text from a run folder"),
    "report": ("syncattn.training._cli:report", "loss curves and a table of runs"),
    "experiment": (
        "syncattn.experiments",
        "the papers' experiments (table, ablations, dynamics, ...) as training grids",
    ),
}


def _usage() -> str:
    lines = ["usage: syncattn COMMAND [options]", "", "commands:"]
    lines += [f"  {name:<10} {help_}" for name, (_, help_) in _COMMANDS.items()]
    lines += ["", "Run `syncattn COMMAND --help` for the options of one command."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage())
        return 0
    if argv[0] in ("-V", "--version"):
        from . import __version__

        print(__version__)
        return 0
    cmd, rest = argv[0], argv[1:]
    if cmd not in _COMMANDS:
        print(f"syncattn: unknown command {cmd!r}.\n\n{_usage()}", file=sys.stderr)
        return 2
    module_name, _, func = _COMMANDS[cmd][0].partition(":")
    try:
        module = importlib.import_module(module_name)
        return int(getattr(module, func or "main")(rest) or 0)
    except KeyboardInterrupt as err:  # Ctrl-C in any command: a message, status 130
        from ._failures import debug_requested, describe

        if debug_requested():
            raise
        code, message = describe(err, cmd)
        print(message, file=sys.stderr)
        return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
