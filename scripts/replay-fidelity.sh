#!/usr/bin/env bash
# replay-fidelity.sh: how far one `lockstorm run` command with one seed
# repeats itself. Runs the command N times (each into its own store) and
# prints, per run, a digest of its fault plan (test.json's plan: must be
# the same every time), its verdict, its fatal anomaly kinds and how many
# fatal anomalies it had, then how
# many runs share the most common set of anomaly kinds.
#
#   scripts/replay-fidelity.sh N lockstorm run --lock redlock --seed 7 ...
#
# The OS scheduler's choices (which client's request reaches Redis first,
# when a goroutine wakes) are not replayed: anomaly counts may differ
# between repetitions; the plan and the workload's drawn decisions may not.
set -euo pipefail
n=$1
shift
work=$(mktemp -d)
declare -A plans kinds
for i in $(seq 1 "$n"); do
	"$@" --store "$work/$i" >"$work/$i.out" 2>&1 || true
	dir=$(dirname "$(ls "$work/$i"/*/*/test.json | grep -v latest | head -1)")
	plan=$(jq -cS .plan "$dir/test.json" | sha256sum | cut -c1-12)
	verdict=$(jq -r .valid "$dir/results.json")
	k=$(jq -r '[.. | objects | .anomalies? // empty | .[] | select(.fatal) | .kind] | unique | join(",")' "$dir/results.json")
	count=$(jq -r '[.. | objects | .anomalies? // empty | .[] | select(.fatal)] | length' "$dir/results.json")
	echo "run $i: plan $plan  verdict $verdict  anomaly kinds [${k}]  fatal anomalies $count"
	plans[$plan]=1
	kinds[$k]=$((${kinds[$k]:-0} + 1))
done
best=0
for k in "${!kinds[@]}"; do ((kinds[$k] > best)) && best=${kinds[$k]}; done
echo "plans: ${#plans[@]} distinct of $n runs (1 means identical)"
echo "same anomaly kinds: $best of $n runs"
rm -rf "$work"
