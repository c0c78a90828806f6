"""The cores a run measures on, claimed for the whole run: a second uabench run on any of
the same cores would disturb what the first one measures, and be disturbed by it.

A second run is refused, not made to wait: a benchmark run lasts minutes to hours, and one
that sat waiting that long without a word would look hung. Refused at once, with the holder
named, the user can wait for it or start the second run on other cores (`taskset -c`).

One lock file per core, held with flock(2) (fcntl.flock): the kernel releases the lock when
its holder ends however it ends, SIGKILL included, so a lock never outlives its harness and
there is no stale lock to clean up. The file's content only names the holder for the
refusal message; the lock itself is the flock, never the content."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import tempfile
from pathlib import Path

# Machine-wide, since cores are: /run/lock is the conventional place (writable by everyone,
# emptied at boot); the temporary directory where it is missing. UABENCH_LOCK_DIR moves it.
DEFAULT_DIR = Path("/run/lock") if os.access("/run/lock", os.W_OK) else Path(tempfile.gettempdir())

_held: dict[int, int] = {}  # core -> the descriptor holding its lock, for this process's life


class LockError(Exception):
    """The cores of this run cannot be claimed: one line for the user."""


class CoresTaken(LockError):
    """Another live uabench run holds some of the cores this run would measure on."""


def lock_dir() -> Path:
    return Path(os.environ.get("UABENCH_LOCK_DIR", DEFAULT_DIR / "uabench"))


def claim(cores: set[int], holder: str) -> None:
    """Holds the lock of every core in `cores` until this process ends (a process claiming a
    core it holds already keeps it); CoresTaken naming the other run when one is held."""
    directory = lock_dir()
    before = set(_held)
    try:
        if not directory.is_dir():
            directory.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(OSError):  # every user's runs share the cores, and so the locks
                directory.chmod(0o1777)
        _claim(directory, cores, holder)
    except OSError as error:
        release([core for core in _held if core not in before])
        raise LockError(
            f"{directory}: cannot claim this run's cores there ({error.strerror or error}); "
            "set UABENCH_LOCK_DIR to a directory every uabench run on this machine can write"
        ) from error


def _claim(directory: Path, cores: set[int], holder: str) -> None:
    taken: dict[int, str] = {}
    got: list[int] = []
    for core in sorted(cores - set(_held)):
        descriptor = _open(directory / f"cpu{core}.lock")
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            if error.errno not in (errno.EWOULDBLOCK, errno.EACCES):
                os.close(descriptor)
                raise
            taken[core] = os.pread(descriptor, 4096, 0).decode("utf-8", "replace").strip() or "a uabench run"
            os.close(descriptor)
            continue
        _held[core] = descriptor
        got.append(core)
    if taken:
        release(got)  # all or nothing: a refused run holds no core
        holders = "; ".join(sorted(set(taken.values())))
        raise CoresTaken(
            f"CPU {_cores_text(set(taken))} already in use by another uabench run ({holders}): runs on the same "
            f"cores disturb each other's measurements; wait for it to end or start this one on other cores "
            f"(taskset -c LIST uabench run ...)"
        )
    for core in got:
        with contextlib.suppress(OSError):  # another user's file, open read-only: the lock holds all the same
            os.ftruncate(_held[core], 0)
            os.pwrite(_held[core], f"pid {os.getpid()}, {holder}\n".encode(), 0)


def _open(path: Path) -> int:
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except PermissionError:  # created by another user: flock needs no write access
        return os.open(path, os.O_RDONLY)
    with contextlib.suppress(OSError):
        os.fchmod(descriptor, 0o666)  # past the umask, so other users' runs can name themselves in it
    return descriptor


def release(cores: list[int] | None = None) -> None:
    """Gives up the locks of `cores` (all held ones by default) before this process ends."""
    for core in list(_held) if cores is None else cores:
        os.close(_held.pop(core))  # closing the only descriptor releases the flock


def _cores_text(cores: set[int]) -> str:
    return ",".join(str(core) for core in sorted(cores))
