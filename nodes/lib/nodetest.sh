# shellcheck shell=bash
# Sourced by nodes/*/test: start a dev node on loopback, check that it answers
# JSON-RPC over HTTP, that eth_accounts has an unlocked prefunded account and
# that a 1-wei eth_sendTransaction from it is included, then stop the node and
# remove its data. Needs bash and curl; no JSON tool (the few fields read are
# matched with patterns).
#
#   nt_init NAME            HOME ($DYNO_CACHE/nodes/NAME, else a temp dir), work dir, traps
#   nt_free_port            prints a free loopback TCP port
#   nt_start URL CMD...     starts CMD in the background, output to $NT_LOG
#   nt_wait_ready SECONDS   polls eth_chainId until it answers
#   nt_check_transfer       eth_accounts, eth_getBalance, eth_sendTransaction, receipt
#   nt_stop                 SIGTERM, waits (SIGKILL after 30 s), checks the exit
#   nt_loopback_only MIN    every socket of the node bound to 127.0.0.1, at least MIN
#
# The EXIT trap stops a node still running, prints the tail of its log if the
# test failed, and removes the work dir (and a temporary HOME).

NT_NAME=
NT_HOME=
NT_TMPHOME=
NT_WORK=
NT_DATA=
NT_LOG=
NT_URL=
NT_PID=

nt_now_ms() { date +%s%3N; }
nt_secs() { # MS -> seconds with 2 decimals
  printf '%d.%02d' $(($1 / 1000)) $((($1 % 1000) / 10))
}
nt_fail() {
  echo "$NT_NAME test: $*" >&2
  exit 1
}

nt_init() {
  NT_NAME=$1
  if ! command -v curl >/dev/null 2>&1; then
    echo "curl not found" >&2
    exit 3
  fi
  if [ -n "${DYNO_CACHE:-}" ]; then
    NT_HOME=$DYNO_CACHE/nodes/$NT_NAME
  else
    NT_TMPHOME=$(mktemp -d "${TMPDIR:-/tmp}/dyno-$NT_NAME-home.XXXXXX")
    NT_HOME=$NT_TMPHOME
  fi
  NT_WORK=$(mktemp -d "${TMPDIR:-/tmp}/dyno-$NT_NAME-test.XXXXXX")
  NT_DATA=$NT_WORK/data
  NT_LOG=$NT_WORK/node.log
  mkdir -p "$NT_DATA"
  trap nt_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

nt_cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$NT_PID" ] && kill -0 "$NT_PID" 2>/dev/null; then
    kill -TERM "$NT_PID" 2>/dev/null || true
    for _ in $(seq 1 100); do
      kill -0 "$NT_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$NT_PID" 2>/dev/null || true
    wait "$NT_PID" 2>/dev/null || true
  fi
  if [ "$rc" -ne 0 ] && [ -s "$NT_LOG" ]; then
    echo "--- last lines of the $NT_NAME log ---" >&2
    tail -n 40 "$NT_LOG" >&2 || true
  fi
  [ -n "$NT_WORK" ] && rm -rf "$NT_WORK"
  [ -n "$NT_TMPHOME" ] && rm -rf "$NT_TMPHOME"
  exit "$rc"
}

# Ports below Linux's default ephemeral range (32768-60999), so an outgoing
# connection does not hold one; a refused connect means nothing listens there.
nt_free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 12000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  nt_fail "no free port found"
}

# nt_rpc METHOD [PARAMS_JSON]: prints the response body.
nt_rpc() {
  curl -sS --max-time "${NT_RPC_TIMEOUT:-10}" -H 'Content-Type: application/json' \
    --data "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$1\",\"params\":${2:-[]}}" "$NT_URL"
}

# nt_result BODY: prints a string "result" ("0x..."), fails on an error or another shape.
nt_result() {
  local r
  r=$(printf '%s' "$1" | sed -n 's/.*"result" *: *"\([^"]*\)".*/\1/p')
  [ -n "$r" ] || nt_fail "unexpected JSON-RPC response: $1"
  printf '%s\n' "$r"
}

nt_start() {
  NT_URL=$1
  shift
  NT_T0=$(nt_now_ms)
  "$@" >"$NT_LOG" 2>&1 &
  NT_PID=$!
}

nt_wait_ready() {
  local limit=$(($1 * 1000)) body rc
  while :; do
    if body=$(NT_RPC_TIMEOUT=2 nt_rpc eth_chainId 2>/dev/null) && [[ $body == *'"result"'* ]]; then
      break
    fi
    if ! kill -0 "$NT_PID" 2>/dev/null; then
      wait "$NT_PID" && rc=0 || rc=$?
      NT_PID=
      nt_fail "the node exited (status $rc) before answering eth_chainId"
    fi
    [ $(($(nt_now_ms) - NT_T0)) -lt "$limit" ] || nt_fail "no eth_chainId answer within $1 s"
    sleep 0.05
  done
  NT_CHAIN_ID=$(nt_result "$body")
  NT_READY_MS=$(($(nt_now_ms) - NT_T0))
}

