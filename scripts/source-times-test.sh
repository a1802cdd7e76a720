#!/usr/bin/env bash
# The test of scripts/source-times.py (scripts/test.sh runs it first): in a
# throwaway git repository, a file keeps the old mtime only when its bytes
# are the recorded ones; a changed, new, untracked or locally modified file,
# and every file without a record, gets the current time; a record is
# consumed by restore, and a bad record is refused naming its line.
set -euo pipefail
script=$(cd "$(dirname "$0")" && pwd)/source-times.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
git init -q repo
cd repo
git config user.email test@example.invalid
git config user.name test
printf 'a\n' >same.rs
printf 'b\n' >changed.rs
printf 'c\n' >modified.rs
git add . && git commit -qm one
record=$tmp/record
fail() { echo "source-times-test: $*" >&2; exit 1; }
mtime() { stat -c %Y "$1"; }
old=946684800

# No record: every file is new to cargo.
python3 "$script" restore "$record" 2>/dev/null
for f in same.rs changed.rs modified.rs; do
  [ "$(mtime $f)" != $old ] || fail "$f got the old mtime with no record"
done
python3 "$script" record "$record"
[ "$(wc -l <"$record")" = 3 ] || fail "the record has $(wc -l <"$record") lines, not 3"

# The next commit changes one file, adds one; one more is modified in the
# working tree and one is untracked.
printf 'b2\n' >changed.rs
printf 'd\n' >added.rs
git add . && git commit -qm two
printf 'c2\n' >modified.rs
printf 'e\n' >untracked.rs
touch -d @$old changed.rs added.rs modified.rs untracked.rs
python3 "$script" restore "$record" 2>"$tmp/said"
[ "$(mtime same.rs)" = $old ] || fail "same.rs, unchanged, did not get the old mtime"
for f in changed.rs added.rs modified.rs untracked.rs; do
  [ "$(mtime $f)" != $old ] || fail "$f kept an old mtime, so cargo would not rebuild what uses it"
done
grep -q '1 files as the last build compiled them, 4 changed or new' "$tmp/said" \
  || fail "restore said: $(cat "$tmp/said")"
[ ! -e "$record" ] || fail "restore left the record: a failed build would leave stale units fresh"

# A record is consumed: a second restore without a new record trusts nothing.
python3 "$script" restore "$record" 2>/dev/null
[ "$(mtime same.rs)" != $old ] || fail "same.rs got the old mtime from a consumed record"

# A bad record is refused with its line.
printf 'not a record line\n' >"$record"
if python3 "$script" restore "$record" 2>"$tmp/said"; then
  fail "a bad record was accepted"
fi
grep -q "$record:1: not a line of" "$tmp/said" || fail "the refusal said: $(cat "$tmp/said")"
echo "source-times: unchanged bytes keep the old mtime, and nothing else does" >&2
