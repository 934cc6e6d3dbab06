# Two entry points: `make demo` runs rein's main job, `make test` runs every check.
# The virtualenv is rebuilt from the hashed lock whenever the lock or pyproject changes, with its bytecode
# compiled (where PYTHONDONTWRITEBYTECODE is set, every `rein` process would otherwise compile rein again).
UV ?= uv
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.rein-installed
# llama.cpp is compiled from source on the first install (3.5 minutes on 2 cores). The flags are
# build settings, so uv keys its cache of the built wheel on them and later installs reuse it. A portable
# build: -march=native crashes on some AVX-512 machines, and the multimodal library is not used.
LLAMA_BUILD := $(foreach d,GGML_NATIVE=OFF GGML_AVX512=OFF LLAVA_BUILD=OFF,\
	--config-settings-package llama-cpp-python:cmake.define.$(d))

.PHONY: demo test lint typecheck pytest bench docs lock clean

$(STAMP): requirements.lock pyproject.toml
	$(UV) venv --quiet --allow-existing --python 3.11 $(VENV)
	$(UV) pip sync --quiet --python $(BIN)/python --require-hashes --compile-bytecode $(LLAMA_BUILD) requirements.lock
	$(UV) pip install --quiet --python $(BIN)/python --no-deps --no-build-isolation -e .
	$(BIN)/python -m compileall -q src/rein
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/rein demo

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

# Coverage: 90 percent overall, and every line of the timebox core.
pytest: $(STAMP)
	$(BIN)/pytest -n 2 --cov --cov-report=term --cov-fail-under=90
	$(BIN)/coverage report --include='*/rein/timebox/*' --fail-under=100 --skip-covered

bench: $(STAMP)
	$(BIN)/python -m bench.steering
	$(BIN)/python -m bench.ttsr
	$(BIN)/python -m bench.hooks
	$(BIN)/python -m bench.session
	$(BIN)/python -m bench.runtime
	$(BIN)/python -m bench.local
	$(BIN)/python -m bench.server
	$(BIN)/python -m bench.web

# The reference under docs/ as a site in site/; strict: a broken link or anchor fails the build.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

lock:
	$(UV) pip compile pyproject.toml --extra local --extra dev --extra docs \
		--extra acp --extra pydantic-ai --extra openai-agents --extra langchain --extra adk --excludes requirements-exclude.txt \
		--generate-hashes --python-version 3.11 -o requirements.lock

clean:
	rm -rf $(VENV)
