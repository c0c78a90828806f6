"""What tests/unit/test_pubsub.py and tests/integration/test_pubsub.py share."""

import os
import shutil
import textwrap

import pytest

from uabench.proc import netns

ROOT = os.geteuid() == 0 and shutil.which("ip") is not None


needs_root = pytest.mark.skipif(not ROOT, reason="network namespaces need root and iproute2")


def ours() -> set[str]:
    mine = f"{netns.HOST_PREFIX}{os.getpid()}-"
    return {n for n in netns.namespaces() if n.startswith(mine)} | {
        b for b in netns.bridges() if b.startswith(f"ubr{os.getpid()}x")
    }


def write_plan(tmp_path, text: str):
    path = tmp_path / "pubsub.toml"
    path.write_text(textwrap.dedent(text))
    return path


PLAN = """
suite = "pubsub"
[pubsub]
publishing_interval_ms = 100
[profiles.smoke]
sweep = { warmup_s = 0.5, duration_s = 1.0, signals = [100, 1000] }
subscribers = { warmup_s = 0.5, duration_s = 1.0, counts = [1, 2], signals = 2000 }
interop = { warmup_s = 0.5, duration_s = 1.0, signals = 100 }
"""
