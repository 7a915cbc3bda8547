#!/usr/bin/env bash
# Installs what the tests need beyond the Rust toolchain, from the package registries only:
#   .venv/                    Python virtual environment with tests/requirements.txt (pinned)
#   tests/peers/js/node_modules  the JS peer's dependencies, exactly as package-lock.json says
# Idempotent: an existing .venv is reused (pip only installs what is missing or differs).
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)

need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  # A clean machine of this project's kind has python3 and node; fall back to Debian's
  # packages when one is missing and we may install (CI runs as root).
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "05-setup: $1 missing, installing $2 from Debian"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $2 >/dev/null
  fi
  command -v "$1" >/dev/null 2>&1 || { echo "05-setup: $1 is required (package: $2)" >&2; exit 1; }
}
need python3 "python3 python3-venv"
need node nodejs
need npm npm

if ! .venv/bin/python -c 'import sys' >/dev/null 2>&1; then
  rm -rf .venv
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --disable-pip-version-check -q -r tests/requirements.txt

# The Python binding's optional compiled fast path (a2a_core._speedups, built when the package
# is installed) needs a C compiler and the interpreter's headers; CI builds and tests it
# (40-python.sh). pyenv's and python.org's CPython carry their headers; Debian's python3
# needs python3-dev.
py_include=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
if ! command -v cc >/dev/null 2>&1 || [ ! -f "$py_include/Python.h" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "05-setup: C compiler or Python.h missing, installing build-essential python3-dev from Debian"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq build-essential python3-dev >/dev/null
  fi
fi
[ -f "$py_include/Python.h" ] || { echo "05-setup: $py_include/Python.h is required (package: python3-dev)" >&2; exit 1; }
command -v cc >/dev/null 2>&1 || { echo "05-setup: a C compiler is required (package: build-essential)" >&2; exit 1; }

# npm ci: exactly the lock file, fails if package.json and the lock disagree.
(cd tests/peers/js && npm ci --no-audit --no-fund --loglevel=error)

echo "05-setup: $(.venv/bin/python --version), node $(node --version), npm $(npm --version)"
.venv/bin/python - <<'PY'
from importlib.metadata import version
names = ['a2a-sdk', 'starlette', 'sse-starlette', 'uvicorn', 'pytest', 'httpx', 'httpx-sse', 'prometheus_client']
print('05-setup: ' + ', '.join(f'{n} {version(n)}' for n in names))
PY
echo "05-setup: @a2a-js/sdk $(node -p 'require("./tests/peers/js/node_modules/@a2a-js/sdk/package.json").version'), express $(node -p 'require("./tests/peers/js/node_modules/express/package.json").version')"
echo "05-setup: done in $(( $(date +%s) - started ))s"
