#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: initdb in a temporary folder, a unix socket in
# that folder, no TCP port, trust authentication for the one local superuser `shift`.
#
#   scripts/postgres-test-cluster.sh start [DIR]   start one (DIR: a new temp folder); prints
#                                                  `export SHIFT_TEST_POSTGRES=postgres://…`
#   scripts/postgres-test-cluster.sh stop DIR      stop it and remove DIR
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

case "${1:-}" in
start)
    bin=$(bin_dir)
    dir=${2:-$(mktemp -d "${TMPDIR:-/tmp}/shift-pg.XXXXXX")}
    mkdir -p "$dir"
    chmod 755 "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir"; fi
    as_owner "$bin/initdb" -D "$dir/data" -U shift --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
        -o "-k $dir -c listen_addresses='' -c max_connections=200 -c fsync=off -c max_pred_locks_per_transaction=256" \
        start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    as_owner "$bin/createdb" -h "$dir" -U shift shifttest
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
*)
    echo "usage: $0 start [DIR] | stop DIR" >&2
    exit 2
    ;;
esac
