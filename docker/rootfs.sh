# Shell functions shared by the image build scripts (sourced, not run).

# copy_with_libs FILE ROOT [NAME]: copies FILE (symlinks resolved) into
# ROOT/usr/bin/NAME (default: FILE's base name), with every shared library
# ldd lists for it and the dynamic loader, at their own paths under ROOT.
copy_with_libs() {
	src=$(readlink -f "$1")
	mkdir -p "$2/usr/bin"
	cp "$src" "$2/usr/bin/${3:-$(basename "$1")}"
	ldd "$src" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' | sort -u |
		while read -r lib; do
			mkdir -p "$2$(dirname "$lib")"
			cp -L "$lib" "$2$lib"
		done
}

# base_dirs ROOT: the directories every image here has.
base_dirs() {
	mkdir -p "$1/tmp" "$1/etc" "$1/data"
	chmod 1777 "$1/tmp"
	printf 'root:x:0:0:root:/data:/nonexistent\n' >"$1/etc/passwd"
	printf 'root:x:0:\n' >"$1/etc/group"
}
