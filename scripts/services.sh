#!/usr/bin/env bash
# Starts and stops the real servers the test suite talks to, on loopback:
# a throwaway PostgreSQL cluster and versitygw, an S3-compatible server.
#
#   eval "$(scripts/services.sh start)"   start both, print the variables to export
#   scripts/services.sh env               print them again
#   scripts/services.sh stop              stop both and delete their data
#   scripts/services.sh crash-postgres DIR  stop DIR's PostgreSQL as a crash would
#                                           (pg_ctl stop -m immediate), data kept
#   scripts/services.sh start-postgres DIR  start it again, same port and settings
#   scripts/services.sh kill-s3 DIR         stop DIR's versitygw (SIGKILL), data kept
#   scripts/services.sh start-s3 DIR        start it again, same port and keys
#
# The last four are for outage tests that start services of their own
# (start, then these on its state directory) and so disturb no other test.
#
# start prints EARSHOT_SERVICES_DIR (the state directory; env and stop use it,
# or take it as their argument) and the variables internal/testservices reads:
# EARSHOT_TEST_POSTGRES_URL, EARSHOT_TEST_S3_ENDPOINT, EARSHOT_TEST_S3_ACCESS_KEY,
# EARSHOT_TEST_S3_SECRET_KEY, EARSHOT_TEST_S3_REGION. Progress goes to stderr.
#
# PostgreSQL: Debian's server (apt-get install postgresql when initdb is
# missing), a new cluster in the state directory (copied from a template that
# initdb makes once and the cache keeps), fsync off (tests only; see
# EARSHOT_SERVICES_PG_DURABLE below), listening on
# 127.0.0.1 only with a random password. Its binaries refuse to run as root, so
# as root the cluster belongs to a dedicated system user, earshot-test
# (created when missing).
# S3: versitygw's posix backend over a directory in the state directory. The
# binary is built once per machine from the Go module proxy into
# ${XDG_CACHE_HOME:-$HOME/.cache}/earshot/bin (3-4 minutes on an idle
# 2-core machine) and reused.
#
# Environment:
#   EARSHOT_SERVICES_OWNER  a pid (scripts/test.sh passes its own): once it is
#                           gone, the next start stops these servers and
#                           deletes their data, so a run killed with kill -9
#                           leaves nothing running for long. Unset: the
#                           servers live until "stop".
#   EARSHOT_CACHE           cache directory (default ${XDG_CACHE_HOME:-$HOME/.cache}/earshot)
#   EARSHOT_SERVICES_PG_DURABLE  1: PostgreSQL crash-safe (fsync, synchronous_commit,
#                           full_page_writes on), for tests that crash or restart it;
#                           start prints EARSHOT_TEST_POSTGRES_DURABLE=1 then.
#                           Default 0: all three off, which is faster.
set -euo pipefail

VERSITYGW_VERSION=v1.8.0
PG_USER=earshot-test # system user owning the cluster when run as root
export PATH="$PATH:/usr/local/go/bin"
base="${TMPDIR:-/tmp}"
cache="${EARSHOT_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/earshot}"

log() { echo "services: $*" >&2; }
die() { log "$*"; exit 1; }

# proc_start PID: the process's start time (clock ticks since boot), empty
# when it does not exist; a pid and its start time name a process for good.
proc_start() { awk '{print $22}' "/proc/$1/stat" 2>/dev/null || true; }

