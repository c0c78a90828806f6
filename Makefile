# uabench entry points. Each target installs what it needs first (idempotently).
#   make bench   quick benchmark over every SDK, ending in a report
#   make test    lint, harness unit tests, the checks (uabench check --all), a Robot smoke run
SHELL := /bin/bash
VENV  := .venv
UABENCH := $(VENV)/bin/uabench
SUITES  := read write subscription encryption scenarios capacity pubsub

.PHONY: bench test setup lint clean

setup:
	@ci/setup

bench: setup
	$(UABENCH) run $(SUITES) --profile quick --report

test: setup
	@ci/test

lint: setup
	$(VENV)/bin/ruff check harness adapters contract
	$(VENV)/bin/ruff format --check harness adapters contract
	cd harness && ../$(VENV)/bin/mypy

clean:
	rm -rf results .venv implementations/*/.build implementations/*/.prefix implementations/*/.src \
	  adapters/*/build adapters/*/target adapters/*/node_modules
