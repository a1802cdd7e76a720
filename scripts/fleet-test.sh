#!/usr/bin/env bash
# fleet-test.sh DYNO GETH_RUN WORKERS OUT_DIR
#
# One machine as several (issue 36): an MQTT broker (Debian's mosquitto) and
# a dev geth on a bridge in this network namespace, and WORKERS `dyno join
# --broker` processes, each in a network namespace of its own joined to the
# bridge by a veth pair. Then, through `dyno load --fleet`:
#
#   0. `dyno setup mosquitto` (into a throwaway DYNO_CACHE) starts a broker on
#      127.0.0.1, and a worker on loopback measures its generator's ceiling
#      through it (`dyno load --fleet --self-test`);
#  0b. a broker that asks for a login (mosquitto's password_file): a worker
#      without one refused by name, a worker and orchestrator with their
#      login file (--broker-login, --fleet-login) served;
#  0c. a TLS broker (mqtts://) with a certificate of a CA made here: refused
#      on the machine's roots, served with --broker-ca and --fleet-ca;
#   1. a fleet run: every transaction accounted for and recounted on chain,
#      the merged percentiles equal to those recomputed here from the raw
#      CSV, every worker's raw records kept, the planted clock offset of the
#      first worker (+25 ms) found within its stated uncertainty and said, a
#      worker that joins after the start refused by name;
#   2. the last worker killed (SIGKILL) mid-run: exit 2, the run marked
#      incomplete, the killed worker lost with its records up to then kept
#      and included, the others complete;
#   3. a worker claiming another dyno version: refused, named;
#   4. a worker whose --rpc is not the plan's node: it refuses the plan, named;
#   5. Ctrl-C on the orchestrator mid-run: every worker stopped, what they
#      sent kept and included, the run saved incomplete, exit 2;
#   6. the broker killed (SIGKILL) mid-run: the orchestrator keeps what the workers
#      reported until then (included, recounted), saves the run incomplete
#      and exits 2; every worker exits non-zero;
#   7. a broker participant without the fleet's key (scripts/mqtt-forger.py)
#      sends each worker a plan aimed at another node, a start and a start
#      with a forged seal, and replays, alters and forges record batches and
#      a `done`: each worker and the orchestrator refuse each forgery by
#      name, the replay is dropped, and the run is complete with every
#      transaction reported once, by its own worker, and included.
#
# Every worker and orchestrator takes the same fleet key (`dyno join
# --new-key`); a worker sends only to a node on its --allow-node host, the
# bridge (case 4: one whose --rpc is another node refuses its plan).
#
# Needs root (ip netns, veth, bridge), mosquitto and openssl. The Results and logs
# stay in OUT_DIR; the namespaces, bridge, broker, node and workers are
# removed on every exit. FLEET_TXS and FLEET_RATE size run 1 (1500 at 300/s).
set -euo pipefail

