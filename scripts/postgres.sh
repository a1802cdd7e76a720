#!/usr/bin/env bash
# A throwaway PostgreSQL server for dyno-store's tests, on loopback only.
#
#   scripts/postgres.sh start DIR   install PostgreSQL if missing (Debian's
#                                   package, as root), make a cluster in DIR,
#                                   start it on 127.0.0.1 at a free port
#                                   (its unix socket in DIR too), create the
#                                   role `dyno` (password auth) and the
#                                   database `dyno_test`, wait until it takes
#                                   connections, and print its URL on stdout:
#                                   postgres://dyno:PASSWORD@127.0.0.1:PORT/dyno_test
#   scripts/postgres.sh stop DIR    stop it (fast shutdown) and remove DIR
#
# Both are idempotent: `start` on a running cluster prints its URL again,
# on a stopped one starts it again; `stop` on nothing does nothing. DIR must
# be new, empty, or made by this script. The cluster is for tests: fsync is
# off, so a machine crash may lose its data.
#
# Typical use:
#   dir=$(mktemp -d)
#   export DYNO_TEST_POSTGRES=$(scripts/postgres.sh start "$dir")
#   cargo test -p dyno-store
#   scripts/postgres.sh stop "$dir"
#
# Runs as root (initdb and the server then run as the `postgres` system
# user, which owns DIR) or as an ordinary user with PostgreSQL installed.
set -euo pipefail

me=postgres.sh
die() {
  echo "$me: $*" >&2
  exit 1
}
say() { echo "$me: $*" >&2; }

usage() {
  echo "usage: scripts/postgres.sh start DIR | stop DIR" >&2
  exit 2
}

