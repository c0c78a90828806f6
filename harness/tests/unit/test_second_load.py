"""A second load generator (plan key second_load_generator): when a ranked server refuses the
reference client (sdk.toml [interop], refused = true), it is ranked again under the second one with
the reference server (every server when that is not ranked), in a table, summary column and compare
figure of its own."""

import pytest

from uabench import paths, plan
from uabench.document.model import Report
from uabench.report import markdown
from uabench.report.sections import ranking_section
from uabench.report.summary import summary_section
from uabench.results import compare
from uabench.results.store import open_store
from unit.test_compare import BASE, PLAN

SDK = 'id = "{id}"\nlanguage = "C"\nversion = "1.0"\nroles = ["server", "client"]\n'
REFUSES = '[interop.read]\nclients = ["ref"]\nfound = "BadSecurityChecksFailed"\nwhy = "a null nonce"\nrefused = true\n'
READ = (
    'suite = "read"\nranking = "r"\n{extra}[profiles.quick]\n'
    '[[throughput]]\nname = "r"\nworkload = {{ workload = "read", nodes = ["Tick"] }}\n'
    '[[throughput]]\nname = "other"\nworkload = {{ workload = "read", nodes = ["Tick"] }}\n'
)


@pytest.fixture
def registry(tmp_path, monkeypatch):
    """SDKs ref (the reference client), two, and picky, whose server refuses ref's client."""

    def make(picky_refuses: bool = True) -> None:
        for sdk in ("ref", "two", "picky"):
            folder = tmp_path / "implementations" / sdk
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "sdk.toml").write_text(SDK.format(id=sdk) + (REFUSES if sdk == "picky" and picky_refuses else ""))
            (tmp_path / "adapters" / sdk).mkdir(parents=True, exist_ok=True)
            (tmp_path / "adapters" / sdk / "run").write_text("#!/bin/sh\n")
        monkeypatch.setattr(paths, "IMPLEMENTATIONS", tmp_path / "implementations")
        monkeypatch.setattr(paths, "ADAPTERS", tmp_path / "adapters")
        monkeypatch.setenv("UABENCH_REFERENCE_CLIENT", "ref")

    return make


def _plan(tmp_path, extra: str) -> plan.Plan:
    toml = tmp_path / "read.toml"
    toml.write_text(READ.format(extra=extra))
    return plan.load(str(toml))


def _rankings(loaded: plan.Plan) -> list[tuple]:
    return [t.args for t in plan.test_cases(loaded, None, "quick") if "ranking" in t.tags]


def test_a_refused_reference_adds_the_second_ranking_of_the_headline_variant_only(registry, tmp_path):
    registry()
    loaded = _plan(tmp_path, 'second_load_generator = "two"\n')
    assert _rankings(loaded) == [
        ("ref", "r", "picky,ref,two"),
        ("ref", "other", "picky,ref,two"),
        ("two", "r", "picky,ref,two"),  # the reference server (suites/references.toml) is not ranked here
    ]


def test_the_second_load_generator_ranks_the_refusing_server_with_the_reference_server(registry, tmp_path, monkeypatch):
    registry()
    monkeypatch.setenv("UABENCH_REFERENCE_SERVER", "ref")
    loaded = _plan(tmp_path, 'second_load_generator = "two"\n')
    assert _rankings(loaded)[-1] == ("two", "r", "picky,ref")


def test_no_second_ranking_when_every_server_takes_the_reference_or_none_is_named(registry, tmp_path):
    registry(picky_refuses=False)
    assert [a[0] for a in _rankings(_plan(tmp_path, 'second_load_generator = "two"\n'))] == ["ref", "ref"]
    registry()
    assert [a[0] for a in _rankings(_plan(tmp_path, ""))] == ["ref", "ref"]


def test_a_second_load_generator_not_installed_here_ranks_nothing_again(registry, tmp_path):
    """A checkout with fewer SDKs (the fault fixtures' repositories) still loads the shipped plan."""
    registry()
    assert [a[0] for a in _rankings(_plan(tmp_path, 'second_load_generator = "nobody"\n'))] == ["ref", "ref"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('second_load_generator = "two"\n', "second_load_generator: SDK 'two' has no client role"),
        ("second_load_generator = 3\n", "key 'second_load_generator' must be a string"),
    ],
)
def test_a_bad_second_load_generator_is_refused_naming_the_key(registry, tmp_path, extra, message):
    registry()
    two = tmp_path / "implementations" / "two" / "sdk.toml"
    two.write_text(two.read_text().replace('roles = ["server", "client"]', 'roles = ["server"]'))
    with pytest.raises(plan.PlanError, match=message):
        _plan(tmp_path, extra)


def _run(tmp_path):
    """A read run: ref's ranking (picky refused) and two's ranking of all three servers."""
    store = open_store(tmp_path / "s.sqlite")
    run_id = store.begin_run("read", "quick", {"plan": {**PLAN, "load_generator": "ref"}})
    measured = {
        "ref": {"ref": BASE, "two": [v * 2 for v in BASE], "picky": None},
        "two": {"ref": [v * 0.5 for v in BASE], "two": BASE, "picky": [v * 3 for v in BASE]},
    }
    for client, servers in measured.items():
        for server, values in servers.items():
            for repetition, value in enumerate(values or [None]):
                store.add_cell(
                    run_id,
                    suite="read",
                    kind="throughput",
                    client=client,
                    server=server,
                    variant="bulk",
                    repetition=repetition,
                    status="pass" if value else "not_supported",
                    reason=None if value else "known failure, on picky's behaviour: a null nonce",
                    client_config={"workload": "read", "in_flight": 8},
                    result={"throughput": {"values_per_s": value, "ops_per_s": value / 100}, "latency_ns": [[1000, 5]]}
                    if value
                    else None,
                )
    store.finish_run(run_id)
    [run] = store.runs()
    cells = store.cells([run["id"]])
    store.close()
    return run, cells


def test_the_report_ranks_each_load_generator_apart_and_says_why_the_second(tmp_path):
    run, cells = _run(tmp_path)
    text = markdown.render(Report("t", [ranking_section(run, cells), summary_section([run], {run["id"]: cells})]))
    first, second = text.split("### bulk — load: ")[1:3]
    assert first.startswith("ref client") and second.startswith("two client")
    assert "| 1 | two |" in first and "| 2 | ref |" in first and "| picky |" not in first
    assert "not ranked: picky: known failure" in first
    assert "| 1 | picky |" in second and "| 3 | ref |" in second
    assert "refused by picky" in second and "A rank holds within its own table only" in second
    summary = text[text.index("read rank (two load)") :]
    assert "| picky | – |" in summary or "| picky |  |" in summary  # no rank under ref, one under two


def test_compare_keeps_the_second_load_generators_figures_apart(tmp_path):
    run, cells = _run(tmp_path)
    names = {(f.name, f.server) for f in compare.run_figures(run, cells)}
    assert ("values/s, bulk", "ref") in names and ("values/s, bulk (two load)", "ref") in names
    assert ("values/s, bulk (two load)", "picky") in names and ("values/s, bulk", "picky") not in names
