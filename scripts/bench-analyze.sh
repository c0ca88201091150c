#!/usr/bin/env bash
# bench-analyze: time `lockstorm analyze RUN_DIR` (check, coverage and
# report, as a user runs it) on stored run folders of generated histories,
# a correct run and one with a lost update per size, and print one
# Markdown table row per folder. `make bench-analyze` builds what it needs
# and runs it; see the Makefile for the targets.
#
# Environment (the Makefile sets them):
#   BENCH_ANALYZE_RECORDS  sizes in records          (200000 400000 2000000 10000000)
#   BENCH_DIR              where the folders are kept ($TMPDIR or /tmp)
#   BENCH_HISTORY_VERSION  the folders' version, in their names (required)
#   LOCKSTORM_BIN          the lockstorm binary timed (./bin/lockstorm)
#   BENCH_ANALYZE_TRIES    runs per folder; the fastest is kept (2)
#   CHECKER_TEST           checker's test binary, writes the histories (./bin/checker.test)
#   BENCHRUN_TEST          internal/benchrun's test binary, writes the folders (./bin/benchrun.test)
#
# A folder's history is checker's generated history (TestWriteBenchHistory:
# 8 clients, 3 keys, a partition every 0.1-0.5 s) of N records, made a
# complete run of the fenced lock's counter workload by internal/benchrun
# (TestWriteBenchRuns: client slots, nemesis records as the harness writes
# them, the final heal, writes.jsonl, final.json, test.json), so it holds
# a little more than N records. The lost-update folder loses the first
# acknowledged write of a counter past the middle of the history.
#
# Exit status 1 when a correct folder does not come back valid, or a
# lost-update folder does not come back invalid naming a lost-update: a
# bench that measures a wrong answer is worthless.
set -uo pipefail

records=${BENCH_ANALYZE_RECORDS:-200000 400000 2000000 10000000}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}}
version=${BENCH_HISTORY_VERSION:?BENCH_HISTORY_VERSION is required}
bin=${LOCKSTORM_BIN:-./bin/lockstorm}
tries=${BENCH_ANALYZE_TRIES:-2}
checker_test=${CHECKER_TEST:-./bin/checker.test}
benchrun_test=${BENCHRUN_TEST:-./bin/benchrun.test}

# folders N: make (or reuse) the two run folders of N records.
folders() {
	local prefix=$dir/lockstorm-bench-v$version-$1
	if [ -s "$prefix-correct/test.json" ] && [ -s "$prefix-lost-update/test.json" ]; then
		return 0
	fi
	echo "== writing the run folders of $1 records to $prefix-*" >&2
	LOCKSTORM_BENCH_HISTORY=$prefix.jsonl LOCKSTORM_BENCH_RECORDS=$1 \
		"$checker_test" -test.run '^TestWriteBenchHistory$' >/dev/null || return 1
	LOCKSTORM_BENCH_HISTORY=$prefix.jsonl LOCKSTORM_BENCH_RUNS=$prefix \
		"$benchrun_test" -test.run '^TestWriteBenchRuns$' -test.timeout 2h >/dev/null || return 1
	rm -f "$prefix.jsonl"
}

# verdict RC: the verdict of analyze's exit status.
verdict() {
	case $1 in
	0) echo valid ;;
	1) echo invalid ;;
	3) echo unknown ;;
	*) echo "error (exit $1)" ;;
	esac
}

# names_lost_update OUT RESULTS: analyze's output or results.json names a
# lost-update anomaly (the folder's own name holds the words too).
names_lost_update() {
	grep -q '\] lost-update:' "$1" || grep -qs '"kind": *"lost-update"' "$2"
}

failed=0
# measure N KIND: analyze the folder BENCH_ANALYZE_TRIES times, print its
# row: the fastest try's wall and cpu time, peak RSS and the load average
# when it started, and every try's wall time.
measure() {
	local folder=$dir/lockstorm-bench-v$version-$1-$2 want=valid out t n v load wall user sys rss best="" walls="" wrong=""
	[ "$2" = lost-update ] && want=invalid
	out=$(mktemp) t=$(mktemp)
	n=$(grep -m1 '"records"' "$folder/test.json" | tr -dc 0-9)
	for _ in $(seq "$tries"); do
		load=$(cut -d' ' -f1 /proc/loadavg)
		rm -f "$folder/results.json" # a stale one must not name the lost update
		/usr/bin/time -f '%e %U %S %M' -o "$t" "$bin" analyze "$folder" >"$out" 2>&1
		v=$(verdict $?)
		if [ "$v" = invalid ] && ! names_lost_update "$out" "$folder/results.json"; then
			v="invalid without a lost-update"
		fi
		if [ "$v" != "$want" ]; then
			wrong=1
			echo "bench-analyze: $folder: $v, want $want; analyze said:" >&2
			tail -20 "$out" >&2
		fi
		read -r wall user sys rss < <(tail -1 "$t")
		walls="$walls $wall"
		if [ -z "$best" ] || awk -v a="$wall" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best="$wall $user $sys $rss $load"
		fi
	done
	[ -n "$wrong" ] && { v="$v — WRONG, want $want"; failed=1; }
	read -r wall user sys rss load <<<"$best"
	printf '| %s | %s | %s | %s | %s | %d | %s |%s |\n' "$n" "$2" "$v" "$wall" \
		"$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')" $((rss / 1024)) "$load" "$walls"
	rm -f "$out" "$t"
}

echo "lockstorm analyze: $bin (built $(date -r "$bin" '+%F %T')), $(nproc) cores, fastest of $tries tries"
echo
echo "| records | run | verdict | wall s | cpu s | peak RSS MB | load (1 min) | wall s of each try |"
echo "|---|---|---|---|---|---|---|---|"
for n in $records; do
	folders "$n" || { echo "bench-analyze: cannot write the run folders of $n records" >&2; exit 1; }
	measure "$n" correct
	measure "$n" lost-update
done
exit $failed
