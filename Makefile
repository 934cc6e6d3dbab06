# Two entry points: `make demo` runs rein's main job, `make test` runs every check.
# `make demo` installs what rein needs to run (requirements-demo.lock: the runtime, the local model, the
# build backend); `make test` installs everything (requirements.lock: the development tools, the test
# servers, the frameworks, the docs tools). Both are hashed locks of the same pins, installed into one
# `.venv` with its bytecode compiled (where PYTHONDONTWRITEBYTECODE is set, every `rein` process would
# otherwise compile rein again). The demo set is installed exactly as locked (`--no-deps`, as a sync does)
# but never synced, so it never removes the dev tools.
# Nothing is compiled: llama.cpp comes as a prebuilt wheel (xllamacpp).
UV ?= uv
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.rein-installed
DEMO_STAMP := $(VENV)/.rein-demo
EDITABLE := $(UV) pip install --quiet --python $(BIN)/python --no-deps --no-build-isolation -e .
EXTRAS := --extra local --extra build
DEV_EXTRAS := --extra dev --extra docs --extra acp --extra pydantic-ai --extra openai-agents \
	--extra langchain --extra adk

.PHONY: demo test test-fast lint typecheck pytest bench docs lock clean

$(STAMP): requirements.lock pyproject.toml
	$(UV) venv --quiet --allow-existing --python 3.11 $(VENV)
	$(UV) pip sync --quiet --python $(BIN)/python --require-hashes --compile-bytecode requirements.lock
	$(EDITABLE)
	$(BIN)/python -m compileall -q src/rein
	touch $(STAMP) $(DEMO_STAMP)

$(DEMO_STAMP): requirements-demo.lock pyproject.toml
	$(UV) venv --quiet --allow-existing --python 3.11 $(VENV)
	$(UV) pip install --quiet --python $(BIN)/python --require-hashes --no-deps --compile-bytecode -r requirements-demo.lock
	$(EDITABLE)
	$(BIN)/python -m compileall -q src/rein
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/rein demo

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

# Coverage: 90 percent overall, and every line of the timebox core.
pytest: $(STAMP)
	$(BIN)/pytest -n 2 --durations=25 --cov --cov-report=term --cov-fail-under=90
	$(BIN)/coverage report --include='*/rein/timebox/*' --fail-under=100 --skip-covered

# The tests not marked `slow` (no end-to-end processes, no local model): about a minute on 2 cores.
# Bytecode is written for this run even where PYTHONDONTWRITEBYTECODE is set: collection halves.
test-fast: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -m "not slow" -n 2 -q

bench: $(STAMP)
	$(BIN)/python -m bench.steering
	$(BIN)/python -m bench.false_blocks
	$(BIN)/python -m bench.ttsr
	$(BIN)/python -m bench.hooks
	$(BIN)/python -m bench.session
	$(BIN)/python -m bench.runtime
	$(BIN)/python -m bench.local
	$(BIN)/python -m bench.server
	$(BIN)/python -m bench.failover
	$(BIN)/python -m bench.hostile
	$(BIN)/python -m bench.web

# The reference under docs/ as a site in site/; strict: a broken link or anchor fails the build.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The demo lock takes the full lock's pins as constraints, so both install the same versions.
lock:
	$(UV) pip compile pyproject.toml $(EXTRAS) $(DEV_EXTRAS) --excludes requirements-exclude.txt \
		--generate-hashes --python-version 3.11 -o requirements.lock
	$(UV) pip compile pyproject.toml $(EXTRAS) --constraints requirements.lock \
		--excludes requirements-exclude.txt --generate-hashes --python-version 3.11 -o requirements-demo.lock

clean:
	rm -rf $(VENV)
