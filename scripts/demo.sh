#!/usr/bin/env bash
# A guided tour of shiftctl on a fresh store in a temporary folder.
#
#   scripts/demo.sh PATH_TO_SHIFTCTL        (make demo builds shiftctl and runs this)
#
# Prints a heading before each step and the command it runs. Exits 0 when every command
# behaved as expected (including the double booking the rules must reject), 1 otherwise.
set -u

if [ $# -lt 1 ]; then
    echo "usage: scripts/demo.sh PATH_TO_SHIFTCTL" >&2
    exit 2
fi
SHIFTCTL=$1
if [ ! -x "$SHIFTCTL" ]; then
    echo "demo: $SHIFTCTL is not an executable shiftctl (build it with: swift build --product shiftctl)" >&2
    exit 2
fi
SHIFTCTL="$(cd "$(dirname "$SHIFTCTL")" && pwd)/$(basename "$SHIFTCTL")"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/shiftctl-demo.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 2
export USER=${USER:-demo}

failures=0

step() {
    printf '\n=== %s\n' "$1"
}

# run EXPECTED_STATUS ARGS…: print the command, run it, and count a surprise.
run() {
    local expected=$1
    shift
    printf '$ shiftctl'
    printf ' %q' "$@"
    printf '\n'
    "$SHIFTCTL" "$@"
    local status=$?
    if [ "$status" -ne "$expected" ]; then
        printf '!!! expected exit status %s, got %s\n' "$expected" "$status"
        failures=$((failures + 1))
    elif [ "$expected" -ne 0 ]; then
        printf '(exit status %s, as expected)\n' "$status"
    fi
}

echo "shiftctl demo in $WORK"

step "Create a store in Europe/Berlin time; the stock rules are copied to rules/"
run 0 init --time-zone Europe/Berlin

step "Add a location"
run 0 location add "Ward A" --address "Hauptstraße 1, Berlin"

step "Add shift types: a day shift and a night shift that ends the next morning"
run 0 type add D --title Day --time 07:00-19:00 --location "Ward A"
run 0 type add N --title Night --time 19:00-07:00 --location "Ward A"
run 0 type list

step "Add people"
run 0 person add Alice --attr "skills=[nurse, lead]"
run 0 person add Bob --attr skills=nurse
run 0 person add Carol

step "Schedule some shifts"
run 0 schedule add --type D --date 2026-03-02 --person Alice
run 0 schedule add --type N --date 2026-03-02 --person Bob
run 0 schedule add --type D --date 2026-03-03 --person Carol
run 0 schedule add --type D --date 2026-03-04 --person Alice
run 0 schedule add --type N --date 2026-03-05 --person Carol
run 0 schedule add --type D --date 2026-03-06 --person Bob
run 0 schedule list

step "Try to double-book Alice: the rules reject it and nothing is written"
run 1 schedule add --type D --date 2026-03-02 --person Alice

step "Switch a shift's type; the change log keeps the old and new shift"
shift_id=$("$SHIFTCTL" schedule list --person Carol --from 2026-03-03 --to 2026-03-03 --format json \
    | sed -n 's/.*"id" : "\([0-9a-f-]*\)".*/\1/p' | head -n 1)
run 0 switch "${shift_id:0:8}" --to N --reason "Carol asked for nights"
run 0 log --limit 3

step "The roster: people by days"
run 0 calendar roster --from 2026-03-01 --days 14

step "More people, then a rotation: Panama 2-2-3 for four teams of two"
run 0 person add Dave
run 0 person add Erin
run 0 person add Frank
run 0 person add Grace
run 0 person add Heidi
run 0 rotations show panama

step "A rotation is one batch: starting it on top of the shifts above breaks the rules, so none of it is written"
run 1 rotate panama --team A=Alice,Dave --team B=Bob,Erin --team C=Carol,Frank --team D=Grace,Heidi --from 2026-03-02 --to 2026-03-29

step "Starting the rotation the week after fits: 112 shifts, checked by every rule"
run 0 rotate panama --team A=Alice,Dave --team B=Bob,Erin --team C=Carol,Frank --team D=Grace,Heidi --from 2026-03-09 --to 2026-04-05

step "Staffing demand for May, and a roster made by solve with the rules as its only model"
for day in monday tuesday wednesday thursday friday saturday sunday; do
    run 0 demand add --type D --weekday "$day" --min 2 --optimal 2
    run 0 demand add --type N --weekday "$day" --min 1 --optimal 1
done
run 0 solve --from 2026-05-01 --to 2026-05-31 --moves 3000 --time-limit 300

step "Validate the whole schedule (what CI runs)"
run 0 validate --score

echo
if [ "$failures" -ne 0 ]; then
    echo "demo: $failures step(s) did not behave as expected"
    exit 1
fi
echo "demo finished: everything behaved as expected"