# alive PID: the process exists and is not a zombie (the servers outlive the
# start that forked them, so whoever reaps them may take its time).
alive() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# kill_wait PID NAME SECONDS: end PID, if it is still a NAME process, and wait
# for it; SIGKILL after SECONDS. Their data is deleted next, so nothing needs
# a clean shutdown: PostgreSQL gets SIGQUIT (immediate shutdown, which also
# ends its backends), versitygw SIGKILL (its graceful stop waits seconds for
# idle keep-alive connections).
kill_wait() {
  local pid=$1 name=$2 secs=$3 sig=KILL
  if [ "$name" = postgres ]; then sig=QUIT; fi
  grep -qs "$name" "/proc/$pid/cmdline" || return 0
  kill -s "$sig" "$pid" 2>/dev/null || return 0
  for _ in $(seq $((secs * 20))); do
    alive "$pid" || return 0
    sleep 0.05
  done
  log "$name ($pid) did not stop in ${secs}s; killing it"
  kill -s KILL "$pid" 2>/dev/null || true
}

# stop_dir DIR: stop the servers of a state directory and delete it.
stop_dir() {
  local d=$1 pid
  [ -d "$d" ] || return 0
  if [ -f "$d/pg/data/postmaster.pid" ]; then
    pid=$(head -1 "$d/pg/data/postmaster.pid")
    if [ -n "$pid" ]; then kill_wait "$pid" postgres 20; fi
  fi
  if [ -f "$d/versitygw.pid" ]; then
    kill_wait "$(cat "$d/versitygw.pid")" versitygw 10
  fi
  rm -rf "$d"
}

# clean_stale: stop the servers of earlier runs whose owner is gone (a
# test.sh killed with kill -9 runs no trap), and half-made state directories.
clean_stale() {
  local d pid start locked=""
  # Two starts at once must not both stop the same stale run. (Another
  # user's lock file may be unwritable: go on without it.)
  if exec 9>>"$base/earshot-services.lock"; then
    flock 9
    locked=1
  fi 2>/dev/null
  for d in "$base"/earshot-services.*/; do
    d=${d%/}
    if [ ! -d "$d" ] || [ ! -O "$d" ]; then continue; fi # only this user's runs
    if [ -f "$d/owner" ]; then
      read -r pid start <"$d/owner" || true
      [ -n "${pid:-}" ] || continue # no owner: lives until stop
      [ "$(proc_start "$pid")" = "$start" ] && continue
      log "stopping the servers of a run that ended without stopping them ($d)"
    elif [ -z "$(find "$d" -maxdepth 0 -mmin +10)" ]; then
      continue # being set up right now by another start
    else
      log "removing a half-made state directory ($d)"
    fi
    stop_dir "$d"
  done
  if [ -n "$locked" ]; then flock -u 9; fi
}

pg_bindir() {
  local d
  d=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -1)
  [ -n "$d" ] && [ -x "$d/initdb" ] && echo "$d"
}

ensure_postgres() {
  if ! pg_bindir >/dev/null; then
    log "installing PostgreSQL (Debian package postgresql)"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  fi
  pg_bindir >/dev/null || die "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin"
}

# ensure_versitygw: print the cached binary's path, building it when missing.
ensure_versitygw() {
  local bin="$cache/bin/versitygw-$VERSITYGW_VERSION" tmp
  if [ ! -x "$bin" ]; then
    mkdir -p "$cache/bin"
    exec 8>"$cache/bin/.versitygw.lock"
    flock 8 # one build at a time; a waiting start reuses the first's binary
    if [ ! -x "$bin" ]; then
      command -v go >/dev/null || die "Go is needed to build versitygw (https://go.dev/dl/)"
      log "building versitygw $VERSITYGW_VERSION into $cache/bin (once per machine, a few minutes)"
      tmp=$(mktemp -d "$cache/bin/.build.XXXXXX")
      if ! (cd "$tmp" && GOBIN="$tmp" GOFLAGS=-mod=mod CGO_ENABLED=0 \
        go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION" >&2); then
        rm -rf "$tmp"
        die "building versitygw failed"
      fi
      mv "$tmp/versitygw" "$bin"
      rm -rf "$tmp"
    fi
    flock -u 8
  fi
  echo "$bin"
}

# free_port: a loopback TCP port nothing listens on (the server binding it
# may still lose a race; callers retry).
free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 12000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return
    fi
  done
  die "no free loopback port found"
}

