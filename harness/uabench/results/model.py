"""The CPU sizing model of Burger et al. (ICPE 2019, §6): server CPU utilisation as a linear
function of x = signals × publishing rate × clients^0.3 (client/server subscriptions) or
x = signals × rate (PubSub publishers), fitted by least squares to the sweeps in the store,
with its error measured on held-out points (leave-one-out)."""

from __future__ import annotations

import math
from dataclasses import dataclass

CLIENT_EXPONENT = 0.3
MIN_POINTS = 3


class ModelError(ValueError):
    pass


@dataclass(frozen=True)
class Observation:
    sdk: str
    signals: int
    interval_ms: float
    clients: int
    cpu_percent: float
    communication: str  # client-server | pubsub

    @property
    def feature(self) -> float:
        return feature(self.signals, self.interval_ms, self.clients, self.communication)


def feature(signals: float, interval_ms: float, clients: float, communication: str) -> float:
    rate = 1000.0 / interval_ms
    return signals * rate * (clients**CLIENT_EXPONENT if communication == "client-server" else 1.0)


def observations(cells: list[dict]) -> list[Observation]:
    """Every measured sweep point with server (publisher) CPU among `cells`."""
    found = []
    for cell in cells:
        if cell["status"] != "pass" or not cell.get("server_resources") or not cell.get("client_config"):
            continue
        config, server = cell["client_config"], cell.get("server_config") or {}
        if cell["kind"] == "sweep" and config.get("workload") == "subscribe":
            signals = server.get("signals")
            interval = max(config.get("publishing_interval_ms", 100), server.get("update_interval_ms", 100))
            if signals:
                found.append(
                    Observation(
                        cell["server"],
                        int(signals),
                        float(interval),
                        int(config.get("sessions", 1)),
                        float(cell["server_resources"]["cpu_percent"]),
                        "client-server",
                    )
                )
        elif cell["kind"] == "pubsub-sweep" and cell.get("parameter"):
            interval = float(config.get("publishing_interval_ms", 100))
            found.append(
                Observation(
                    cell["server"],
                    int(float(cell["parameter"])),
                    interval,
                    1,
                    float(cell["server_resources"]["cpu_percent"]),
                    "pubsub",
                )
            )
    return found


@dataclass(frozen=True)
class Model:
    sdk: str
    communication: str
    intercept: float  # CPU % with no load: the update loop, housekeeping
    slope: float  # CPU % per unit of the feature
    r2: float | None
    heldout_mae: float | None  # mean absolute error on held-out points, CPU percentage points
    heldout_rmse: float | None
    points: int
    ranges: dict[str, tuple[float, float]]

    def predict(self, signals: float, interval_ms: float, clients: float = 1) -> float:
        return self.intercept + self.slope * feature(signals, interval_ms, clients, self.communication)

    def outside(self, signals: float, interval_ms: float, clients: float) -> list[str]:
        """The inputs beyond what was measured (the model only interpolates)."""
        given = {"signals": signals, "interval_ms": interval_ms, "clients": clients}
        return [
            f"{name} = {value:g} is outside the measured range [{low:g}, {high:g}]"
            for name, value in given.items()
            for low, high in [self.ranges[name]]
            if not low <= value <= high
        ]

    @property
    def band(self) -> float | None:
        """± this many CPU percentage points holds about 95% of held-out predictions."""
        return 1.96 * self.heldout_rmse if self.heldout_rmse is not None else None


def _least_squares(xs: list[float], ys: list[float]) -> tuple[float, float]:
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    if sxx == 0:
        return mean_y, 0.0
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sxx
    return mean_y - slope * mean_x, slope


def fit(sdk: str, communication: str, data: list[Observation]) -> Model:
    data = [o for o in data if o.sdk == sdk and o.communication == communication]
    if len(data) < MIN_POINTS:
        raise ModelError(
            f"{sdk} ({communication}): {len(data)} measured sweep points, need at least {MIN_POINTS}; "
            "run the subscription (or pubsub) suite first"
        )
    xs, ys = [o.feature for o in data], [o.cpu_percent for o in data]
    intercept, slope = _least_squares(xs, ys)
    mean_y = sum(ys) / len(ys)
    total = sum((y - mean_y) ** 2 for y in ys)
    residual = sum((y - (intercept + slope * x)) ** 2 for x, y in zip(xs, ys, strict=True))
    r2 = 1 - residual / total if total else None
    errors = []
    for held in range(len(data)):  # leave one out: predict each point from a fit to the others
        rest_x, rest_y = xs[:held] + xs[held + 1 :], ys[:held] + ys[held + 1 :]
        if len(set(rest_x)) < 2:
            continue
        b, m = _least_squares(rest_x, rest_y)
        errors.append(ys[held] - (b + m * xs[held]))
    ranges = {
        "signals": (min(o.signals for o in data), max(o.signals for o in data)),
        "interval_ms": (min(o.interval_ms for o in data), max(o.interval_ms for o in data)),
        "clients": (min(o.clients for o in data), max(o.clients for o in data)),
    }
    return Model(
        sdk,
        communication,
        intercept,
        slope,
        r2,
        sum(abs(e) for e in errors) / len(errors) if errors else None,
        math.sqrt(sum(e * e for e in errors) / len(errors)) if errors else None,
        len(data),
        ranges,
    )


def fit_all(cells: list[dict]) -> tuple[list[Model], list[str]]:
    data = observations(cells)
    models, problems = [], []
    for sdk, communication in sorted({(o.sdk, o.communication) for o in data}):
        try:
            models.append(fit(sdk, communication, data))
        except ModelError as error:
            problems.append(str(error))
    return models, problems