[ $# -eq 2 ] || usage
cmd=$1
dir=$2
[ -n "$dir" ] || usage
case "$dir" in
  *[[:space:]\'\"\\]*) die "DIR must not contain spaces, quotes or backslashes: '$dir'" ;;
esac

marker=.dyno-postgres
user=dyno
db=dyno_test

is_root() { [ "$(id -u)" = 0 ]; }

# Run a PostgreSQL program as the user that owns the cluster.
as_pg() {
  if is_root; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# The newest installed server's bin folder, or nothing.
find_bindir() {
  local d
  if command -v pg_config >/dev/null 2>&1; then
    d=$(pg_config --bindir 2>/dev/null || true)
    if [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
      echo "$d"
      return
    fi
  fi
  for d in $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -t/ -k5 -n -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
      echo "$d"
      return
    fi
  done
}

install_postgres() {
  is_root || die "PostgreSQL is not installed and this is not root: install it \
(sudo apt-get install postgresql) and run again"
  command -v apt-get >/dev/null 2>&1 || die "PostgreSQL is not installed and there is no \
apt-get: install the PostgreSQL server (initdb, pg_ctl, postgres, psql) and run again"
  say "installing PostgreSQL (apt-get install postgresql)"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -q --no-install-recommends postgresql >&2; then
    # A fresh container has no package lists yet.
    apt-get update -q >&2 || die "apt-get update failed"
    apt-get install -y -q --no-install-recommends postgresql >&2 \
      || die "apt-get install postgresql failed"
  fi
}

# A port nothing listens on, from a range clear of the usual services.
free_port() {
  local port tries=0
  while [ $tries -lt 50 ]; do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
    tries=$((tries + 1))
  done
  die "found no free port on 127.0.0.1"
}

running() {
  [ -f "$dir/data/postmaster.pid" ] && as_pg "$bindir/pg_ctl" -D "$dir/data" status >/dev/null 2>&1
}

url() {
  echo "postgres://$user:$(cat "$dir/password")@127.0.0.1:$(cat "$dir/port")/$db"
}

psql_admin() {
  as_pg "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir/sock" -p "$(cat "$dir/port")" \
    -U postgres -d postgres "$@"
}

start() {
  if [ -e "$dir" ] && [ ! -f "$dir/$marker" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
    die "$dir exists and was not made by this script: give a new or empty directory"
  fi
  bindir=$(find_bindir)
  if [ -z "$bindir" ]; then
    install_postgres
    bindir=$(find_bindir)
    [ -n "$bindir" ] || die "PostgreSQL was installed but initdb was not found \
(looked at pg_config --bindir and /usr/lib/postgresql/*/bin)"
  fi
  if is_root; then
    id postgres >/dev/null 2>&1 || die "there is no 'postgres' system user to run the \
server as (initdb refuses root): reinstall the postgresql package"
  fi

  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  touch "$dir/$marker"
  mkdir -p "$dir/sock"
  if is_root; then
    chown -R postgres: "$dir"
    chmod 700 "$dir"
    runuser -u postgres -- test -w "$dir" || die "the postgres user cannot reach $dir \
(a parent folder is closed to it): use a directory under /tmp, e.g. \$(mktemp -d)"
  fi

  if [ ! -f "$dir/data/PG_VERSION" ]; then
    say "creating a cluster in $dir/data ($("$bindir/postgres" --version))"
    rm -rf "$dir/data"
    od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$dir/password"
    # initdb --pwfile sets the superuser's password; the superuser logs in
    # only over the unix socket (trust), tests as `dyno` over TCP.
    as_pg "$bindir/initdb" -D "$dir/data" -U postgres -E UTF8 --no-locale \
      --auth-local=trust --auth-host=scram-sha-256 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; die "initdb failed (log above)"; }
    cat >>"$dir/data/postgresql.conf" <<EOF

# scripts/postgres.sh: a throwaway test server on loopback only.
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir/sock'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
EOF
    rm -f "$dir/port"
  fi

  if running; then
    [ -f "$dir/port" ] || die "a server runs in $dir but its port is unknown: \
run 'scripts/postgres.sh stop $dir' and start again"
    say "already running on 127.0.0.1:$(cat "$dir/port")"
  else
    local attempt=0 port
    while :; do
      port=$(cat "$dir/port" 2>/dev/null || true)
      if [ -z "$port" ] || (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        port=$(free_port)
      fi
      echo "$port" >"$dir/port"
      if is_root; then chown postgres: "$dir/port"; fi
      # The last setting in the file wins: the port is appended per start.
      echo "port = $port" >>"$dir/data/postgresql.conf"
      if as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >&2; then
        break
      fi
      attempt=$((attempt + 1))
      if [ $attempt -ge 5 ] || ! grep -q "already in use" "$dir/server.log" 2>/dev/null; then
        tail -n 20 "$dir/server.log" >&2 2>/dev/null || true
        die "the server did not start (log above: $dir/server.log)"
      fi
      say "port $port was taken meanwhile; trying another"
      rm -f "$dir/port"
    done
  fi

  local port
  port=$(cat "$dir/port")
  local waited=0
  until as_pg "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" -d postgres; do
    waited=$((waited + 1))
    [ $waited -lt 60 ] || die "the server on 127.0.0.1:$port does not take connections \
(see $dir/server.log); if it died, run 'scripts/postgres.sh stop $dir' and start again"
    sleep 0.5
  done

  local pass
  pass=$(cat "$dir/password")
  if [ "$(psql_admin -tA -c "SELECT 1 FROM pg_roles WHERE rolname = '$user'")" != 1 ]; then
    psql_admin -c "CREATE ROLE $user LOGIN PASSWORD '$pass'"
  fi
  if [ "$(psql_admin -tA -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" != 1 ]; then
    psql_admin -c "CREATE DATABASE $db OWNER $user"
  fi
  say "ready: PostgreSQL on 127.0.0.1:$port, database $db, role $user"
  url
}

stop() {
  if [ ! -e "$dir" ]; then
    say "nothing to stop: $dir does not exist"
    return
  fi
  [ -f "$dir/$marker" ] || die "$dir was not made by this script: not touching it"
  dir=$(cd "$dir" && pwd)
  if [ -f "$dir/data/postmaster.pid" ]; then
    bindir=$(find_bindir)
    [ -n "$bindir" ] || die "a server may run in $dir, but pg_ctl is not found to stop it"
    if running; then
      as_pg "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >&2 \
        || die "pg_ctl stop failed; the server's log is $dir/server.log"
    fi
  fi
  rm -rf "$dir"
  say "stopped and removed $dir"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
