#!/usr/bin/env bash
# Every test dyno has, from a fresh clone: formatting, lints, the Rust tests
# (with a throwaway PostgreSQL on loopback for the history store, headless
# Chromium for the HTML report and valgrind for instruction counts),
# the vector generator's tests (in a pinned Python venv), the Solidity
# contracts' recompile test (pinned solc from npm), a smoke run of every
# default suite (each benchmark verifies its output first), of the storage
# engines and of every runtime, the adapters' and dev nodes' own tests, and
# a 20 000-transaction load run into geth.
#
# Everything is built once, in the test profile (dependencies at opt-level
# 2), with the storage engines in (`--features db-engines`: RocksDB's C++
# alone takes ~10 minutes on 2 cores, so a second, release build of it would
# not fit CI's 90 minutes). The smoke runs use that binary, target/debug/dyno.
#
# Usage: scripts/test.sh            (CI runs exactly this via .ci/run)
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step says how far into the 90-minute CI budget it starts.
step() { printf '\n== [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }

step "set-up: pinned go-ethereum module (precompile vectors)"
scripts/setup.sh

step "cargo fmt --check"
cargo fmt --all --check

features=(--features dyno/db-engines)
step "cargo clippy --all-targets -- -D warnings (with the db engines)"
cargo clippy --workspace --all-targets --locked "${features[@]}" -- -D warnings

step "cargo test --no-run: build every test and target/debug/dyno (with the db engines)"
# The same packages, targets and features as clippy above and \`cargo test\`
# below, so RocksDB's and MDBX's C/C++ is compiled once: a \`cargo run -p
# dyno\` here resolved other features and built RocksDB a second time.
cargo test --workspace --locked "${features[@]}" --no-run
dyno=target/debug/dyno

step "set-up: dev nodes for the load lab (geth from the Go module proxy, anvil and hardhat from npm)"
# The load tests in \`cargo test\` start the pinned geth; build it first.
"$dyno" setup -q geth anvil hardhat

step "set-up: headless Chromium (Debian's package) for the HTML report's browser test"
scripts/chromium.sh
# The browser test keeps its screenshot here (a CI artifact).
export DYNO_ARTIFACTS="${DYNO_ARTIFACTS:-$PWD/target/artifacts}"

step "set-up: valgrind (Debian's package) for callgrind instruction counts"
if ! command -v valgrind >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends valgrind \
    || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends valgrind; }
fi
valgrind --version

step "set-up: a throwaway PostgreSQL on 127.0.0.1 for the history store's tests"
# Installed from Debian's packages if missing; stopped and removed on exit.
# (One EXIT trap for every clean-up: a second `trap ... EXIT` would replace it.)
pgdir=$(mktemp -d)
smoke=$(mktemp -d)
trap 'rm -rf "$smoke"; scripts/postgres.sh stop "$pgdir" >/dev/null 2>&1 || true' EXIT
DYNO_TEST_POSTGRES=$(scripts/postgres.sh start "$pgdir")
export DYNO_TEST_POSTGRES

step "cargo test (with the db engines)"
cargo test --workspace --locked "${features[@]}"

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

step "smoke run: dyno run --quick (every default suite, verified)"
"$dyno" run --quick -q --out "$smoke/run.json" >"$smoke/table.txt"
tail -n 4 "$smoke/table.txt" >&2
echo "smoke run passed"

# Other runtimes. In CI (CI=true) a missing runtime is an error, not a
# skip: the machine is meant to have Go, a JDK >= 21, Python 3 and Node.
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