secret() { head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c "$1"; }

# pg_data DIR RUN...: make the cluster's data directory DIR/pg/data, owned by
# the user RUN runs as: a copy of a template cluster cached beside versitygw
# (initdb costs seconds, a copy a fraction of one), made by initdb the first
# time. Local (socket) connections are trusted, TCP ones need the password
# set after start; the socket's directory is private to the cluster's user.
pg_data() {
  local d=$1 bindir major tmpl tmp
  shift
  bindir=$(pg_bindir)
  major=$(basename "$(dirname "$bindir")")
  tmpl="$cache/postgres-$major-template"
  if [ -d "$tmpl" ]; then
    cp -a "$tmpl" "$d/pg/data"
    if [ "$(id -u)" -eq 0 ]; then chown -R "$PG_USER:" "$d/pg/data"; fi
    return
  fi
  "$@" "$bindir/initdb" -D "$d/pg/data" -U earshot --auth-local=trust --auth-host=scram-sha-256 \
    -E UTF8 --no-locale --no-sync >"$d/pg/initdb.log" 2>&1 ||
    { cat "$d/pg/initdb.log" >&2; die "initdb failed"; }
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/.postgres-template.XXXXXX")
  cp -a "$d/pg/data/." "$tmp/"
  mv -T "$tmp" "$tmpl" 2>/dev/null || rm -rf "$tmp" # another start made it first
}

# pg_durability: the cluster's crash settings. By default none of them
# (fsync, synchronous_commit and full_page_writes off): the suite's databases
# are thrown away, and nothing in it crashes PostgreSQL itself. With
# EARSHOT_SERVICES_PG_DURABLE=1 the cluster is crash-safe (PostgreSQL's own
# defaults), for tests that kill or restart PostgreSQL and then count on what
# it acknowledged; such a test on the fast cluster would measure the fixture
# (an acknowledged commit lost by pg_ctl restart -m immediate).
pg_durability() {
  if [ "${EARSHOT_SERVICES_PG_DURABLE:-0}" = 1 ]; then
    echo "-c fsync=on -c synchronous_commit=on -c full_page_writes=on"
  else
    echo "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  fi
}

# pg_options DIR PORT: the server's command-line settings.
pg_options() {
  echo "-p $2 -c listen_addresses=127.0.0.1 -c unix_socket_directories=$1/pg $(pg_durability) -c max_connections=300"
}

# pg_run: the command prefix that runs PostgreSQL's binaries (as $PG_USER
# when root; they refuse to run as root).
pg_run() {
  if [ "$(id -u)" -eq 0 ]; then echo "runuser -u $PG_USER --"; fi
}

# crash_postgres DIR: stop the cluster as a crash would (SIGQUIT to every
# process, no checkpoint); its data stays for restart_postgres.
crash_postgres() {
  local d=$1
  [ -f "$d/pg.port" ] || die "no PostgreSQL was started in $d"
  # shellcheck disable=SC2046
  $(pg_run) "$(pg_bindir)/pg_ctl" -D "$d/pg/data" -m immediate -w -t 30 stop >/dev/null ||
    die "pg_ctl stop -m immediate failed (log: $d/pg/log)"
  log "PostgreSQL of $d stopped (immediate: as a crash)"
}

# restart_postgres DIR: start DIR's cluster again on its port with the
# settings it had (crash recovery runs first when it was crashed).
restart_postgres() {
  local d=$1 port
  port=$(cat "$d/pg.port" 2>/dev/null) || die "no PostgreSQL was started in $d"
  # The settings are those of the first start: durable if it was.
  if grep -qs "EARSHOT_TEST_POSTGRES_DURABLE='1'" "$d/env"; then export EARSHOT_SERVICES_PG_DURABLE=1; else export EARSHOT_SERVICES_PG_DURABLE=0; fi
  # shellcheck disable=SC2046
  $(pg_run) "$(pg_bindir)/pg_ctl" -D "$d/pg/data" -l "$d/pg/log" -w -t 60 -o "$(pg_options "$d" "$port")" start >/dev/null ||
    die "PostgreSQL did not start again (log: $d/pg/log)"
  log "PostgreSQL of $d started again on 127.0.0.1:$port"
}

