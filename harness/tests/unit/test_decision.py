"""The answer first (report/decision.py, issue 68): the report opens with a table a row per SDK,
its columns linked to the sections behind them, and a line for every figure the report lacks."""

from helpers.report import _Page

from uabench.document.model import Cell, Column, Report, Section, Table
from uabench.report import html, markdown


def test_a_column_links_to_the_section_its_title_starts_and_an_unknown_one_to_none():
    table = Table([Column("a", link="Read: server"), Column("b", link="Nowhere")], [[Cell(1), Cell(2)]])
    report = Report("t", [Section("Answer", tables=[table]), Section("Read: server ranking")])
    assert [c.link for c in table.columns] == ["#read-server-ranking", ""]
    assert "| [a](#read-server-ranking) | b |" in markdown.render(report)
    assert '<a href="#read-server-ranking">a</a>' in html.render(report)


def test_the_reference_report_opens_with_the_answer_for_every_sdk(reference):
    _, model, _ = reference
    answer = model.sections[0]
    assert answer.title == "The answer: which SDK"
    [table] = answer.tables
    assert len(table.rows) == 7
    anchors = {part.anchor for section in model.sections for part in section.walk()}
    linked = [c for c in table.columns if c.link]
    assert len(linked) == len(table.columns) - 1 and all(c.link[1:] in anchors for c in linked)
    rows = {r[0].value: [cell.value for cell in r[1:]] for r in table.rows}
    titles = [c.title for c in table.columns[1:]]
    read = titles.index("read: rank · ÷ reference")
    assert rows["open62541"][read] == "1" and rows["python-opcua"][read] == "6 · 0.00879"
    # the reference holds instruction counts and a footprint: no line says they are missing
    assert not any(n.startswith("Not in this report: instructions") for n in table.notes)
    assert any(n.startswith("Clients:") for n in table.notes)
    page = _Page()
    page.feed(html.render(model))
    assert set(page.links) <= set(page.ids)
