"""Files written whole or not at all: a report's or comparison's pages, a margins file. Each is
written beside its place and renamed into it (a reader never sees half a page), and a stop
signal waits until the last is in place (cleanup.signals_deferred), so that Ctrl-C, SIGTERM or
SIGHUP during `uabench report` leaves each file as it was or as this command wrote it, and no
temporary file behind (issue 39: SIGTERM left a report.md without its report.html)."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path

from uabench.proc import cleanup


def write(texts: Mapping[Path, str]) -> None:
    """Every path with its text, each made whole (its directory too) and renamed into place."""
    with cleanup.signals_deferred():
        for path, text in texts.items():
            temporary = path.with_name(f".{path.name}.tmp")
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                temporary.write_text(text, encoding="utf-8")
                temporary.replace(path)
            except OSError as error:  # one line for the command to say (a file made immutable, a full disk)
                raise ValueError(f"cannot write {path}: {error.strerror or error}") from None
            finally:
                with contextlib.suppress(FileNotFoundError):
                    temporary.unlink()
