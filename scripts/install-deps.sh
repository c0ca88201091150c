#!/bin/sh
# Installs what lockstorm needs at run time when it is missing:
# redis-server and redis-sentinel from Debian's packages. Safe to run again.
set -eu

missing=""
for bin in redis-server redis-sentinel; do
	command -v "$bin" >/dev/null 2>&1 || missing="$missing $bin"
done
[ -z "$missing" ] && exit 0

echo "lockstorm: installing$missing (Debian packages redis-server, redis-sentinel)" >&2
if command -v apt-get >/dev/null 2>&1; then
	SUDO=""
	if [ "$(id -u)" != 0 ]; then
		if command -v sudo >/dev/null 2>&1; then
			SUDO="sudo"
		else
			echo "lockstorm: need root to install redis-server; run: sudo apt-get install -y redis-server redis-sentinel" >&2
			exit 1
		fi
	fi
	# The packages' own service is not used; stop it from starting where possible.
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server redis-sentinel >/dev/null
	exit 0
fi

case "$(uname -s)" in
Darwin) echo "lockstorm: redis-server not found; install it with: brew install redis" >&2 ;;
*) echo "lockstorm: redis-server not found and apt-get is not available; install Redis 7 (redis-server and redis-sentinel) with your package manager" >&2 ;;
esac
exit 1
