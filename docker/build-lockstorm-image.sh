#!/bin/sh
# Builds the Docker image lockstorm/lockstorm:latest (or the tag given as
# $1) with nothing pulled (`make image`): static Go binaries
# (CGO_ENABLED=0) of the lockstorm CLI and of toxiproxy's server, built on
# this host, plus this host's redis-server and redis-sentinel, a /bin/sh
# (dash), and python3 with redis-py copied from the installed Debian
# packages (python3-redis and the python3 packages it depends on, with the
# shared libraries ldd lists), all on an empty image by docker/Dockerfile
# (FROM scratch). The entrypoint is lockstorm, which runs its Redis nodes as
# local redis-server processes inside the container; the compose file runs
# the same image as the toxiproxy server.
set -eu

IMAGE=${1:-lockstorm/lockstorm:latest}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/rootfs.sh"

command -v docker >/dev/null 2>&1 || { echo "build-lockstorm-image: docker is not installed" >&2; exit 1; }
command -v go >/dev/null 2>&1 || { echo "build-lockstorm-image: go is not installed" >&2; exit 1; }
command -v dpkg-query >/dev/null 2>&1 || { echo "build-lockstorm-image: needs Debian's dpkg to copy redis-server and python3-redis" >&2; exit 1; }
"$repo/scripts/install-deps.sh"

ctx=$(mktemp -d "${TMPDIR:-/tmp}/lockstorm-image.XXXXXX")
trap 'rm -rf "$ctx"' EXIT INT TERM
root="$ctx/rootfs"
base_dirs "$root"
mkdir -p "$root/usr/local/bin" "$root/store" "$root/bin"
cd "$repo"
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$root/usr/local/bin/lockstorm" ./cmd/lockstorm
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$root/usr/local/bin/toxiproxy-server" \
	github.com/Shopify/toxiproxy/v2/cmd/server
copy_with_libs "$(command -v redis-server)" "$root" redis-server
copy_with_libs "$(command -v redis-sentinel)" "$root" redis-sentinel
copy_with_libs /bin/dash "$root" sh
ln -s /usr/bin/sh "$root/bin/sh"
copy_packages "$root" python3-minimal python3-redis
ln -sf "$(basename "$(readlink -f /usr/bin/python3)")" "$root/usr/bin/python3"
# The image carries its root filesystem's sha256 and is rebuilt only when
# that changed (or FORCE=1 is set).
sum=$( (cat "$here/Dockerfile" && tar -C "$root" --sort=name --mtime=@0 --owner=0 --group=0 -cf - .) | sha256sum | cut -d' ' -f1)
have=$(docker image inspect -f '{{index .Config.Labels "lockstorm.rootfs-sha256"}}' "$IMAGE" 2>/dev/null || true)
if [ "$have" = "$sum" ] && [ -z "${FORCE:-}" ]; then
	echo "build-lockstorm-image: $IMAGE is up to date"
	exit 0
fi
version=$(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)
docker build -q -f "$here/Dockerfile" --label "lockstorm.version=$version" --label "lockstorm.rootfs-sha256=$sum" \
	-t "$IMAGE" "$ctx" >/dev/null
echo "build-lockstorm-image: built $IMAGE ($version)"
