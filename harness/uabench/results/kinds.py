"""What a stored cell is: its kind, one of an enum, never a free string.

`CellKind` holds the kinds the engine records and the figures and the report below the suites
read (client/server, PubSub, capacity, warm-up). A suite package that records kinds of its own
declares them in its own StrEnum and names it in its SuiteKind (`cells`), so adding a suite adds
its kinds there and nowhere else; `uabench.plan.cell_kinds` is the union, which the recorder
checks before a cell is stored and `uabench import` before a spool is loaded.

A StrEnum, so a stored cell's kind stays the plain string it always was (stores and spools of
older commits read unchanged) and `cell["kind"] == CellKind.THROUGHPUT` compares with it."""

from __future__ import annotations

from enum import StrEnum


class CellKind(StrEnum):
    # client/server comparisons (robot/comparisons, engine.session)
    INTEROP = "interop"
    THROUGHPUT = "throughput"
    SWEEP = "sweep"
    SWEEP_VERDICT = "sweep-verdict"  # a sweep's bisected limit
    HEADROOM = "headroom"  # the load generator's own limit
    WARMUP = "warmup"  # one chunk of a warm-up
    STEADY_STATE = "steady-state"  # a warm-up's verdict
    SAMPLING_OVERHEAD = "sampling-overhead"  # engine.overhead, parameter "on" or "off"
    NEGATIVE = "negative"  # a refusal the server must give (security)
    HOST_PROBE = "host-probe"  # the host's own noise, once per interleaved block (proc/hostprobe.py)
    # open-loop capacity and latency (engine.capacity)
    CAPACITY = "capacity"
    CAPACITY_VERDICT = "capacity-verdict"
    LATENCY = "latency"
    # PubSub (engine.pubsub)
    PUBSUB_SWEEP = "pubsub-sweep"
    PUBSUB_SWEEP_VERDICT = "pubsub-sweep-verdict"
    PUBSUB_SUBSCRIBERS = "pubsub-subscribers"
    PUBSUB_INTEROP = "pubsub-interop"
    # the instructions suite's counted loads, read by compare and the report below the suite
    INSTRUCTIONS = "instructions"
    # an emulated server's smoke step (arm.smoke)
    ARM_SMOKE = "arm-smoke"


# A suite's kind whose cells measure the client (its memory, its instructions) and not the server is
# named "…-client" (footprint-client, instructions-client): such a cell's subject is its client.
CLIENT_MEASURED_SUFFIX = "-client"


def subject(kind: str, server: str, client: str) -> str:
    """What one cell measured: its server, or '<client> client' for a kind that measures clients
    (results/runs.py takes the newest run of each subject on a slow target)."""
    return f"{client} client" if kind.endswith(CLIENT_MEASURED_SUFFIX) else server


PUBSUB_MEASURED = (CellKind.PUBSUB_SWEEP, CellKind.PUBSUB_SUBSCRIBERS)  # the PubSub kinds with figures per point
PUBSUB = frozenset({*PUBSUB_MEASURED, CellKind.PUBSUB_SWEEP_VERDICT, CellKind.PUBSUB_INTEROP})
