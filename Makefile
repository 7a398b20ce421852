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

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m pytest -q

ui: $(STAMP)
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
