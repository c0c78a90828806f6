# uabench entry points. Each target installs what it needs first (idempotently).
#   make bench   quick benchmark over every SDK, ending in a report
#   make test    lint, harness unit tests, the checks (uabench check --all), a Robot smoke run
#   make lock    regenerate the lock file of every Python environment (ci/lock, uv pip compile)
SHELL := /bin/bash
VENV  := .venv
UABENCH := $(VENV)/bin/uabench
SUITES  := read write subscription encryption scenarios capacity pubsub conformance

.PHONY: bench test setup lint lock clean

setup:
	@ci/setup

# The adaptive repetitions stop where a further block would end the run after BUDGET (engine/budget.py):
# with set-up and the report, make bench stays within 15 minutes.
BUDGET  := 12:30

bench:
	@echo "make bench: about 14 min in all: set-up (about 1.5 min from a fresh clone, seconds once installed), every suite in the quick profile paced to a time budget of $(BUDGET) (min:s; the estimate follows the set-up), then the report"
	@ci/setup
	$(UABENCH) run $(SUITES) --profile quick --time-budget $(BUDGET) --report

test: setup
	@ci/test

# harness/requirements.lock (.venv) and implementations/<sdk>/requirements.lock (each SDK's own
# venv) from harness/pyproject.toml and implementations/<sdk>/requirements.in; commit them.
lock:
	@ci/lock

lint: setup
	$(VENV)/bin/ruff check harness adapters contract
	$(VENV)/bin/ruff format --check harness adapters contract
	cd harness && ../$(VENV)/bin/mypy

clean:
	rm -rf results .venv implementations/*/.venv implementations/*/.build implementations/*/.prefix implementations/*/.src \
	  adapters/*/build adapters/*/target adapters/*/node_modules
