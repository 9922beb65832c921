# The two commands a newcomer needs: `make serve` and `make test`. Both set themselves up.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.kiln-installed

.PHONY: serve test test-fast lint bench-load clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[postgres,compile,dev]'
	# CPU build of PyTorch, for the runtime's CPU tests (pip takes it from this machine's disk);
	# GPU hosts bring their own CUDA build.
	$(BIN)/python -m pip install -q torch==2.13.0
	touch $(STAMP)

## Run the service on the embedded default (SQLite in ./.kiln, API on http://127.0.0.1:8765).
serve: $(STAMP)
	$(BIN)/kiln serve

## Run every test (PostgreSQL is started if it is down; GPU tests skip without a GPU).
test: $(STAMP)
	bash scripts/ensure-services.sh
	$(BIN)/ruff check .
	$(BIN)/mypy service worker bench
	$(BIN)/python -m pytest -q

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy service worker bench

bench-load: $(STAMP)
	$(BIN)/python -m bench.load --db sqlite --db postgresql://postgres@127.0.0.1/postgres --seconds 30 --concurrency 64 --out load_$$(date +%Y%m%d).json

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache test-artifacts
