#!/bin/sh
# Builds the Docker image lockstorm/lockstorm:latest (or the tag given as
# $1) with nothing pulled: static Go binaries (CGO_ENABLED=0) of the
# lockstorm CLI and of toxiproxy's server, built on this host, copied onto
# an empty image by docker/Dockerfile (FROM scratch). The entrypoint is
# lockstorm; the compose file runs the same image as the toxiproxy server.
set -eu

IMAGE=${1:-lockstorm/lockstorm:latest}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/rootfs.sh"

command -v docker >/dev/null 2>&1 || { echo "build-lockstorm-image: docker is not installed" >&2; exit 1; }
command -v go >/dev/null 2>&1 || { echo "build-lockstorm-image: go is not installed" >&2; exit 1; }

ctx=$(mktemp -d "${TMPDIR:-/tmp}/lockstorm-image.XXXXXX")
trap 'rm -rf "$ctx"' EXIT INT TERM
base_dirs "$ctx/rootfs"
mkdir -p "$ctx/rootfs/usr/local/bin" "$ctx/rootfs/store"
cd "$repo"
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$ctx/rootfs/usr/local/bin/lockstorm" ./cmd/lockstorm
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$ctx/rootfs/usr/local/bin/toxiproxy-server" \
	github.com/Shopify/toxiproxy/v2/cmd/server
version=$(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)
docker build -q -f "$here/Dockerfile" --label "lockstorm.version=$version" -t "$IMAGE" "$ctx" >/dev/null
echo "build-lockstorm-image: built $IMAGE ($version)"
