#!/bin/sh
# Builds the local Docker image lockstorm/redis:7 (or the tag given as $1)
# from this machine's redis-server, with no base image and no registry:
# the binary, the shared libraries ldd lists and the dynamic loader are
# copied into an empty root filesystem, which is tarred and imported.
#
# Idempotent and quick: the image carries the binary's sha256 as a label
# and is rebuilt only when the binary changed (or FORCE=1 is set).
# Installs redis-server with scripts/install-deps.sh when it is missing.
set -eu

IMAGE=${1:-lockstorm/redis:7}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/rootfs.sh"

command -v docker >/dev/null 2>&1 || { echo "build-redis-image: docker is not installed" >&2; exit 1; }
command -v redis-server >/dev/null 2>&1 || "$here/../scripts/install-deps.sh"
command -v ldd >/dev/null 2>&1 || { echo "build-redis-image: ldd is missing (Debian package libc-bin)" >&2; exit 1; }

# Debian's redis-server is a symlink to redis-check-rdb; Redis picks its
# mode from argv[0], so the real file is copied under the name redis-server.
bin=$(command -v redis-server)
sum=$(sha256sum "$(readlink -f "$bin")" | cut -d' ' -f1)
have=$(docker image inspect -f '{{index .Config.Labels "lockstorm.redis-sha256"}}' "$IMAGE" 2>/dev/null || true)
if [ "$have" = "$sum" ] && [ -z "${FORCE:-}" ]; then
	echo "build-redis-image: $IMAGE is up to date"
	exit 0
fi

old=$(docker image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null || true)
root=$(mktemp -d "${TMPDIR:-/tmp}/lockstorm-rootfs.XXXXXX")
trap 'rm -rf "$root"' EXIT INT TERM
base_dirs "$root"
copy_with_libs "$bin" "$root" redis-server

version=$(redis-server --version | sed -n 's/.* v=\([^ ]*\).*/\1/p')
tar -C "$root" -cf - . | docker import \
	--change 'ENTRYPOINT ["/usr/bin/redis-server"]' \
	--change 'CMD ["--protected-mode", "no"]' \
	--change 'EXPOSE 6379' \
	--change 'WORKDIR /data' \
	--change "LABEL lockstorm.redis-sha256=$sum lockstorm.redis-version=$version" \
	--message "lockstorm: redis-server $version from the host, no base image" \
	- "$IMAGE" >/dev/null
# The previous build, now untagged, goes unless a container still uses it.
[ -n "$old" ] && [ "$old" != "$(docker image inspect -f '{{.Id}}' "$IMAGE")" ] &&
	docker rmi "$old" >/dev/null 2>&1 || true
echo "build-redis-image: built $IMAGE (redis $version)"
