#!/bin/sh
# screenshot.sh RUN_DIR [OUT.png] [HEIGHT]
#
# Renders RUN_DIR/index.html in headless Chromium (Debian package
# `chromium`) and writes a full-width screenshot, by default
# RUN_DIR/screenshot.png, 1280 px wide and 3000 px tall. The page needs no
# server and no network: every image is inline.
set -eu
dir=${1:?usage: screenshot.sh RUN_DIR [OUT.png] [HEIGHT]}
out=${2:-$dir/screenshot.png}
height=${3:-3000}
bin=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$bin" ]; then
	echo "screenshot.sh: chromium not found; install Debian's package: apt-get install -y chromium" >&2
	exit 2
fi
index=$(cd "$dir" && pwd)/index.html
[ -f "$index" ] || { echo "screenshot.sh: no index.html in $dir" >&2; exit 2; }
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# --no-sandbox: CI containers run as root; the page is our own file.
"$bin" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--user-data-dir="$profile" --no-first-run --disable-extensions \
	--window-size=1280,"$height" --screenshot="$out" "file://$index" >/dev/null 2>&1
[ -s "$out" ] || { echo "screenshot.sh: chromium wrote no screenshot" >&2; exit 1; }
echo "$out"
