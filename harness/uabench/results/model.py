"""The CPU sizing model: server (publisher) CPU, % of one core, as a linear function of what
the server actually delivered, fitted per server to the sustained points of its sweeps.

Used form: CPU = a + b·N + c·S, N = delivered notifications/s (measured by the client, not the
requested signals × rate), S = sessions (PubSub: one publisher, no S term). Compared with the form
of Burger et al. (ICPE 2019, §6): CPU = a + b·x, x = signals × rate × clients^0.3 (requested).
The used form is the delivered one: its inputs are measured, the sessions cost has a term of its
own (the session sweep keeps N constant, so clients^0.3 makes x grow where the load does not),
and its range can be checked jointly.

Only sustained points are fitted (a saturated server's CPU is capped, not proportional), each a
mean over >= NEEDED_REPETITIONS repetitions. The error is measured on held-out points (leave one
out); `Sizing.refusal` says why a prediction would not be good enough."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import spatial
from scipy import stats as scipy_stats

from uabench.results import figures
from uabench.results.kinds import CellKind

CLIENT_EXPONENT = 0.3  # Burger et al.'s fixed exponent on the number of clients
NEEDED_REPETITIONS = 3  # a point is fitted as a mean with spread
MIN_R2 = 0.9
MAX_BAND_PP = 10.0  # ± CPU percentage points, 95 % of held-out predictions
USED_FORM = "delivered"


class ModelError(ValueError):
    pass


@dataclass(frozen=True)
class SweepPoint:
    """One sweep point of one server: its repetitions' delivered rate and server CPU."""

    sdk: str
    communication: str  # client-server | pubsub
    sweep: str
    parameter: str
    signals: int  # requested signals on the server (PubSub: published)
    interval_ms: float
    sessions: int
    notifications: tuple[float, ...]  # delivered notifications/s, per repetition
    cpu: tuple[float, ...]  # server CPU % of one core, per repetition
    sustained: bool

    @property
    def repetitions(self) -> int:
        return len(self.cpu)

    @property
    def notifications_per_s(self) -> float:
        return float(np.mean(self.notifications))

    @property
    def cpu_percent(self) -> float:
        return float(np.mean(self.cpu))

    @property
    def cpu_spread(self) -> float | None:
        """Standard deviation of the repetitions' CPU, percentage points."""
        return float(np.std(self.cpu, ddof=1)) if len(self.cpu) > 1 else None

    @property
    def burger_x(self) -> float:
        return self.signals * 1000.0 / self.interval_ms * self.sessions**CLIENT_EXPONENT


def _cpu(cell: dict) -> float | None:
    resources = cell.get("server_resources") or {}
    return resources.get("cpu_percent")


def _delivered(result: dict) -> float:
    subscription = result.get("subscription") or {}
    return float(subscription.get("values_per_s", result["throughput"]["values_per_s"]))


def sweep_points(cells: list[dict]) -> list[SweepPoint]:
    """Every subscription (client/server) and PubSub sweep point with server CPU, judged by the
    engine's sustain rules: client/server by the point's mean cycle time (figures.Point), PubSub
    by the held rule applied to every repetition (a point one repetition of which failed to hold
    is at the limit, so it is not fitted: no max-of-N)."""
    sustained = {(p.sweep, p.server, p.client, p.parameter): p.sustained for p in figures.points(cells)}
    groups: dict[tuple, list[dict]] = {}
    for cell in cells:
        config = cell.get("client_config") or {}
        subscribe = cell["kind"] == CellKind.SWEEP and config.get("workload") == "subscribe"
        if cell["status"] != "pass" or not cell.get("result") or _cpu(cell) is None:
            continue
        if subscribe or (cell["kind"] == CellKind.PUBSUB_SWEEP and cell.get("parameter")):
            groups.setdefault(
                (cell["kind"], cell["variant"], cell["server"], cell["client"], cell["parameter"]), []
            ).append(cell)
    found = []
    for (kind, sweep, server, client, parameter), group in groups.items():
        config, server_config = group[0]["client_config"], group[0].get("server_config") or {}
        if kind == "sweep":
            signals = int(server_config.get("signals") or 0)
            interval = max(config.get("publishing_interval_ms", 100), server_config.get("update_interval_ms", 100))
            sessions, held = int(config.get("sessions", 1)), sustained.get((sweep, server, client, parameter), False)
        else:
            signals, interval, sessions = int(float(parameter)), float(config.get("publishing_interval_ms", 100)), 1
            held = all(figures.pubsub_held(c["result"]) for c in group)
        found.append(
            SweepPoint(
                server,
                "client-server" if kind == "sweep" else "pubsub",
                sweep,
                parameter,
                signals,
                float(interval),
                sessions,
                tuple(_delivered(c["result"]) for c in group),
                tuple(float(_cpu(c) or 0.0) for c in group),
                held,
            )
        )
    return sorted(found, key=lambda p: (p.sdk, p.communication, p.sessions, p.notifications_per_s))


