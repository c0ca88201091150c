#!/bin/sh
# soak.sh CSV DURATION [lockstorm run flags...]: runs `lockstorm run` for
# DURATION with the given flags and samples its resident memory (VmRSS of
# /proc/PID/status, kB) and the size of its history.jsonl (bytes) every
# $SOAK_EVERY seconds (default 10) into CSV: seconds,rss_kb,history_bytes.
# LOCKSTORM is the binary (default bin/lockstorm).
set -eu
csv=$1 dur=$2
shift 2
bin=${LOCKSTORM:-bin/lockstorm}
store=${SOAK_STORE:-$(mktemp -d)}
every=${SOAK_EVERY:-10}
"$bin" run --time-limit "$dur" --store "$store" "$@" >"$csv.out" 2>&1 &
pid=$!
echo "seconds,rss_kb,history_bytes" >"$csv"
t=0
while kill -0 "$pid" 2>/dev/null; do
	rss=$(awk '/^VmRSS:/ {print $2}' /proc/$pid/status 2>/dev/null || echo 0)
	h=$(ls -d "$store"/*/*/history.jsonl 2>/dev/null | tail -1)
	n=0
	[ -n "$h" ] && n=$(stat -c %s "$h")
	echo "$t,${rss:-0},$n" >>"$csv"
	sleep "$every"
	t=$((t + every))
done
wait "$pid" || echo "lockstorm exited $?" >>"$csv.out"
