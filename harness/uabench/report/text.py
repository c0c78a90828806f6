"""Numbers to text, once for both renderers: thousands grouped, a column's decimals, – for a
figure that was not measured."""

from __future__ import annotations

from uabench.report.model import Cell, Column, CpuShare, Estimate, Span, Tally, Value

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


def status_class(cell: Cell) -> str:
    return cell.status.value if cell.status else ""
