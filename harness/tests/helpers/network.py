"""What tests/unit/test_network.py and tests/integration/test_network.py share."""

from __future__ import annotations

import pytest

from uabench.netpath import path as network_path

needs_path = pytest.mark.skipif(network_path.unavailable() is not None, reason=str(network_path.unavailable()))