@dataclass(frozen=True)
class Fit:
    """Least squares of CPU on `terms` over the points' means; errors from leave-one-out."""

    form: str  # delivered | burger
    terms: tuple[str, ...]
    coefficients: tuple[float, ...]
    r2: float | None
    heldout_rmse: float | None  # CPU percentage points
    band: float | None  # ± pp holding 95 % of held-out predictions
    points: int

    def predict(self, notifications_per_s: float, sessions: float) -> float:
        row = _row(self.terms, notifications_per_s, sessions, 0.0)
        return float(np.dot(self.coefficients, row))

    def text(self) -> str:
        names = {"1": "", "notifications/s": " × N", "sessions": " × S", "x": " × x"}
        return "CPU = " + " + ".join(f"{c:.4g}{names[t]}" for t, c in zip(self.terms, self.coefficients, strict=True))


def _row(terms: tuple[str, ...], notifications_per_s: float, sessions: float, x: float) -> list[float]:
    values = {"1": 1.0, "notifications/s": notifications_per_s, "sessions": sessions, "x": x}
    return [values[t] for t in terms]


def _terms(form: str, points: list[SweepPoint]) -> tuple[str, ...]:
    if form == "burger":
        return ("1", "x")
    # a sessions term only where sessions were varied: with one value it is not identifiable
    return ("1", "notifications/s", "sessions") if len({p.sessions for p in points}) > 1 else ("1", "notifications/s")


def needed_points(form: str, points: list[SweepPoint]) -> int:
    """Coefficients + 2: each leave-one-out fit keeps a residual degree of freedom."""
    return len(_terms(form, points)) + 2


def fit(form: str, points: list[SweepPoint]) -> Fit | None:
    """None when there are too few points for a held-out error."""
    terms = _terms(form, points)
    if len(points) < len(terms) + 2:
        return None
    design = np.array([_row(terms, p.notifications_per_s, p.sessions, p.burger_x) for p in points])
    cpu = np.array([p.cpu_percent for p in points])
    coefficients = np.linalg.lstsq(design, cpu, rcond=None)[0]
    residual = float(np.sum((cpu - design @ coefficients) ** 2))
    total = float(np.sum((cpu - cpu.mean()) ** 2))
    errors = []
    for held in range(len(points)):  # leave one out: each point predicted from a fit to the others
        keep = np.arange(len(points)) != held
        others = np.linalg.lstsq(design[keep], cpu[keep], rcond=None)[0]
        errors.append(cpu[held] - design[held] @ others)
    rmse = math.sqrt(float(np.mean(np.square(errors))))
    # Student's t rather than 1.96: few points, the error itself estimated from them
    band = float(scipy_stats.t.ppf(0.975, len(points) - len(terms))) * rmse
    return Fit(
        form,
        terms,
        tuple(float(c) for c in coefficients),
        1 - residual / total if total else None,
        rmse,
        band,
        len(points),
    )


