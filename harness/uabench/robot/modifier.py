"""The Robot pre-run modifier that turns a benchmark suite into its test matrix.

Robot runs pre-run modifiers on the parsed suites before it applies --include, --exclude,
--test, --suite and --dryrun, so the generated tests are selected like written ones:

    robot --prerunmodifier uabench.robot.modifier.Matrix --include server:milo suites/read.robot
    robot --prerunmodifier uabench.robot.modifier.Matrix:profile=full:sdks=open62541,asyncua suites/

Each benchmark suite (a NAME.robot importing benchmark.resource) gets one test per cell of its plan
and the adapters present, and the suite variables its keyword library is imported with
(${BENCHMARK}, ${PLAN}, ${PROFILE}, ${SDKS}, ${RUN_DIR}); the plan, profile and SDKs also
show as suite metadata in the log and report. The modifier is the one place that chooses
them: a `-v PROFILE:...` would change the phases but not the matrix, so the suite setup
(`Start Benchmark` in benchmark.resource) refuses one that differs from the modifier's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from robot.api import SuiteVisitor, TestSuite

from uabench import paths
from uabench import plan as plans

# Suite variables the modifier sets; benchmark.resource imports the keyword library with them.
VARIABLES = ("BENCHMARK", "PLAN", "PROFILE", "SDKS", "RUN_DIR", "MATRIX")
# The ones a user could set with -v; `Start Benchmark` checks they are still what the matrix used.
CHECKED = ("PLAN", "PROFILE", "SDKS")


class Matrix(SuiteVisitor):
    """Generates every benchmark suite's tests from its plan.

    plans: plan names or files, comma-separated (or a sequence, from Python); each goes to the
    suite its `suite` key names, in order, and a second plan for the same suite needs the
    suite's file given twice (`uabench run` does that). A suite no plan names runs its own
    plan (suites/plans/NAME.toml). run_dir: where each plan's run keeps its files (a
    directory per plan); empty: beside Robot's output.
    """

    def __init__(
        self, plans: str | Sequence[str | Path] = "", profile: str = "quick", sdks: str = "", run_dir: str | Path = ""
    ) -> None:
        self.plans = [str(p) for p in (_split(plans) if isinstance(plans, str) else plans)]
        self.profile = profile
        self.sdks = sdks
        self.run_dir = Path(run_dir) if run_dir else None

    def visit_suite(self, suite: TestSuite) -> None:
        benchmarks = [one for one in _file_suites(suite) if _is_benchmark(one)]
        wanted: list[plans.Plan] = []
        for location in self.plans:
            try:
                wanted.append(plans.load(location))
            except plans.PlanError as error:
                _fail(benchmarks[0] if benchmarks else suite, str(error))
                return
        for one in benchmarks:
            name = Path(one.source).stem
            plan = next((p for p in wanted if p.suite == name), None)
            if plan is not None:
                wanted.remove(plan)
            try:
                self._generate(one, plan or plans.load(name))
            except plans.PlanError as error:
                _fail(one, str(error))
        for plan in wanted:  # plans whose suite this execution does not include
            _fail(
                benchmarks[0] if benchmarks else suite,
                f"plan {plan.path} is for suite '{plan.suite}', which this run does not include",
            )

    def _generate(self, suite: TestSuite, plan: plans.Plan) -> None:
        plan.require_profile(self.profile)  # an unknown profile is a PlanError naming the file
        only = plans.selected(self.sdks)
        own = plan.path.resolve() == (plans.PLANS / f"{plan.suite}.toml").resolve()
        if not own:
            suite.name = f"{suite.name} ({plan.path.stem})"
        run_dir = self.run_dir / (plan.suite if own else f"{plan.suite}-{plan.path.stem}") if self.run_dir else ""
        values = {
            "BENCHMARK": plan.suite,
            "PLAN": str(plan.path),
            "PROFILE": self.profile,
            "SDKS": self.sdks,
            "RUN_DIR": str(run_dir),
        }
        # Applying the modifier again (Robot's default options plus an explicit one) replaces
        # what an earlier application generated: the last one given wins.
        _remove_generated(suite)
        for name, value in values.items():
            suite.resource.variables.create(name=f"${{{name}}}", value=[_escaped(value)])
        # what the matrix was made for, so the suite setup can refuse a `-v PROFILE:...` that differs
        suite.resource.variables.create(
            name="&{MATRIX}", value=[f"{name}={_escaped(values[name])}" for name in CHECKED]
        )
        suite.metadata.update({"Plan": _shown(plan.path), "Profile": self.profile, "SDKs": self.sdks or "all"})
        for case in plans.test_cases(plan, only, self.profile):
            test = suite.tests.create(name=case.name, tags=list(case.tags))
            test.body.create_keyword(name=case.keyword, args=[_escaped(a) for a in case.args])


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _file_suites(suite: TestSuite) -> Iterable[TestSuite]:
    if suite.source and Path(suite.source).is_file():
        yield suite
    for child in suite.suites:
        yield from _file_suites(child)


def _is_benchmark(suite: TestSuite) -> bool:
    """A suite that imports benchmark.resource; other suites in the same run are left alone."""
    return any(
        item.type == "RESOURCE" and Path(item.name).name == "benchmark.resource" for item in suite.resource.imports
    )


def _remove_generated(suite: TestSuite) -> None:
    # Tests written in the .robot file have a line number; generated ones have none.
    written = [test for test in suite.tests if test.lineno]
    suite.tests = written
    suite.resource.variables = [v for v in suite.resource.variables if v.name[2:-1] not in VARIABLES]


def _fail(suite: TestSuite, message: str) -> None:
    """A plan that cannot run fails the suite visibly (an exception in a modifier would only
    be logged, and Robot would run the suite without its matrix)."""
    _remove_generated(suite)
    suite.tests = []
    suite.tests.create(name="Plan Should Load", tags=["plan"]).body.create_keyword(
        name="Fail", args=[_escaped(message)]
    )


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(paths.REPO.resolve()))
    except ValueError:
        return str(path)


def _escaped(value: object) -> str:
    """A literal Robot argument: backslashes, variables and a leading '=' are not syntax."""
    text = str(value).replace("\\", "\\\\").replace("${", "\\${").replace("@{", "\\@{").replace("&{", "\\&{")
    return text.replace("%{", "\\%{").replace("=", "\\=")