nt_check_transfer() {
  local body from balance to hash t0 receipt block
  body=$(nt_rpc eth_accounts)
  from=$(printf '%s' "$body" | grep -o '0x[0-9a-fA-F]\{40\}' | head -n 1 || true)
  [ -n "$from" ] || nt_fail "eth_accounts returned no account: $body"
  balance=$(nt_result "$(nt_rpc eth_getBalance "[\"$from\",\"latest\"]")")
  [[ $balance =~ ^0x0*$ ]] && nt_fail "dev account $from has no balance"
  # A fresh recipient: its balance must go from 0 to exactly 1 wei.
  to=0x000000000000000000000000000000000000d1e0
  [ "$(nt_result "$(nt_rpc eth_getBalance "[\"$to\",\"latest\"]")")" = 0x0 ] || nt_fail "$to is not empty"
  t0=$(nt_now_ms)
  body=$(nt_rpc eth_sendTransaction "[{\"from\":\"$from\",\"to\":\"$to\",\"value\":\"0x1\"}]")
  hash=$(nt_result "$body")
  [[ $hash =~ ^0x[0-9a-fA-F]{64}$ ]] || nt_fail "eth_sendTransaction returned $body"
  while :; do
    receipt=$(nt_rpc eth_getTransactionReceipt "[\"$hash\"]")
    [[ $receipt == *'"blockNumber"'* ]] && break
    [[ $receipt == *'"result":null'* || $receipt == *'"result": null'* ]] || nt_fail "eth_getTransactionReceipt returned $receipt"
    [ $(($(nt_now_ms) - t0)) -lt 30000 ] || nt_fail "transaction $hash not included within 30 s"
    sleep 0.1
  done
  NT_INCLUDED_MS=$(($(nt_now_ms) - t0))
  printf '%s' "$receipt" | grep -Eq '"status" *: *"0x1"' || nt_fail "transaction failed: $receipt"
  block=$(printf '%s' "$receipt" | sed -n 's/.*"blockNumber" *: *"\(0x[0-9a-fA-F]*\)".*/\1/p')
  [ "$(nt_result "$(nt_rpc eth_getBalance "[\"$to\",\"latest\"]")")" = 0x1 ] || nt_fail "$to did not receive 1 wei"
  NT_FROM=$from
  NT_BLOCK=$((block))
}

nt_stop() {
  local t0 rc
  t0=$(nt_now_ms)
  kill -TERM "$NT_PID"
  for _ in $(seq 1 1500); do
    kill -0 "$NT_PID" 2>/dev/null || break
    sleep 0.02
  done
  if kill -0 "$NT_PID" 2>/dev/null; then
    kill -KILL "$NT_PID" 2>/dev/null || true
    wait "$NT_PID" 2>/dev/null || true
    NT_PID=
    nt_fail "did not exit within 30 s of SIGTERM"
  fi
  wait "$NT_PID" && rc=0 || rc=$?
  NT_PID=
  NT_STOP_MS=$(($(nt_now_ms) - t0))
  NT_EXIT=$rc
  # 143 = killed by the (default action of) SIGTERM.
  [ "$rc" -eq 0 ] || [ "$rc" -eq 143 ] || nt_fail "exited with status $rc after SIGTERM"
}

# nt_loopback_only MIN: every TCP or UDP socket the node's process holds is
# bound to 127.0.0.1 (or not bound); sets NT_SOCKETS to how many are bound,
# which must be at least MIN. Read from /proc (no ss needed).
nt_loopback_only() {
  local inodes inode row
  inodes=$(for fd in /proc/"$NT_PID"/fd/*; do readlink "$fd" 2>/dev/null; done |
    sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p' | sort -u)
  NT_SOCKETS=0
  for inode in $inodes; do
    row=$(awk -v i="$inode" '$10 == i { print $2 }' /proc/net/tcp /proc/net/tcp6 /proc/net/udp /proc/net/udp6)
    [ -n "$row" ] || continue
    case $row in
      00000000:0000) continue ;; # a connected or unbound socket
      0100007F:*) NT_SOCKETS=$((NT_SOCKETS + 1)) ;;
      *) nt_fail "a socket bound to ${row%%:*} (hex), not 127.0.0.1" ;;
    esac
  done
  [ "$NT_SOCKETS" -ge "$1" ] || nt_fail "found $NT_SOCKETS sockets on 127.0.0.1, expected at least $1"
}

nt_report() {
  echo "$NT_NAME: ok ($(cat "$NT_HOME/version")): chain id $NT_CHAIN_ID, eth_chainId after $(nt_secs "$NT_READY_MS") s," \
    "1-wei transfer from $NT_FROM in block $NT_BLOCK after $(nt_secs "$NT_INCLUDED_MS") s," \
    "SIGTERM exit $NT_EXIT after $(nt_secs "$NT_STOP_MS") s"
}
