"""The `uabench` console script. Ctrl-C, SIGTERM or SIGHUP while Python still imports the harness
(its first second) ends with status 130 and one line, not a KeyboardInterrupt traceback or a
silent death by the signal: `cli` and what it imports are loaded here, under the same guard as
the command itself (cli.main then keeps SIGTERM and SIGHUP so for the commands that answer them,
and gives the others their default back)."""

from __future__ import annotations

import signal
import sys


def _interrupt(_signum, _frame) -> None:
    raise KeyboardInterrupt


def main() -> int:
    for stop in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(stop, _interrupt)
    try:
        from uabench import cli

        return cli.main()
    except KeyboardInterrupt:  # cli.main answers one during a command itself; this is before
        print("uabench: interrupted while starting; nothing was run", file=sys.stderr)
        return 130