@dataclass(frozen=True)
class Sizing:
    """One server's model: which points it used and excluded, both forms' fits, and whether
    `uabench predict` may answer from it."""

    sdk: str
    communication: str
    used: list[SweepPoint]  # sustained, >= NEEDED_REPETITIONS repetitions
    saturated: list[SweepPoint]
    under_repeated: list[SweepPoint]  # sustained, fewer repetitions
    delivered: Fit | None
    burger: Fit | None
    indicative: bool = False  # fitted on under-repeated points too: shown, never used to predict
    fitted: list[SweepPoint] = field(default_factory=list)  # the points the fits above used

    def refusal(self) -> str | None:
        """Why the model is not good enough to predict from, or None."""
        needed = needed_points(USED_FORM, self.used + self.under_repeated)
        if len(self.used) < needed:
            return (
                f"{len(self.used)} sustained points with >= {NEEDED_REPETITIONS} repetitions, need {needed} "
                f"({len(self.under_repeated)} with fewer, {len(self.saturated)} saturated): "
                "run the sweeps with the full profile"
            )
        assert self.delivered is not None  # fitted whenever there are enough points
        if self.delivered.r2 is None or self.delivered.r2 < MIN_R2:
            r2 = "undefined (CPU constant)" if self.delivered.r2 is None else f"{self.delivered.r2:.3f}"
            return f"R² {r2} < {MIN_R2}: CPU is not linear in the delivered rate and sessions here"
        if self.delivered.band is not None and self.delivered.band > MAX_BAND_PP:
            return f"95 % band ± {self.delivered.band:.1f} pp exceeds ± {MAX_BAND_PP:g} pp"
        return None

    def outside(self, notifications_per_s: float, sessions: float) -> str | None:
        """Why (N, S) is outside the fitted points' joint range (their convex hull), or None."""
        measured = np.array([(p.notifications_per_s, p.sessions) for p in self.fitted])
        low, high = measured.min(axis=0), measured.max(axis=0)
        span = np.where(high > low, high - low, 1.0)
        query = (np.array([notifications_per_s, sessions]) - low) / span
        scaled = (measured - low) / span  # both axes on [0, 1]: qhull's tolerances are absolute
        extent = (
            f"(notifications/s {low[0]:,.0f}–{high[0]:,.0f}, sessions {low[1]:g}–{high[1]:g}, "
            f"{len(self.fitted)} points)"
        )
        where = f"(N, S) = ({notifications_per_s:,.0f}, {sessions:g})"
        if np.any(query < -1e-9) or np.any(query > 1 + 1e-9) or np.any((high == low) & (query != 0)):
            return f"{where} is outside the measured range {extent}"
        if np.all(high > low) and not _in_hull(scaled, query):
            return (
                f"{where} is outside the measured joint range, the convex hull of the fitted points {extent}: "
                "each input alone is within its range, the combination was not measured"
            )
        return None


def _in_hull(points: np.ndarray, query: np.ndarray) -> bool:
    try:
        triangulation = spatial.Delaunay(points)
    except spatial.QhullError:  # collinear points: joggled, the hull is the segment's sliver
        triangulation = spatial.Delaunay(points, qhull_options="QJ")
    return bool(triangulation.find_simplex(query, tol=1e-9) >= 0)


def sizing(sdk: str, communication: str, points: list[SweepPoint]) -> Sizing:
    mine = [p for p in points if (p.sdk, p.communication) == (sdk, communication)]
    saturated = [p for p in mine if not p.sustained]
    used = [p for p in mine if p.sustained and p.repetitions >= NEEDED_REPETITIONS]
    under = [p for p in mine if p.sustained and p.repetitions < NEEDED_REPETITIONS]
    indicative = len(used) < needed_points(USED_FORM, used + under) and bool(under)
    fitted = used + under if indicative else used
    return Sizing(
        sdk, communication, used, saturated, under, fit(USED_FORM, fitted), fit("burger", fitted), indicative, fitted
    )


def sizings(cells: list[dict]) -> list[Sizing]:
    points = sweep_points(cells)
    return [sizing(sdk, com, points) for sdk, com in sorted({(p.sdk, p.communication) for p in points})]


def find(cells: list[dict], sdk: str, communication: str) -> Sizing:
    points = sweep_points(cells)
    if not any((p.sdk, p.communication) == (sdk, communication) for p in points):
        raise ModelError(
            f"no {communication} sweep points of {sdk} with server CPU in the store: "
            f"run the {'subscription' if communication == 'client-server' else 'pubsub'} suite first"
        )
    return sizing(sdk, communication, points)
