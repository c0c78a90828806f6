"""The `uabench` console script. Ctrl-C while Python still imports the harness (its first
second) ends with status 130 and one line, not a KeyboardInterrupt traceback: `cli` and what it
imports are loaded here, under the same guard as the command itself."""

from __future__ import annotations

import sys


def main() -> int:
    try:
        from uabench import cli

        return cli.main()
    except KeyboardInterrupt:  # cli.main answers one during a command itself; this is before
        print("uabench: interrupted while starting; nothing was run", file=sys.stderr)
        return 130
