"""Numbers to text, once for both renderers: thousands grouped, a column's decimals, – for a
figure that was not measured."""

from __future__ import annotations

from uabench.document.model import Cell, Column, CpuShare, Estimate, Interval, Rank, Span, Table, Tally, Value

MISSING = "–"


def number(value: float | None, digits: int = 0) -> str:
    if value is None:
        return MISSING
    return f"{value:,.{digits}f}"


def value_text(value: Value, column: Column) -> str:
    digits = column.digits
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    if isinstance(value, Estimate):
        return number(value.mean, digits) + (f" ± {number(value.ci95, digits)}" if value.ci95 is not None else "")
    if isinstance(value, Interval):
        if value.low is None or value.high is None:
            return number(value.center, digits)
        return f"{number(value.center, digits)} [{number(value.low, digits)}–{number(value.high, digits)}]"
    if isinstance(value, Rank):
        return str(value.low) if value.low == value.high else f"{value.low}–{value.high}"
    if isinstance(value, CpuShare):
        return f"{number(value.total, digits)} ({number(value.user, digits)}/{number(value.system, digits)})"
    if isinstance(value, Span):
        return f"{number(value.first, digits)}{value.separator}{number(value.second, digits)}"
    if isinstance(value, Tally):
        return f"{value.passed}/{value.total}"
    if column.kind == "percent":
        return f"{value * 100:.{digits}f} %"
    if column.kind == "scientific":
        return f"{value:.{digits}e}"
    if column.kind == "band":
        return f"± {number(value, digits)}"
    if column.kind == "text":
        return str(value)
    return number(value, digits)


def cell_text(cell: Cell, column: Column) -> str:
    text = value_text(cell.value, column)
    if cell.detail is not None and cell.detail != "":
        text += f" ({value_text(cell.detail, Column('', digits=column.digits))})"
    return text


def units_text(found: Table) -> str:
    """What each column's numbers count, as one line under its table: the header's tooltip in the
    HTML page is seen only on hover and is lost in Markdown, where "36.6" alone would not say MiB.
    Empty when no column declares a unit."""
    named = [f"{c.title}: {c.unit}" for c in found.columns if c.unit and not _says_its_unit(c)]
    return "Units — " + "; ".join(named) + "." if named else ""


def _says_its_unit(column: Column) -> bool:
    """The header already names its unit ("p50 µs", "values/s (median [95% CI])", "RMSE (pp)")."""
    return column.unit in column.title.replace("(", " ").replace(")", " ").split()


def repetitions_text(cell: Cell, column: Column) -> str:
    """The values a figure was estimated from, for the HTML tooltip; empty if it has none."""
    value = cell.value
    if not isinstance(value, Interval) or not value.values:
        return ""
    return f"{len(value.values)} repetitions: " + ", ".join(number(v, column.digits) for v in value.values)


def status_class(cell: Cell) -> str:
    return cell.status.value if cell.status else ""
