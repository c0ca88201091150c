#!/usr/bin/env bash
# The shell step of the lockstorm GitHub Action (action.yml at the
# repository's root). It reads the action's inputs from the environment,
# as action.yml passes them:
#
#   INPUT_LOCK          a --lock name (with INPUT_CLIENT_CMD: only its label)
#   INPUT_CLIENT_CMD    --client-cmd: each client is a process of this command
#   INPUT_NEMESIS       --nemesis, comma-separated faults
#   INPUT_SEEDS         seeded runs (--runs), default 1
#   INPUT_TIME_LIMIT    --time-limit of each run, default 20s
#   INPUT_MIN_COVERAGE  --min-coverage, default lockstorm's (1)
#   INPUT_ARGS          more flags of lockstorm run, split on blanks
#   INPUT_STORE         the store folder, default lockstorm-store
#
# It installs what is missing (Debian's redis-server and python3-redis with
# apt-get; lockstorm with `go install` from the action's own checkout,
# GITHUB_ACTION_PATH), runs `lockstorm run`, and writes to GITHUB_OUTPUT:
#
#   verdict  valid, invalid, unknown, or error (bad input or setup: exit 2)
#   report   the index.html of the run that decided the verdict: the first
#            run with the campaign's verdict (with one seed, the run's own)
#   store    the store folder (the artifact action.yml uploads)
#   junit    the JUnit XML, one suite per run
#
# Its exit status is lockstorm's: 0 valid, 1 invalid, 2 bad input or setup
# error, 3 unknown. LOCKSTORM_BIN names a lockstorm binary to use instead.
set -uo pipefail

out=${GITHUB_OUTPUT:-/dev/stdout}
store=${INPUT_STORE:-lockstorm-store}
junit="$store/junit.xml"

# emit KEY VALUE: one output line for GitHub.
emit() { printf '%s=%s\n' "$1" "$2" >>"$out"; }

# fail MESSAGE: a setup error, reported as lockstorm reports bad input.
fail() {
	echo "lockstorm action: $1" >&2
	emit verdict error
	emit store "$store"
	exit 2
}

# install_packages: Debian's redis-server and python3-redis when missing.
install_packages() {
	local missing=""
	command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
	if ! /usr/bin/python3 -c 'import redis' >/dev/null 2>&1 && ! python3 -c 'import redis' >/dev/null 2>&1; then
		missing="$missing python3-redis"
	fi
	[ -z "$missing" ] && return 0
	command -v apt-get >/dev/null 2>&1 || fail "missing$missing and no apt-get to install it"
	local sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	echo "lockstorm action: installing$missing" >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null ||
		fail "apt-get install$missing failed"
}

# lockstorm_bin: LOCKSTORM_BIN, else lockstorm built from the action's
# checkout, else lockstorm on PATH.
lockstorm_bin() {
	if [ -n "${LOCKSTORM_BIN:-}" ]; then
		echo "$LOCKSTORM_BIN"
	elif [ -n "${GITHUB_ACTION_PATH:-}" ]; then
		local gobin
		gobin=$(go env GOPATH)/bin || return 1
		(cd "$GITHUB_ACTION_PATH" && GOBIN=$gobin go install ./cmd/lockstorm) >&2 || return 1
		echo "$gobin/lockstorm"
	else
		command -v lockstorm
	fi
}

# verdict_of STATUS: the verdict lockstorm's exit status means.
verdict_of() {
	case "$1" in
	0) echo valid ;;
	1) echo invalid ;;
	3) echo unknown ;;
	*) echo error ;;
	esac
}

# decisive_report LOG VERDICT: the report line of the first run whose own
# verdict is VERDICT (lockstorm prints "verdict: X" before each run's
# "report: PATH"), else the last report printed.
decisive_report() {
	awk -v want="$2" '
		/^verdict: / { v = tolower($2) }
		/^report: / { last = $2; if (v == want && first == "") first = $2 }
		END { print (first != "" ? first : last) }' "$1"
}

[ -n "${INPUT_LOCK:-}${INPUT_CLIENT_CMD:-}" ] || fail "set the input lock (a --lock name) or client-cmd"
install_packages
bin=$(lockstorm_bin) || fail "cannot build lockstorm (is Go set up? actions/setup-go)"

args=(run --store "$store" --junit "$junit" --runs "${INPUT_SEEDS:-1}" --time-limit "${INPUT_TIME_LIMIT:-20s}")
[ -n "${INPUT_LOCK:-}" ] && args+=(--lock "$INPUT_LOCK")
[ -n "${INPUT_CLIENT_CMD:-}" ] && args+=(--client-cmd "$INPUT_CLIENT_CMD")
[ -n "${INPUT_NEMESIS:-}" ] && args+=(--nemesis "$INPUT_NEMESIS")
[ -n "${INPUT_MIN_COVERAGE:-}" ] && args+=(--min-coverage "$INPUT_MIN_COVERAGE")
# shellcheck disable=SC2206 # more flags, split on blanks on purpose
[ -n "${INPUT_ARGS:-}" ] && args+=($INPUT_ARGS)

mkdir -p "$store"
log="$store/lockstorm-stdout.txt"
echo "lockstorm action: $bin ${args[*]}" >&2
"$bin" "${args[@]}" | tee "$log"
status=${PIPESTATUS[0]}

verdict=$(verdict_of "$status")
emit verdict "$verdict"
emit report "$(decisive_report "$log" "$verdict")"
emit store "$store"
emit junit "$junit"
exit "$status"
