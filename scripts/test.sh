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

# Other runtimes. In CI (CI=true) a missing runtime is an error, not a
# skip: the machine is meant to have Go, a JDK >= 21, Python 3 and Node.
dyno=target/release/dyno
step "adapters: dyno setup (pinned dependencies into the cache)"
"$dyno" setup -q
cache=${DYNO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dyno}
for dir in adapters/*/; do
  rt=$(basename "$dir")
  [ -x "$dir/test" ] || continue
  if [ ! -x "$cache/adapters/$rt/run" ]; then
    if [ "${CI:-}" = true ]; then
      echo "adapter $rt was not installed by dyno setup" >&2
      exit 1
    fi
    echo "skipping the $rt adapter's tests: not installed (runtime missing)" >&2
    continue
  fi
  step "adapter tests: $rt"
  "$dir/test" "$cache/adapters/$rt"
done

step "cross-implementation smoke run: crypto and hash, every runtime"
"$dyno" run crypto,hash --impl all --quick -q --out "$smoke/all.json" >"$smoke/all.txt"
python3 - "$smoke/all.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
runtimes = sorted({r["implementation"]["runtime"] for r in run["results"]})
wrong = [f'{r["id"]} {r["implementation"]["name"]}' for r in run["results"]
         if r["verification"]["status"] == "failed"]
print("runtimes measured:", ", ".join(runtimes), file=sys.stderr)
want = {"rust", "go", "java", "python", "node"}
missing = want - set(runtimes)
if missing or wrong:
    sys.exit(f"missing runtimes {sorted(missing)}; wrong results {wrong}")
PY
echo "cross-implementation smoke run passed"
