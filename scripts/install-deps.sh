#!/bin/sh
# Installs what lockstorm needs at run time when it is missing:
# redis-server and redis-sentinel from Debian's packages, and redis-py
# (python3-redis) for the Python lock clients. Safe to run again.
# With --with-chromium (make test), also Debian's chromium, which the
# browser tests of the HTML pages render them in. With --with-zoo, also
# what the zoo's entries run on: php-cli, php-redis, php-malkusch-lock,
# php-symfony-lock, php-illuminate-cache and -redis, python3-rq,
# python3-tooz, python3-django-redis and python3-dogpile.cache. The
# options combine.
set -eu

browser=""
zoo=""
for opt in "$@"; do
	case "$opt" in
	--with-chromium) browser=1 ;;
	--with-zoo) zoo=1 ;;
	esac
done

missing=""
for bin in redis-server redis-sentinel; do
	command -v "$bin" >/dev/null 2>&1 || missing="$missing $bin"
done
# Debian's python3-redis installs into the system python3 (/usr/bin/python3),
# which a pyenv or venv python3 on PATH may hide.
if ! /usr/bin/python3 -c 'import redis' >/dev/null 2>&1 && ! python3 -c 'import redis' >/dev/null 2>&1; then
	missing="$missing python3-redis"
fi
if [ -n "$browser" ] && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
	missing="$missing chromium"
fi
if [ -n "$zoo" ]; then
	command -v php >/dev/null 2>&1 || missing="$missing php-cli"
	if ! command -v php >/dev/null 2>&1 || ! php -r 'exit(extension_loaded("redis") ? 0 : 1);' >/dev/null 2>&1; then
		missing="$missing php-redis"
	fi
	# Debian's php-malkusch-lock installs under /usr/share/php (php's include_path).
	[ -r /usr/share/php/Malkusch/Lock/autoload.php ] || missing="$missing php-malkusch-lock"
	# The other zoo entries' libraries, Debian packages all (zoo/*/zoo.yaml
	# says which entry runs on which).
	if command -v dpkg-query >/dev/null 2>&1; then
		for pkg in php-symfony-lock php-illuminate-cache php-illuminate-redis python3-rq python3-tooz python3-django-redis python3-dogpile.cache; do
			dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $pkg"
		done
	fi
fi
[ -z "$missing" ] && exit 0

echo "lockstorm: installing$missing (Debian packages)" >&2
if command -v apt-get >/dev/null 2>&1; then
	SUDO=""
	if [ "$(id -u)" != 0 ]; then
		if command -v sudo >/dev/null 2>&1; then
			SUDO="sudo"
		else
			echo "lockstorm: need root to install redis-server; run: sudo apt-get install -y$missing" >&2
			exit 1
		fi
	fi
	# The packages' own service is not used; stop it from starting where possible.
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
	exit 0
fi

case "$(uname -s)" in
Darwin) echo "lockstorm: redis-server not found; install it with: brew install redis" >&2 ;;
*) echo "lockstorm: redis-server not found and apt-get is not available; install Redis 7 (redis-server and redis-sentinel) with your package manager" >&2 ;;
esac
exit 1
