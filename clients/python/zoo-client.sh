#!/bin/sh
# Runs one of lockstorm's Python lock clients (lockstorm_client.py --lock
# NAME) on the first python3 that imports redis-py: Debian's
# python3-redis installs into /usr/bin/python3, which a pyenv or venv
# python3 on PATH may hide. The zoo's Python entries use it as their
# client; `zoo-client.sh --check` exits 1 when no such python3 exists.
# exec: the client keeps this process's pid and process group, so a
# client-pause stops it and a client-crash kills it.
dir=$(dirname "$0")
for py in /usr/bin/python3 python3; do
	if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import redis' >/dev/null 2>&1; then
		[ "$1" = --check ] && exit 0
		exec "$py" -B "$dir/lockstorm_client.py" "$@"
	fi
done
echo "zoo-client.sh: no python3 that can import redis: apt-get install python3-redis" >&2
exit 1