for dir in nodes/*/; do
  name=$(basename "$dir")
  [ -x "$dir/test" ] || continue
  step "dev node test: $name"
  DYNO_CACHE="$cache" "$dir/test"
done

step "load lab: dyno load --txs 20000 into a temporary geth, every transaction accounted for"
"$dyno" load --txs 20000 -q --out "$smoke/load.json" >"$smoke/load.txt"
cat "$smoke/load.txt" >&2
python3 - "$smoke/load.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
l = run["load"][0]
c, scan = l["counts"], l["chain_scan"]
problems = []
if not run["run"]["complete"]:
    problems.append(f'incomplete: {run["run"]["incomplete_reason"]}')
# Every transaction accounted for: each sent one was accepted or rejected
# with a class, each accepted one is included, pending or dropped, and the
# included count is what a scan of the chain finds. (How many a slow
# machine's geth includes in time is a measurement, not a test.)
if c["submitted"] != 20000 or c["accepted"] + c["rejected"] != c["submitted"]:
    problems.append(f"sent transactions unaccounted for: {c}")
if sum(c["rejected_by_class"].values()) != c["rejected"]:
    problems.append(f"rejections without a class: {c}")
if c["included"] + c["pending"] + c["dropped"] != c["accepted"] or c["included"] == 0:
    problems.append(f"accepted transactions unaccounted for: {c}")
if scan is None or scan["found"] != c["included"] or not scan["matches"]:
    problems.append(f"chain scan {scan} disagrees with counts {c}")
if problems:
    sys.exit("; ".join(problems))
print(f'load run passed: {c["included"]} of {c["accepted"]} accepted included, chain scan {scan["found"]}, '
      f'sustained {l["throughput"]["sustained"]:.0f} tx/s, generator ceiling '
      f'{l["generator"]["self_test_rate"]:.0f} req/s', file=sys.stderr)
PY

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

step "storage engines: dyno run db --impl all (RocksDB, MDBX, redb, Pebble, LevelDB on 1M keys)"
# The first run loads the data set into each engine (docs/db.md); every
# operation's outputs are checked against the generator before timing.
"$dyno" run db --impl all --quick -q --out "$smoke/db.json" >"$smoke/db.txt"
cat "$smoke/db.txt" >&2
python3 - "$smoke/db.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
engines = sorted({r["implementation"]["name"] for r in run["results"] if not r["id"].startswith("harness/")})
wrong = [f'{r["id"]} {r["implementation"]["name"]}' for r in run["results"]
         if r["verification"]["status"] != "passed"]
missing = {"rocksdb", "mdbx", "redb", "pebble", "leveldb"} - set(engines)
unstated = [r["id"] for r in run["results"]
            if not r["id"].startswith("harness/") and "durability" not in r["parameters"]]
print("engines measured:", ", ".join(engines), file=sys.stderr)
if missing or wrong or unstated or not run["run"]["complete"]:
    sys.exit(f"missing engines {sorted(missing)}; not verified {wrong}; durability not stated {unstated}; complete {run['run']['complete']}")
PY
echo "storage-engine smoke run passed"

step "net and pow: dyno-net and geth, ethash and core-geth, the handshake against a local geth"
# The epoch-0 dataset (1 GiB, minutes to generate) is left to `dyno run pow`.
"$dyno" run "net,pow/hashimoto-light,pow/verify-header,pow/etchash-epoch" \
  --impl dyno-net,geth,ethash,core-geth --quick -q --out "$smoke/net-pow.json" >"$smoke/net-pow.txt"
cat "$smoke/net-pow.txt" >&2
python3 - "$smoke/net-pow.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
impls = {r["implementation"]["name"] for r in run["results"] if not r["id"].startswith("harness/")}
wrong = [f'{r["id"]} {r["implementation"]["name"]}' for r in run["results"]
         if r["verification"]["status"] != "passed"]
missing = {"dyno-net", "geth", "ethash", "core-geth"} - impls
remote = [r for r in run["results"] if r["id"] == "net/handshake/remote-geth"]
if missing or wrong or not remote or not run["run"]["complete"]:
    sys.exit(f"missing {sorted(missing)}; not verified {wrong}; remote-geth results {len(remote)}; complete {run['run']['complete']}")
PY
echo "net and pow smoke run passed"

step "memory: dyno run mem (ECDSA and JSON-RPC scenarios), every runtime in a fresh worker"
# The state-root, storage and import scenarios take minutes in this debug
# build; `dyno run mem` runs them all (docs/memory.md).
"$dyno" run "mem/secp256k1-recover,mem/getlogs-typed" --impl all --quick -q \
  --out "$smoke/mem.json" >"$smoke/mem.txt"
sed -n '/^Memory:/,/^$/p' "$smoke/mem.txt" >&2
python3 - "$smoke/mem.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
rows = [r for r in run["results"] if r["id"].startswith("mem/")]
runtimes = {r["implementation"]["runtime"] for r in rows}
problems = []
if runtimes != {"rust", "go", "java", "node", "python"}:
    problems.append(f"runtimes {sorted(runtimes)}")
for r in rows:
    p, name = r["parameters"], f'{r["id"]} {r["implementation"]["name"]}'
    if r["verification"]["status"] != "passed":
        problems.append(f"{name} not verified")
    if not p.get("rss_peak_bytes") or "rss_start_bytes" not in p:
        problems.append(f"{name} has no peak RSS")
    other = r["implementation"]["runtime"] != "rust"
    if other and ("gc_count" not in p or "gc_overhead_pct" not in p or not p.get("fresh_worker")):
        problems.append(f"{name}: GC figures or a fresh worker missing")
    if r["implementation"]["runtime"] == "java" and not p.get("heap_peak_bytes"):
        problems.append(f"{name}: no JVM heap peak")
if problems or not run["run"]["complete"]:
    sys.exit("; ".join(problems) or "incomplete run")
print(f"memory smoke run passed: {len(rows)} scenarios on {', '.join(sorted(runtimes))}", file=sys.stderr)
PY
