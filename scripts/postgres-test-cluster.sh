#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: initdb in a temporary folder, a unix socket in
# that folder, no TCP port, trust authentication for the one local superuser `shift`, and a role
# `shift_password` that must log in with the password `the-right-one`.
#
#   scripts/postgres-test-cluster.sh start [DIR]   start one (DIR: a new temp folder); prints
#                                                  `export SHIFT_TEST_POSTGRES=postgres://…`
#   scripts/postgres-test-cluster.sh stop DIR      stop it and remove DIR
#   scripts/postgres-test-cluster.sh crash DIR     stop the server at once, as a crash does
#                                                  (`pg_ctl stop -m immediate`: no checkpoint,
#                                                  clients cut off; the soak uses it)
#   scripts/postgres-test-cluster.sh restart DIR   start it again after a crash (recovery replays
#                                                  the WAL)
#
# Debian's `postgresql` package provides the server (/usr/lib/postgresql/<version>/bin). initdb
# refuses to run as root, so as root the cluster runs as the `postgres` user.
set -euo pipefail

bin_dir() {
    if [ -n "${PG_BIN:-}" ]; then echo "$PG_BIN"; return; fi
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    if [ -z "$dir" ] || [ ! -x "$dir/initdb" ]; then
        echo "postgres-test-cluster: no PostgreSQL server found (apt-get install postgresql)" >&2
        exit 3
    fi
    echo "$dir"
}

as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_server() {
    local bin=$1 dir=$2 fd
    # The server outlives this script: it must not keep descriptors this script inherited (a
    # caller waiting for the end of a pipe, or of its child, would wait for the server).
    for fd in /proc/$$/fd/*; do
        fd=${fd##*/}
        if [ "$fd" -gt 2 ] && [ "$fd" -lt 255 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
        -o "-k $dir -c listen_addresses='' -c max_connections=200 -c fsync=off -c max_pred_locks_per_transaction=256" \
        start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
}

case "${1:-}" in
start)
    bin=$(bin_dir)
    dir=${2:-$(mktemp -d "${TMPDIR:-/tmp}/shift-pg.XXXXXX")}
    mkdir -p "$dir"
    chmod 755 "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir"; fi
    as_owner "$bin/initdb" -D "$dir/data" -U shift --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    # One role that must give its password (the tests of a wrong one): pg_hba.conf's first
    # matching line decides, so it goes before the trust lines.
    as_owner sh -c "{ echo 'local all shift_password scram-sha-256'; cat '$dir/data/pg_hba.conf'; } > '$dir/data/pg_hba.new' \
        && mv '$dir/data/pg_hba.new' '$dir/data/pg_hba.conf'"
    start_server "$bin" "$dir"
    as_owner "$bin/createdb" -h "$dir" -U shift shifttest
    as_owner "$bin/psql" -q -h "$dir" -U shift -d shifttest -c "CREATE ROLE shift_password LOGIN PASSWORD 'the-right-one'" >/dev/null
    # The percent-encoded socket folder is the URL's host.
    host=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$dir")
    echo "export SHIFT_TEST_POSTGRES=postgres://shift@$host/shifttest"
    echo "export SHIFT_TEST_POSTGRES_DIR=$dir"
    ;;
stop)
    dir=${2:?usage: $0 stop DIR}
    bin=$(bin_dir)
    if [ -f "$dir/data/postmaster.pid" ]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true; fi
    rm -rf "$dir"
    ;;
crash)
    dir=${2:?usage: $0 crash DIR}
    as_owner "$(bin_dir)/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
    ;;
restart)
    dir=${2:?usage: $0 restart DIR}
    start_server "$(bin_dir)" "$dir"
    ;;
*)
    echo "usage: $0 start [DIR] | stop DIR | crash DIR | restart DIR" >&2
    exit 2
    ;;
esac
