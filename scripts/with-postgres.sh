#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL cluster: `scripts/with-postgres.sh swift test`.
# The command sees SHIFT_TEST_POSTGRES (the server's URL); the cluster is stopped and its folder
# removed when the command ends, however it ends.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
eval "$("$here/postgres-test-cluster.sh" start)"
trap '"$here/postgres-test-cluster.sh" stop "$SHIFT_TEST_POSTGRES_DIR"' EXIT
"$@"
