"""The kinds of the cells the network suite records (network/run.py) and reports
(network/report.py): registered in suite.py's SuiteKind (`cells`)."""

from __future__ import annotations

from enum import StrEnum


class NetworkCell(StrEnum):
    CALIBRATION = "network-calibration"  # the echo path's round trip, per emulated network
    RTD = "network-rtd"  # round-trip delay of a read
    CONSTRAINED = "network-constrained"  # reads through a rate-limited link
    INTEROP = "network-interop"
    SUBSCRIPTION = "network-subscription"
    PUBSUB = "network-pubsub"
