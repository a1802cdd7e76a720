#!/usr/bin/env bash
# Every test dyno has, from a fresh clone: formatting, lints, the Rust tests,
# the vector generator's tests (in a pinned Python venv), the Solidity
# contracts' recompile test (pinned solc from npm), and a release-mode
# smoke run of every default suite (each benchmark verifies its output first,
# so this catches a wrong result under full optimisation).
#
# Usage: scripts/test.sh            (CI runs exactly this via .ci/run)
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*" >&2; }

step "set-up: pinned go-ethereum module (precompile vectors)"
scripts/setup.sh

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo test"
cargo test --workspace --locked

step "vector generator tests (Python, pinned venv)"
venv=vectors/gen/.venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r vectors/gen/requirements.txt
(cd vectors/gen && ../../"$venv"/bin/python -m pytest -q)

step "contracts: solc (pinned npm package) recompiles the checked-in bytecode"
npm --prefix contracts ci --no-audit --no-fund --loglevel=error
npm --prefix contracts test

step "release smoke run: dyno run --quick (every default suite, verified)"
smoke=$(mktemp -d)
trap 'rm -rf "$smoke"' EXIT
cargo run --release --locked -q -p dyno -- run --quick -q --out "$smoke/run.json" >"$smoke/table.txt"
tail -n 4 "$smoke/table.txt" >&2
echo "release smoke run passed"
