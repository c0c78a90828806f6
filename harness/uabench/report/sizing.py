"""The report's CPU sizing model section: per server the fitted form, R², band, the points used
and excluded, Burger et al.'s form beside it, and whether `uabench predict` would answer."""

from __future__ import annotations

from uabench.document.model import Column, Figure, Section, Series, Status, Table, cell, row
from uabench.results import model


def _verdict(sizing: model.Sizing):
    refusal = sizing.refusal()
    return cell("answers", Status.PASS) if refusal is None else cell(f"refuses: {refusal}", Status.FAIL)


def model_section(cells: list[dict]) -> Section | None:
    found = model.sizings(cells)
    if not found:
        return None
    columns = [
        Column("server", kind="text"),
        Column("communication", kind="text"),
        Column("form", kind="text"),
        Column("points used (repetitions)", kind="text"),
        Column("excluded: saturated"),
        Column("excluded: < 3 repetitions"),
        Column("R²", "", 3),
        Column("held-out RMSE (pp)", "pp", 2),
        Column("95% band (pp)", "pp", 1, "band"),
        Column("predict", kind="text"),
    ]
    rows = []
    for s in found:
        for form, f in ((model.USED_FORM, s.delivered), ("burger", s.burger)):
            used = f"{len(s.used)} ({sum(p.repetitions for p in s.used)})"
            if f is not None and s.indicative:
                used += f"; indicative fit on {f.points} under-repeated points"
            rows.append(
                row(
                    s.sdk,
                    s.communication,
                    f"{form}: {f.text() if f else 'not fitted'}",
                    used,
                    len(s.saturated),
                    len(s.under_repeated),
                    f.r2 if f else None,
                    f.heldout_rmse if f else None,
                    f.band if f else None,
                    _verdict(s) if form == model.USED_FORM else cell("compared only", Status.MARKED),
                )
            )
    intro = (
        "Used form: server CPU (% of one core) = a + b × N + c × S, N = delivered notifications/s (measured), "
        "S = sessions (PubSub: no S); compared with Burger et al.'s CPU = a + b × x, x = signals × rate × "
        "clients^0.3 (requested), which grows with clients in the session sweep where the delivered rate is "
        f"constant. Fitted by least squares on the means of sustained points with >= {model.NEEDED_REPETITIONS} "
        "repetitions (saturated points excluded: their CPU is capped); R² in-sample, error from leave-one-out, "
        "band = t(0.975, n − terms) × held-out RMSE. `uabench predict` answers only where R² >= "
        f"{model.MIN_R2}, the band is within ± {model.MAX_BAND_PP:g} pp and the query lies inside the convex hull "
        "of the fitted (N, S) points. An indicative fit (too few repeated points) is shown, never used."
    )
    series = [
        Series(
            f"{s.sdk} {s.communication}",
            s.sdk,
            [(p.notifications_per_s, p.cpu_percent) for p in s.fitted],
            style=s.communication,
            # the line at one session: N's slope, intercept with the sessions term at S = 1
            fitted=(s.delivered.predict(0.0, 1.0), s.delivered.coefficients[1]) if s.delivered else None,
        )
        for s in found
        if s.fitted
    ]
    return Section(
        "CPU sizing model",
        paragraphs=[intro],
        tables=[Table(columns, rows)],
        figures=[
            Figure(
                "CPU sizing model: server CPU vs delivered notifications/s",
                "scatter",
                "delivered notifications/s",
                "server CPU %",
                series,
                logx=True,
            )
        ]
        if series
        else [],
    )
