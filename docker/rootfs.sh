# Shell functions shared by the image build scripts (sourced, not run).

# copy_with_libs FILE ROOT [NAME]: copies FILE (symlinks resolved) into
# ROOT/usr/bin/NAME (default: FILE's base name), with every shared library
# ldd lists for it and the dynamic loader, at their own paths under ROOT.
copy_with_libs() {
	src=$(readlink -f "$1")
	mkdir -p "$2/usr/bin"
	cp "$src" "$2/usr/bin/${3:-$(basename "$1")}"
	copy_libs "$src" "$2"
}

# copy_libs FILE ROOT: copies every shared library ldd lists for FILE, and
# the dynamic loader, to their own paths under ROOT.
copy_libs() {
	ldd "$1" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' | sort -u |
		while read -r lib; do
			[ -e "$2$lib" ] && continue
			mkdir -p "$2$(dirname "$lib")"
			cp -L "$lib" "$2$lib"
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
# of every ELF file among them. Fails when a package is not installed.
copy_packages() {
	root=$1
	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			{ echo "rootfs: Debian package $p is not installed (apt-get install $p)" >&2; return 1; }
	done
	for p in $(package_closure "$@"); do
		dpkg -L "$p" | while read -r f; do
			case "$f" in /usr/share/doc/* | /usr/share/man/* | /usr/share/lintian/*) continue ;; esac
			[ -f "$f" ] || [ -L "$f" ] || continue
			mkdir -p "$root$(dirname "$f")"
			cp -a "$f" "$root$f"
			case "$(head -c 4 "$f" 2>/dev/null)" in "$(printf '\177ELF')") copy_libs "$f" "$root" ;; esac
		done
	done
}

# base_dirs ROOT: the directories every image here has.
base_dirs() {
	mkdir -p "$1/tmp" "$1/etc" "$1/data"
	chmod 1777 "$1/tmp"
	printf 'root:x:0:0:root:/data:/nonexistent\n' >"$1/etc/passwd"
	printf 'root:x:0:\n' >"$1/etc/group"
}
