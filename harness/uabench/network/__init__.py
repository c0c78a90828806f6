"""The network suite: its plan table (plan.py) and kind of plan (suite.py), its runs over emulated
paths (run.py; the paths themselves are uabench.netpath), the analysis of round-trip delays
(analysis.py), the CPU load beside them (cpuload.py) and the echo that calibrates a path
(echo.py: TCP exchanges through the same path)."""