start_postgres() {
  local d=$1 bindir run=() port pw
  bindir=$(pg_bindir)
  if [ "$(id -u)" -eq 0 ]; then
    if ! id "$PG_USER" >/dev/null 2>&1; then
      log "creating system user $PG_USER (PostgreSQL refuses to run as root)"
      useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$PG_USER"
    fi
    run=(runuser -u "$PG_USER" --)
    chmod 711 "$d"
  fi
  mkdir -m 700 "$d/pg"
  if [ ${#run[@]} -gt 0 ]; then chown "$PG_USER:" "$d/pg"; fi
  pg_data "$d" "${run[@]}"
  pw=$(secret 24)
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    if "${run[@]}" "$bindir/pg_ctl" -D "$d/pg/data" -l "$d/pg/log" -w -t 60 -o "$(pg_options "$d" "$port")" \
      start >/dev/null 2>&1; then
      echo "$port" >"$d/pg.port"
      echo "ALTER ROLE earshot PASSWORD '$pw'" |
        "${run[@]}" "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$d/pg" -p "$port" -U earshot -d postgres >/dev/null ||
        die "setting the PostgreSQL password failed (log: $d/pg/log)"
      "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" -t 30 || die "PostgreSQL does not answer on port $port (log: $d/pg/log)"
      echo "export EARSHOT_TEST_POSTGRES_URL='postgres://earshot:$pw@127.0.0.1:$port/postgres?sslmode=disable'" >>"$d/env"
      echo "export EARSHOT_TEST_POSTGRES_DURABLE='${EARSHOT_SERVICES_PG_DURABLE:-0}'" >>"$d/env"
      log "PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($(pg_durability))"
      return
    fi
    grep -qs "could not bind\|Address already in use" "$d/pg/log" || { cat "$d/pg/log" >&2; die "PostgreSQL did not start"; }
    log "port $port was taken; trying another"
  done
  die "PostgreSQL could not get a free port"
}

# launch_s3 DIR BIN PORT ACCESS SECRET: start versitygw in the background,
# its pid in DIR/versitygw.pid, its output appended to stdout's file.
launch_s3() {
  local d=$1 bin=$2 port=$3 ak=$4 sk=$5
  # setsid: a Ctrl-C to the test run reaches the trap that stops the
  # server, not the server itself.
  # The credentials go in its environment, not on its command line (ps).
  ROOT_ACCESS_KEY_ID=$ak ROOT_SECRET_ACCESS_KEY=$sk setsid "$bin" --port "127.0.0.1:$port" --region us-east-1 \
    --quiet --keep-alive posix "$d/s3" 2>&1 </dev/null &
  echo $! >"$d/versitygw.pid"
}

# kill_s3 DIR: stop DIR's versitygw at once (SIGKILL); its data stays.
kill_s3() {
  local d=$1
  [ -f "$d/versitygw.pid" ] || die "no versitygw was started in $d"
  kill_wait "$(cat "$d/versitygw.pid")" versitygw 10
  log "versitygw of $d stopped"
}

# restart_s3 DIR: start DIR's versitygw again on its port with its keys.
restart_s3() {
  local d=$1 port pid
  port=$(cat "$d/s3.port" 2>/dev/null) || die "no versitygw was started in $d"
  (
    # shellcheck disable=SC1091
    . "$d/env"
    launch_s3 "$d" "$(ensure_versitygw)" "$port" "$EARSHOT_TEST_S3_ACCESS_KEY" "$EARSHOT_TEST_S3_SECRET_KEY" >>"$d/versitygw.log"
  )
  pid=$(cat "$d/versitygw.pid")
  for _ in $(seq 300); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      log "versitygw of $d started again on 127.0.0.1:$port"
      return
    fi
    alive "$pid" || break
    sleep 0.1
  done
  cat "$d/versitygw.log" >&2
  die "versitygw did not start again on port $port"
}

start_s3() {
  local d=$1 bin port ak sk pid
  bin=$(ensure_versitygw)
  mkdir -p "$d/s3"
  ak=earshot$(secret 12)
  sk=$(secret 32)
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    # setsid: a Ctrl-C to the test run reaches the trap that stops the
    # server, not the server itself.
    # The credentials go in its environment, not on its command line (ps).
    launch_s3 "$d" "$bin" "$port" "$ak" "$sk" >"$d/versitygw.log"
    pid=$(cat "$d/versitygw.pid")
    for _ in $(seq 150); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "$port" >"$d/s3.port"
        {
          echo "export EARSHOT_TEST_S3_ENDPOINT='http://127.0.0.1:$port'"
          echo "export EARSHOT_TEST_S3_ACCESS_KEY='$ak'"
          echo "export EARSHOT_TEST_S3_SECRET_KEY='$sk'"
          echo "export EARSHOT_TEST_S3_REGION='us-east-1'"
        } >>"$d/env"
        log "versitygw $VERSITYGW_VERSION on 127.0.0.1:$port"
        return
      fi
      [ -d "/proc/$pid" ] || break
      sleep 0.1
    done
    kill_wait "$pid" versitygw 5
    grep -qs "address already in use" "$d/versitygw.log" || { cat "$d/versitygw.log" >&2; die "versitygw did not start"; }
    log "port $port was taken; trying another"
  done
  die "versitygw could not get a free port"
}

cmd_start() {
  local d owner="" t0=$SECONDS
  umask 077 # the env file holds the servers' credentials
  clean_stale
  ensure_postgres
  d=$(mktemp -d "$base/earshot-services.XXXXXX")
  if [ -n "${EARSHOT_SERVICES_OWNER:-}" ]; then
    owner="$EARSHOT_SERVICES_OWNER $(proc_start "$EARSHOT_SERVICES_OWNER")"
  fi
  echo "$owner" >"$d/owner"
  # A failed (or interrupted) start leaves nothing running.
  trap 'stop_dir "'"$d"'"' EXIT
  echo "export EARSHOT_SERVICES_DIR='$d'" >"$d/env"
  start_postgres "$d"
  start_s3 "$d"
  trap - EXIT
  log "ready in $((SECONDS - t0))s; stop with: scripts/services.sh stop $d"
  cat "$d/env"
}

state_dir() {
  local d=${1:-${EARSHOT_SERVICES_DIR:-}}
  [ -n "$d" ] || die "which services? pass the state directory or set EARSHOT_SERVICES_DIR (printed by start)"
  case "$d" in "$base"/earshot-services.*) ;; *) die "$d is not a services state directory" ;; esac
  echo "$d"
}

case "${1:-}" in
start) cmd_start ;;
stop)
  d=$(state_dir "${2:-}")
  stop_dir "$d"
  log "stopped ($d)"
  ;;
env)
  d=$(state_dir "${2:-}")
  [ -f "$d/env" ] || die "no services running in $d"
  cat "$d/env"
  ;;
crash-postgres) crash_postgres "$(state_dir "${2:-}")" ;;
start-postgres) restart_postgres "$(state_dir "${2:-}")" ;;
kill-s3) kill_s3 "$(state_dir "${2:-}")" ;;
start-s3) restart_s3 "$(state_dir "${2:-}")" ;;
*) die "usage: $0 start | env [DIR] | stop [DIR] | crash-postgres DIR | start-postgres DIR | kill-s3 DIR | start-s3 DIR" ;;
esac
