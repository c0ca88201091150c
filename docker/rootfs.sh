# Shell functions shared by the image build scripts (sourced, not run).

# copy_with_libs FILE ROOT [NAME]: copies FILE (symlinks resolved) into
# ROOT/usr/bin/NAME (default: FILE's base name), with every shared library
# ldd lists for it and the dynamic loader, at their own paths under ROOT.
copy_with_libs() {
	src=$(readlink -f "$1")
	mkdir -p "$2/usr/bin"
	cp "$src" "$2/usr/bin/${3:-$(basename "$1")}"
	copy_libs "$2" "$src"
}

# copy_libs ROOT FILE...: copies every shared library ldd lists for the
# FILEs, and the dynamic loader, to their own paths under ROOT.
copy_libs() {
	root=$1
	shift
	ldd "$@" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\// && $i !~ /:$/) print $i }' | sort -u |
		while read -r lib; do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
}

# package_closure PKG...: the installed Debian packages PKG and, among
# their Depends and Pre-Depends, those named python3* or libpython3*,
# recursively (system libraries come through copy_libs instead).
package_closure() {
	seen=" "
	todo="$*"
	while [ -n "$todo" ]; do
		set -- $todo
		p=$1
		shift
		todo="$*"
		case "$seen" in *" $p "*) continue ;; esac
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || continue
		seen="$seen$p "
		todo="$todo $(dpkg-query -W -f='${Depends},${Pre-Depends}' "$p" | tr ',' '\n' |
			sed 's/|.*//; s/(.*)//; s/:any//; s/ //g' | grep -E '^(lib)?python3' | tr '\n' ' ')"
	done
	echo $seen
}

# copy_packages ROOT PKG...: copies the files of the installed Debian
# packages PKG (and their Python dependencies, package_closure) to their
# own paths under ROOT, documentation left out, with the shared libraries
# of their binaries and .so files. Fails when a package is not installed.
copy_packages() {
	root=$1
	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			{ echo "rootfs: Debian package $p is not installed (apt-get install $p)" >&2; return 1; }
	done
	for p in $(package_closure "$@"); do dpkg -L "$p"; done |
		grep -v -e '^/usr/share/doc/' -e '^/usr/share/man/' -e '^/usr/share/lintian/' |
		while read -r f; do if [ -f "$f" ] || [ -L "$f" ]; then echo "$f"; fi; done |
		tar -cf - --no-recursion -T - 2>/dev/null | tar -C "$root" -xf -
	# Debian's paths have no blanks: the list splits on them.
	copy_libs "$root" $(find "$root" -type f \( -name '*.so*' -o -path '*/bin/*' \))
}

# base_dirs ROOT: the directories every image here has.
base_dirs() {
	mkdir -p "$1/tmp" "$1/etc" "$1/data"
	chmod 1777 "$1/tmp"
	printf 'root:x:0:0:root:/data:/nonexistent\n' >"$1/etc/passwd"
	printf 'root:x:0:\n' >"$1/etc/group"
}