if [ $# -ne 4 ]; then
  echo "usage: fleet-test.sh DYNO GETH_RUN WORKERS OUT_DIR" >&2
  exit 2
fi
dyno=$(realpath "$1")
geth=$2
workers=$3
out=$4
[ "$workers" -ge 2 ] || { echo "fleet-test: WORKERS must be at least 2" >&2; exit 2; }
[ -x "$geth" ] || { echo "fleet-test: $geth is not executable (dyno setup geth)" >&2; exit 2; }
mosq=$(command -v mosquitto || echo /usr/sbin/mosquitto)
[ -x "$mosq" ] || { echo "fleet-test: mosquitto is not installed (apt-get install mosquitto)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "fleet-test: needs root for network namespaces" >&2; exit 2; }
mkdir -p "$out"
# geth by name in the node's command line (its folder first on PATH), so the
# Result says `geth`, not where this machine keeps it.
PATH="$(dirname "$(realpath "$geth")"):$PATH"
[ -x "$(dirname "$(realpath "$geth")")/geth" ] || { echo "fleet-test: no geth beside $geth" >&2; exit 2; }

tag=df$$
net=10.231.$(($$ % 200 + 20))
host_ip=$net.1
bridge=${tag}b
work=$(mktemp -d)
pids=()

cleanup() {
  local rc=$?
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  for f in "$work/mosquitto.pid" "$work/auth.pid" "$work/tls.pid" "$work/cache/nodes/mosquitto/mosquitto.pid"; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
  done
  for k in $(seq "$((workers + 3))"); do
    ip netns del "${tag}n$k" 2>/dev/null || true
    ip link del "${tag}h$k" 2>/dev/null || true
  done
  ip link del "$bridge" 2>/dev/null || true
  if [ $rc -ne 0 ]; then
    for f in "$work"/*.log; do
      [ -f "$f" ] || continue
      echo "--- $(basename "$f") (last 15 lines)" >&2
      tail -n 15 "$f" >&2
    done
  fi
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
  echo "fleet-test: FAIL: $*" >&2
  exit 1
}
now() { date +%s%N; }
# Start mosquitto on CONF and wait until HOST:PORT takes connections.
start_broker() {
  "$mosq" -d -c "$1"
  for _ in $(seq 50); do (exec 3<>"/dev/tcp/$2/$3") 2>/dev/null && break; sleep 0.1; done
}
# A worker NAME (the flags before --) and the orchestrator's self-test
# (the flags after --) through URL: both must run and the ceiling name it.
self_test_through() {
  local url=$1 name=$2 w
  shift 2
  local wflags=() lflags=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do wflags+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  lflags=("$@")
  "$dyno" join --broker "$url" --key "$key" "${wflags[@]}" --name "$name" --once >"$work/$name.log" 2>&1 &
  pids+=($!)
  w=$!
  "$dyno" load --fleet "$url" --fleet-key "$key" "${lflags[@]}" --self-test --self-test-requests 2000 \
    >"$out/selftest-$name.txt" 2>"$work/selftest-$name.log" \
    || fail "the self-test through $url failed: $(tail -3 "$work/selftest-$name.log")"
  wait "$w" || fail "the worker $name exited non-zero"
  grep -q "^  $name: [0-9]* requests/s" "$out/selftest-$name.txt" || fail "no ceiling for the worker $name"
}
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }

# 0. dyno setup mosquitto, on loopback, and a self-test through it.
t=$(now)
# Ports below 20000: under the kernel's ephemeral range (where any outgoing
# connection's local port comes from) and under the range dyno draws its
# nodes' ports from (dyno_node::free_port), so neither can take them.
lport=$((10000 + $$ % 5000))
DYNO_CACHE=$work/cache DYNO_MQTT_PORT=$lport "$dyno" setup -q mosquitto 2>"$work/setup.log" \
  || fail "dyno setup mosquitto failed"
[ -f "$work/cache/nodes/mosquitto/mosquitto.pid" ] || fail "dyno setup mosquitto started no broker"
key=$work/fleet.key
"$dyno" join --new-key "$key" 2>"$work/key.log" || fail "dyno join --new-key failed"
[ "$(stat -c %a "$key")" = 600 ] || fail "the new fleet key is mode $(stat -c %a "$key"), not 600"
"$dyno" join --broker "mqtt://127.0.0.1:$lport/selftest" --key "$key" --name solo --once >"$work/solo.log" 2>&1 &
pids+=($!)
solo=$!
"$dyno" load --fleet "mqtt://127.0.0.1:$lport/selftest" --fleet-key "$key" --self-test --self-test-requests 20000 \
  >"$out/selftest.txt" 2>"$work/selftest-orchestrator.log" || fail "the fleet self-test failed"
wait "$solo" || fail "the self-test's worker exited non-zero"
grep -q "^  solo: [0-9]* requests/s" "$out/selftest.txt" || fail "the self-test printed no ceiling for its worker"
kill "$(cat "$work/cache/nodes/mosquitto/mosquitto.pid")"
echo "fleet-test: 0. dyno setup mosquitto and a self-test through it ($(secs "$t") s): $(head -1 "$out/selftest.txt")" >&2

# 0b. A broker that asks for a login: a worker without one is refused by
# name (exit 2, pointing to --broker-login); with its login file (0600)
# worker and orchestrator run the self-test through it.
t=$(now)
aport=$((lport + 1))
mosquitto_passwd -b -c "$work/passwords" fleet 'pass:word' 2>/dev/null || fail "mosquitto_passwd failed"
cat >"$work/auth.conf" <<CONF
listener $aport 127.0.0.1
allow_anonymous false
password_file $work/passwords
persistence false
user root
pid_file $work/auth.pid
log_dest file $work/auth.log
CONF
start_broker "$work/auth.conf" 127.0.0.1 "$aport"
printf 'fleet:pass:word\n' >"$work/login"
chmod 600 "$work/login"
code=0
"$dyno" join --broker "mqtt://127.0.0.1:$aport/auth" --key "$key" --once >"$work/nologin.log" 2>&1 || code=$?
[ "$code" = 2 ] || fail "a worker without a login exited $code on a broker that asks for one, not 2"
grep -q "asks for a login.*--broker-login" "$work/nologin.log" || fail "the refused login was not said: $(cat "$work/nologin.log")"
self_test_through "mqtt://127.0.0.1:$aport/auth" authed --broker-login "$work/login" -- --fleet-login "$work/login"
kill "$(cat "$work/auth.pid")"
echo "fleet-test: 0b. a broker that asks for a login: refused without it, served with it ($(secs "$t") s)" >&2

# 0c. A TLS broker (mqtts://) with a certificate of a CA made here: a worker
# that checks it against the machine's roots is refused (exit 2, naming the
# certificate); with the CA (--broker-ca, --fleet-ca) the self-test runs.
t=$(now)
tport=$((lport + 2))
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=fleet-test CA" \
  -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null || fail "openssl could not make a CA"
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$work/server.key" \
  -out "$work/server.csr" 2>/dev/null || fail "openssl could not make a request"
printf 'subjectAltName=IP:127.0.0.1\n' >"$work/san.ext"
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
  -days 2 -extfile "$work/san.ext" -out "$work/server.pem" 2>/dev/null || fail "openssl could not sign"
cat >"$work/tls.conf" <<CONF
listener $tport 127.0.0.1
allow_anonymous true
cafile $work/ca.pem
certfile $work/server.pem
keyfile $work/server.key
persistence false
user root
pid_file $work/tls.pid
log_dest file $work/tls.log
CONF
start_broker "$work/tls.conf" 127.0.0.1 "$tport"
code=0
"$dyno" join --broker "mqtts://127.0.0.1:$tport/tls" --key "$key" --once >"$work/noca.log" 2>&1 || code=$?
[ "$code" = 2 ] || fail "a worker that cannot check the TLS broker's certificate exited $code, not 2"
grep -qi "certificate" "$work/noca.log" || fail "the untrusted certificate was not said: $(cat "$work/noca.log")"
self_test_through "mqtts://127.0.0.1:$tport/tls" tls --broker-ca "$work/ca.pem" -- --fleet-ca "$work/ca.pem"
kill "$(cat "$work/tls.pid")"
echo "fleet-test: 0c. a TLS broker: refused on the machine's roots, served with its CA ($(secs "$t") s)" >&2

# The bridge, and one namespace per worker (and spares for the fault runs).
ip link add "$bridge" type bridge
ip addr add "$host_ip/24" dev "$bridge"
ip link set "$bridge" up
make_host() { # K: namespace ${tag}nK at $net.(10+K)
  local k=$1 ns=${tag}n$1
  ip netns add "$ns"
  ip link add "${tag}h$k" type veth peer name "${tag}p$k"
  ip link set "${tag}p$k" netns "$ns"
  ip link set "${tag}h$k" master "$bridge" up
  ip -n "$ns" addr add "$net.$((10 + k))/24" dev "${tag}p$k"
  ip -n "$ns" link set "${tag}p$k" up
  ip -n "$ns" link set lo up
}
for k in $(seq "$((workers + 3))"); do make_host "$k"; done

# The broker on the bridge, with no persistence.
port=$((15000 + $$ % 5000))
cat >"$work/mosquitto.conf" <<CONF
listener $port $host_ip
allow_anonymous true
persistence false
set_tcp_nodelay true
user root
pid_file $work/mosquitto.pid
log_dest file $work/mosquitto.log
CONF
start_broker "$work/mosquitto.conf" "$host_ip" "$port"
broker=mqtt://$host_ip:$port/fleet-test
echo "fleet-test: broker $broker, $workers workers in namespaces ${tag}n1..${tag}n$workers" >&2

# The node: a dev geth on the bridge, started and stopped by dyno.
node_cmd="geth --dev --dev.period 1 --datadir {datadir} --http --http.addr $host_ip --http.port {port} \
--http.api eth,net,web3,txpool --ipcdisable --nat none --nodiscover --maxpeers 0 --port 0 --authrpc.port 0 \
--txpool.globalslots 65536 --txpool.accountslots 4096 --txpool.globalqueue 65536 --txpool.accountqueue 4096 \
--rpc.txfeecap 0 --verbosity 2"
node_url="http://$host_ip:{port}"

# start_worker K NAME [FLAGS...]: a worker in namespace K, pid kept; it may
# send to a node on the bridge's host unless FLAGS name its --rpc.
start_worker() {
  local k=$1 name=$2 node=(--allow-node "$host_ip")
  shift 2
  [[ " $* " == *" --rpc "* ]] && node=()
  ip netns exec "${tag}n$k" "$dyno" join --broker "$broker" --key "$key" --name "$name" --once \
    "${node[@]}" "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
  eval "pid_$name=$!"
}
# refused NAME SECS: worker NAME exits non-zero within SECS.
refused() {
  local pid i
  pid=$(eval echo "\$pid_$1")
  for i in $(seq "$(($2 * 10))"); do
    if ! kill -0 "$pid" 2>/dev/null; then
      if wait "$pid"; then fail "worker $1 exited 0"; fi
      return 0
    fi
    sleep 0.1
  done
  fail "worker $1 still runs $2 s after the orchestrator refused it"
}
# wait_line FILE PATTERN SECS
wait_line() {
  local i
  for i in $(seq "$(($3 * 10))"); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "no line matching '$2' in $(basename "$1") within $3 s"
}
# fleet NAME N FLAGS...: the orchestrator; its exit status in $rc.
fleet() {
  local name=$1
  shift
  set +e
  "$dyno" load --fleet "$broker" --fleet-key "$key" --node-cmd "$node_cmd" --node-url "$node_url" \
    --finality-timeout 0 --poll-ms 20 --out "$out/$name.json" "$@" \
    >"$out/$name.txt" 2>"$work/$name-orchestrator.log"
  rc=$?
  set -e
}

# 1. A fleet run, one worker's clock 25 ms ahead, a late joiner refused.
t=$(now)
names=()
for k in $(seq "$workers"); do
  flags=()
  [ "$k" = 1 ] && flags=(--clock-skew-ms 25)
  start_worker "$k" "w$k" "${flags[@]}"
  names+=("w$k")
done
(
  wait_line "$work/run-orchestrator.log" "worker(s): " 120
  start_worker "$((workers + 1))" late
  wait $!
) &
late=$!
txs=${FLEET_TXS:-1500}
fleet run --workers "$workers" --txs "$txs" --rate "${FLEET_RATE:-300}" --accounts $((workers * 4)) \
  --self-test-requests 20000 --join-timeout 30
[ $rc = 0 ] || fail "the fleet run exited $rc"
wait "$late" || true
grep -q "joined after the run started" "$work/late.log" || fail "the late worker was not told it joined after the start"
for n in "${names[@]}"; do wait "$(eval echo "\$pid_$n")" || fail "worker $n exited non-zero"; done
cat "$out/run.txt" >&2
python3 - "$out/run.json" "$workers" "$txs" <<'PY'
import csv, json, math, os, sys
path, workers, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
run = json.load(open(path))
(l,) = run["load"]
def check(ok, what):
    if not ok:
        sys.exit(f"fleet-test: FAIL: {what}")
c = l["counts"]
check(l["complete"] and run["run"]["complete"], f"the run is incomplete: {l.get('incomplete_reason')}")
check(c["submitted"] == n and c["included"] == n, f"submitted {c['submitted']}, included {c['included']} of {n}")
s = l["chain_scan"]
check(s["matches"] and s["found"] == n, f"the chain scan found {s['found']} of {n}")
f = l["fleet"]
ws = f["workers"]
check(len(ws) == workers, f"{len(ws)} workers in the breakdown")
check(all(w["end"] == "done" and w["sent"] == w["planned"] for w in ws), "a worker did not send its share")
check(sum(w["planned"] for w in ws) == n, "the shares do not add up to the run")
check(all(w["self_test_rate"] and w["self_test_rate"] > 0 for w in ws), "a worker has no generator ceiling")
# The raw records: every transaction reported once, by its own worker.
raw = os.path.join(os.path.dirname(path), l["files"]["workers"])
seen = {}
for line in open(raw):
    m = json.loads(line)
    for s_ in m["report"].get("records", {}).get("items", []):
        seen.setdefault(s_["index"], set()).add(m["worker"])
check(len(seen) == n and all(len(v) == 1 for v in seen.values()), f"the raw reports hold {len(seen)} of {n} transactions")
# The merged percentiles, recomputed from the raw CSV (nearest rank; the
# Result's come from an HDR histogram of 3 significant digits).
rows = list(csv.DictReader(open(os.path.join(os.path.dirname(path), l["files"]["csv"]))))
check(len(rows) == n, f"the CSV has {len(rows)} rows")
for stage, col in (("included", "included_ms"), ("accepted", "replied_ms")):
    v = sorted(float(r[col]) - float(r["intended_ms"]) for r in rows if r[col])
    got = l["latency"][stage]
    check(got["n"] == len(v), f"{stage}: n {got['n']} against {len(v)} in the CSV")
    for q, key in ((0.5, "p50"), (0.9, "p90"), (0.99, "p99")):
        want = v[max(1, math.ceil(q * len(v))) - 1]
        check(abs(got[key] - want) <= want * 2e-3 + 2e-3,
              f"{stage} {key}: the Result says {got[key]} ms, the raw CSV {want} ms")
# The planted clock offset, found within its uncertainty, and said.
w1 = next(w for w in ws if w["name"] == "w1")
b = w1["clock_before"]
check(abs(b["offset_ms"] - 25.0) <= b["uncertainty_ms"] + 0.05,
      f"w1's clock: {b['offset_ms']} ± {b['uncertainty_ms']} ms, planted +25")
for w in ws:
    if w["name"] != "w1":
        o = w["clock_before"]
        check(abs(o["offset_ms"]) <= o["uncertainty_ms"] + 0.05, f"{w['name']}'s clock: {o}")
check(any("w1's clock is +2" in x for x in l["notes"]), f"no note of w1's clock: {l['notes']}")
print(f"fleet-test: run: {n} transactions from {workers} workers, all included and recounted; "
      f"included P50 {l['latency']['included']['p50']} ms P99 {l['latency']['included']['p99']} ms from the merged records; "
      f"w1's planted +25 ms found as {b['offset_ms']:+.3f} ± {b['uncertainty_ms']:.3f} ms", file=sys.stderr)
PY
echo "fleet-test: 1. the fleet run checked ($(secs "$t") s)" >&2

# 2. The last worker killed mid-run.
t=$(now)
for k in $(seq "$workers"); do start_worker "$k" "k$k"; done
victim=k$workers
(
  wait_line "$work/$victim.log" "starting in" 120
  sleep 4
  kill -9 "$(eval echo "\$pid_$victim")"
) &
killer=$!
fleet killed --workers "$workers" --txs 3000 --rate 300 --accounts $((workers * 4)) \
  --self-test-requests 0 --join-timeout 30
wait "$killer"
[ $rc = 2 ] || fail "a run with a killed worker exited $rc, not 2"
grep -q "worker $victim is lost" "$work/killed-orchestrator.log" || fail "the orchestrator did not say $victim was lost"
python3 - "$out/killed.json" "$victim" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
(l,) = run["load"]
victim = sys.argv[2]
def check(ok, what):
    if not ok:
        sys.exit(f"fleet-test: FAIL: {what}")
check(not run["run"]["complete"] and not l["complete"], "the run is not marked incomplete")
check(victim in (l["incomplete_reason"] or ""), f"the reason does not name {victim}: {l['incomplete_reason']}")
for w in l["fleet"]["workers"]:
    if w["name"] == victim:
        check(w["end"] == "lost", f"{victim} ended {w['end']}")
        check(0 < w["sent"] < w["planned"], f"{victim} sent {w['sent']} of {w['planned']}")
        check(w["included"] == w["accepted"] == w["sent"], f"{victim}'s reported records: {w}")
    else:
        check(w["end"] == "done" and w["sent"] == w["planned"] == w["included"], f"{w['name']}: {w}")
c = l["counts"]
check(c["included"] == c["submitted"], f"included {c['included']} of {c['submitted']} reported")
print(f"fleet-test: killed: {victim} lost after {next(w['sent'] for w in l['fleet']['workers'] if w['name'] == victim)} "
      f"records, all kept and included; the others complete; exit 2", file=sys.stderr)
PY
echo "fleet-test: 2. the killed worker checked ($(secs "$t") s)" >&2

# 3. A worker of another version.
t=$(now)
start_worker 1 vbad --claim-version 0.0.0-other
fleet version --workers 1 --txs 10 --join-timeout 30
[ $rc = 2 ] || fail "a worker of another version: the orchestrator exited $rc, not 2"
grep -q "worker vbad: it runs dyno 0.0.0-other" "$work/version-orchestrator.log" || fail "the version refusal does not name the worker"
refused vbad 10
echo "fleet-test: 3. another version refused ($(secs "$t") s)" >&2

# 4. A worker whose own node (--rpc) is not the plan's.
t=$(now)
start_worker 1 nbad --rpc "http://$host_ip:9"
fleet unreachable --workers 1 --txs 10 --join-timeout 30
[ $rc = 2 ] || fail "a worker whose node is not the plan's: the orchestrator exited $rc, not 2"
grep -q "worker nbad: cannot keep its plan: the plan names the node .*, not this worker's own --rpc http://$host_ip:9" \
  "$work/unreachable-orchestrator.log" || fail "the refusal of a plan for another node does not name the worker and both nodes"
if grep -q "^dyno join: planned:" "$work/nbad.log"; then fail "worker nbad took a plan for another node"; fi
refused nbad 10
echo "fleet-test: 4. a plan for another node than the worker's own refused ($(secs "$t") s)" >&2

# 7. A broker participant without the key (run here, while the broker lives).
t=$(now)
for k in $(seq "$workers"); do start_worker "$k" "f$k"; done
python3 "$(dirname "$0")/mqtt-forger.py" "$host_ip" "$port" fleet-test 120 >"$work/forger.out" 2>"$work/forger.log" &
forger=$!
pids+=($forger)
fleet forged --workers "$workers" --txs 600 --rate 300 --accounts $((workers * 4)) \
  --self-test-requests 0 --join-timeout 30
wait "$forger" || fail "the forger did not get to try every forgery: $(cat "$work/forger.log")"
[ $rc = 0 ] || fail "a run beside a forger exited $rc"
for k in $(seq "$workers"); do
  wait "$(eval echo "\$pid_f$k")" || fail "worker f$k exited non-zero beside the forger"
  grep -q "refused a message .*: on dyno/fleet-test/worker/f$k/cmd: not a sealed fleet message" "$work/f$k.log" ||
    fail "worker f$k did not refuse the unsealed plan by name"
  grep -q "refused a message .*: its seal is not the fleet key's" "$work/f$k.log" ||
    fail "worker f$k did not refuse the start with a forged seal"
  if grep -q "http://$host_ip:9" "$work/f$k.log"; then fail "worker f$k took the forger's plan"; fi
done
orch=$work/forged-orchestrator.log
grep -q "refused a message .*a report on worker f[0-9]*'s topic: its seal is not the fleet key's" "$orch" ||
  fail "the orchestrator did not refuse the altered batch by name"
grep -q "refused a message .*a report on worker f[0-9]*'s topic: not a sealed fleet message" "$orch" ||
  fail "the orchestrator did not refuse the forged batch and done by name"
python3 - "$out/forged.json" 600 <<'PY'
import json, os, sys
path, n = sys.argv[1], int(sys.argv[2])
run = json.load(open(path))
(l,) = run["load"]
def check(ok, what):
    if not ok:
        sys.exit(f"fleet-test: FAIL: {what}")
check(l["complete"] and run["run"]["complete"], f"the run beside the forger is incomplete: {l.get('incomplete_reason')}")
c = l["counts"]
check(c["submitted"] == n and c["included"] == n, f"submitted {c['submitted']}, included {c['included']} of {n}")
ws = l["fleet"]["workers"]
check(all(w["end"] == "done" and w["sent"] == w["planned"] for w in ws), f"the workers: {ws}")
refused = [x for x in l["notes"] if "were refused" in x]
check(refused and int(refused[0].split()[0]) >= 3, f"no note of the refused messages: {l['notes']}")
raw = os.path.join(os.path.dirname(path), l["files"]["workers"])
seen = {}
for line in open(raw):
    m = json.loads(line)
    for s_ in m["report"].get("records", {}).get("items", []):
        seen.setdefault(s_["index"], []).append(m["worker"])
check(len(seen) == n and all(len(v) == 1 for v in seen.values()), f"the raw reports hold {len(seen)} of {n} transactions once each")
lat = l["latency"]["accepted"]
check(lat["max"] < 60_000, f"a forged reply time reached the latencies: max {lat['max']} ms")
print(f"fleet-test: forged: {refused[0].split()[0]} forged or altered messages refused by the orchestrator; "
      f"{n} transactions, each reported once and included", file=sys.stderr)
PY
echo "fleet-test: 7. a broker participant without the key: $(wc -l <"$work/forger.out") forgeries refused or dropped ($(secs "$t") s)" >&2

# mid_run NAME PREFIX ACTION: WORKERS workers PREFIX1.., a 3000-transaction
# run in the background, ACTION (evaluated; the orchestrator's pid is $orch)
# 4 s after the first worker starts sending; then the orchestrator must exit
# 2 and every worker end within 10 s.
mid_run() {
  local name=$1 prefix=$2 action=$3 k pid
  for k in $(seq "$workers"); do start_worker "$k" "$prefix$k"; done
  set +e
  "$dyno" load --fleet "$broker" --fleet-key "$key" --node-cmd "$node_cmd" --node-url "$node_url" \
    --finality-timeout 0 --poll-ms 20 --out "$out/$name.json" --workers "$workers" \
    --txs 3000 --rate 300 --accounts $((workers * 4)) --self-test-requests 0 --join-timeout 30 \
    >"$out/$name.txt" 2>"$work/$name-orchestrator.log" &
  orch=$!
  wait_line "$work/${prefix}1.log" "starting in" 120
  sleep 4
  eval "$action"
  wait "$orch"
  rc=$?
  set -e
  [ $rc = 2 ] || fail "$name: the orchestrator exited $rc, not 2"
  for k in $(seq "$workers"); do
    pid=$(eval echo "\$pid_$prefix$k")
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then fail "$name: worker $prefix$k still runs 10 s after"; fi
  done
}

# 5. Ctrl-C on the orchestrator mid-run.
t=$(now)
mid_run interrupted c 'kill -INT "$orch"'
for k in $(seq "$workers"); do
  grep -q "told to stop" "$work/c$k.log" || fail "worker c$k was not told to stop"
done
python3 - "$out/interrupted.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
(l,) = run["load"]
def check(ok, what):
    if not ok:
        sys.exit(f"fleet-test: FAIL: {what}")
check(not run["run"]["complete"], "the interrupted run is not marked incomplete")
ws = l["fleet"]["workers"]
check(all(w["end"] == "stopped" and 0 < w["sent"] < w["planned"] for w in ws), f"the workers: {ws}")
check(all(w["included"] == w["sent"] for w in ws), "a stopped worker's transactions were not all included")
print(f"fleet-test: interrupted: every worker stopped after {', '.join(str(w['sent']) for w in ws)} "
      f"of {ws[0]['planned']} each, all kept and included; exit 2", file=sys.stderr)
PY
echo "fleet-test: 5. Ctrl-C on the orchestrator ($(secs "$t") s)" >&2

# 6. The broker killed mid-run.
t=$(now)
mid_run broker-lost b 'kill -9 "$(cat "$work/mosquitto.pid")"'
for k in $(seq "$workers"); do
  if wait "$(eval echo "\$pid_b$k")"; then fail "worker b$k exited 0 after losing the broker"; fi
done
python3 - "$out/broker-lost.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
(l,) = run["load"]
def check(ok, what):
    if not ok:
        sys.exit(f"fleet-test: FAIL: {what}")
check(not run["run"]["complete"] and not l["complete"], "the run is not marked incomplete")
check("lost the broker" in (l["incomplete_reason"] or ""), f"the reason: {l['incomplete_reason']}")
ws = l["fleet"]["workers"]
check(all(0 < w["sent"] < w["planned"] and w["included"] == w["sent"] for w in ws), f"the workers: {ws}")
check(l["counts"]["included"] == l["counts"]["submitted"] > 0, f"counts: {l['counts']}")
print(f"fleet-test: broker lost: {l['counts']['submitted']} records reported before it went, all kept, "
      f"included and recounted; exit 2", file=sys.stderr)
PY
echo "fleet-test: 6. the broker killed mid-run ($(secs "$t") s)" >&2
