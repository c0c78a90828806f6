"""No import cycles in the harness: every `import` of a uabench module, at module level or
inside a function, is an edge of the graph, and the graph must sort topologically."""

import ast
import graphlib
from pathlib import Path

from uabench import paths

PACKAGE = paths.REPO / "harness" / "uabench"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path) -> dict[str, set[str]]:
    """module -> the modules of the same package it imports (`from a import b` is module
    a.b when that exists, else package a)."""
    modules = {module_name(path, root): path for path in root.rglob("*.py")}
    top = root.name
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names
                ]
            else:
                continue
            graph[name] |= {t for t in targets if t.split(".")[0] == top and t in modules and t != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        return error.args[1]
    return None


def test_the_harness_has_no_import_cycle():
    graph = import_graph(PACKAGE)
    assert "uabench.engine.cells" in graph["uabench.engine.session"]  # the graph sees the real imports
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph))}"


def test_a_cycle_is_found():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) is not None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_a_cycle_through_an_import_inside_a_function_is_found(tmp_path):
    package = tmp_path / "uabench"
    (package / "engine").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "engine" / "__init__.py").write_text("")
    (package / "plan.py").write_text("def load():\n    from uabench.engine import pubsub\n    return pubsub\n")
    (package / "engine" / "pubsub.py").write_text("from uabench.engine.session import Session\n")
    (package / "engine" / "session.py").write_text("from uabench import plan\n")
    cycle = find_cycle(import_graph(package))
    assert cycle and set(cycle) == {"uabench.plan", "uabench.engine.pubsub", "uabench.engine.session"}
