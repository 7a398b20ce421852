# Two commands: `make run` (the whole chain on the embedded default) and `make test`.
# Both create the virtual environment .venv with pip on first use (pip's own configuration is honoured).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test ui lint bench clean-data

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[train,dev]"
	@touch $(STAMP)

run: $(STAMP)
	$(PY) -m pipelines.run

# The suite runs in up to 4 processes (pytest-xdist, one test file per process at a time, so module fixtures such as
# the vLLM server start once; the longest files first and the defect and sandbox corpora in chunks, by the times in
# tests/durations.json: tests/support/xdist_schedule.py). One process more than the cores: a third of the suite's time
# is spent waiting (servers starting, child processes, kill-and-rerun cases), which a third process fills. A test that
# fails there is run again alone, in one process: the suite fails only if it fails alone too, and the log shows both
# runs. Only a run that went through and had failures (pytest's exit status 1) is followed by that; a collection error
# or an interruption (2 and up) fails at once. TEST_WORKERS=0: one process.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); echo $$(( n <= 1 ? 1 : (n < 4 ? n + 1 : 4) )))

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy
	@if [ "$(TEST_WORKERS)" -le 1 ]; then $(PY) -m pytest -q; else \
		$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile; status=$$?; \
		if [ $$status -ne 1 ]; then exit $$status; fi; \
		echo "== the tests that failed above, run again alone (one process, nothing beside them)"; \
		$(PY) -m pytest -q --last-failed --last-failed-no-failures none; fi

# dagster.yaml checked first (a key written twice, an alias bomb): `dagster dev` reads it as it stands.
ui: $(STAMP)
	$(PY) -m pipelines.instance_errors
	$(VENV)/bin/dagster dev --host 127.0.0.1 --port 3000

bench: $(STAMP)
	# bench_learning trains for tens of minutes: it has its own target, bench-learning.
	for b in benchmarks/bench_*.py; do [ "$$b" = benchmarks/bench_learning.py ] && continue; \
		echo "== $$b"; $(PY) $$b || exit 1; done

# Learnability study (docs/learning.md), never part of `make test` or CI: envs ~6 min, SFT 30 CPU-minutes (~30-45 min
# wall), base and SFT evaluation on 122 envs ~5-8 min each; RL adds a curriculum probe (~7 min) and up to
# --rl-minutes (90) once the student has reward signal. Pass sizes through, e.g. `make bench-learning ARGS="--sft-minutes 10 --rl-seeds 1"`.
.PHONY: bench-learning
bench-learning: $(STAMP)
	$(PY) benchmarks/bench_learning.py --out runs/bench-learning --docs docs $(ARGS)
