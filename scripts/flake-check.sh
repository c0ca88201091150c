#!/usr/bin/env bash
# flake-check: `make test` FLAKE_RUNS times in a row beside two busy loops
# (`yes > /dev/null`), to find tests that fail only under load. Prints one
# line per run (its number, status and time) and exits with the first
# failing run's status; the busy loops are stopped on every exit path.
set -uo pipefail
runs=${FLAKE_RUNS:-5}
yes > /dev/null &
b1=$!
yes > /dev/null &
b2=$!
trap 'kill $b1 $b2 2>/dev/null' EXIT INT TERM
for i in $(seq 1 "$runs"); do
	start=$(date +%s)
	make test > "${TMPDIR:-/tmp}/lockstorm-flake-$i.log" 2>&1
	rc=$?
	echo "flake-check: run $i/$runs: exit $rc in $(( $(date +%s) - start )) s (log: ${TMPDIR:-/tmp}/lockstorm-flake-$i.log)"
	if [ $rc -ne 0 ]; then
		grep -E -- '^(--- FAIL|FAIL|panic:)' "${TMPDIR:-/tmp}/lockstorm-flake-$i.log" | head -20
		exit $rc
	fi
done
echo "flake-check: $runs of $runs runs passed beside two busy loops"
