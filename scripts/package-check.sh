#!/usr/bin/env bash
# package-check.sh: the Debian package, tried as a user would: built from the
# tree, checked by lintian, installed into a new minimal Debian bookworm root
# file system with clang 19, switched on, used, upgraded over itself, switched
# off and removed, leaving no file behind.
#
#   scripts/package-check.sh [--keep] [--dir DIR] [--debs DIR]
#
#   --dir DIR   work in DIR (default: a new directory under /var/tmp); it must
#               not exist or be empty
#   --keep      leave DIR there afterwards (the packages in DIR/src, the root
#               file system in DIR/root: chroot DIR/root)
#   --debs DIR  check the packages in DIR instead of building them
#
# The packages are built by `dpkg-buildpackage -us -uc -b` from a copy of the
# working tree (tracked files and untracked ones git does not ignore, so
# uncommitted changes are part of it), then `lintian` checks them: an error
# fails the check, warnings are shown.  The root file system is `mmdebstrap
# --variant=minbase bookworm` from this machine's apt sources
# (scripts/lib/debian-root.sh, as scripts/fresh-machine-check.sh
# makes it) with clang-19, clang-tools-19, libomp-19-dev and the packages'
# dependencies.  Inside it, as root: dpkg -i offload-link and
# offload-link-remote; offload-link enable; examples/hello-offload.c compiled,
# linked by plain `clang-19 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu`
# (no -B) and run on libomptarget's CPU device, `clang-19 -###` naming
# /usr/libexec/offload-link/clang-linker-wrapper; dpkg -i again (the switch
# stays); offload-link disable (clang-19 runs its own wrapper again);
# offload-link-as-default installed, upgraded, overruled by hand, removed; the
# package removed with the switch on (its prerm takes the switch back); dpkg
# --purge.  Then every file of `dpkg -L` must be gone and the root file system
# hold the same files as before the installation.  Exit status 0 when all of
# it passes; the time of each step is shown.
#
# Needs root (re-run through sudo -n otherwise), the build dependencies of
# debian/control, debhelper, lintian and mmdebstrap, network access to the
# mirror and about 2 GB of disk.  ctest runs it as package/check.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
self=${BASH_SOURCE[0]}
example=examples/hello-offload.c
target=x86_64-unknown-linux-gnu

say() { printf '\n== %s\n' "$*"; }
die() { echo "package-check.sh: $*" >&2; exit 1; }

# --- inside the root file system ---------------------------------------------
# Runs there as root with the packages and the example in /mnt, /tmp a
# fresh tmpfs (the work files stay out of the file lists).
in_root() {
	local debs=/mnt/debs status_after
	cd /tmp
	step() { printf '\n-- %s\n' "$*"; }
	fail() { echo "package-check (in the root): $*" >&2; exit 1; }
	links_through() {
		# The wrapper command clang-19 would run for the link: its path.
		clang-19 -fopenmp -fopenmp-targets=$target hello.o -o hello -### 2>&1 |
			grep -o '"[^"]*clang-linker-wrapper"' | tr -d '"'
	}

	step "dpkg -i offload-link offload-link-remote"
	dpkg -i "$debs"/offload-link_*.deb "$debs"/offload-link-remote_*.deb
	dpkg -L offload-link offload-link-remote | grep -vx -e '' -e '/\.' | sort -u >/mnt/dpkg-L.txt
	echo "$(wc -l </mnt/dpkg-L.txt) paths (dpkg -L); $(offload-link --version | head -1)"

	step "offload-link status, before the switch"
	offload-link status
	step "offload-link enable"
	offload-link enable
	offload-link status | tee /tmp/status-on.txt
	grep -qx 'clang-19: offload-link (it reads /usr/lib/llvm-19/bin/clang.cfg, written by offload-link enable)' \
		/tmp/status-on.txt || fail "status does not say that clang-19 runs offload-link"

	step "clang-19 $example, no -B"
	cp "/mnt/$(basename $example)" hello-offload.c
	clang-19 -O2 -fopenmp -fopenmp-targets=$target -c hello-offload.c -o hello.o
	# -Wl,--stats: a summary only offload-link prints, so the link ran it.
	clang-19 -fopenmp -fopenmp-targets=$target hello.o -o hello -Wl,--stats 2>&1 | tee link.log
	grep -q '^offload-link: stats' link.log || fail "the link did not run offload-link"
	LD_LIBRARY_PATH=/usr/lib/llvm-19/lib ./hello
	echo "clang-19 -### runs: $(links_through)"
	[ "$(links_through)" = /usr/libexec/offload-link/clang-linker-wrapper ] ||
		fail "clang-19 -### does not run /usr/libexec/offload-link/clang-linker-wrapper"

	step "dpkg -i offload-link again: an upgrade keeps the switch"
	sha256sum /usr/lib/llvm-19/bin/clang.cfg /usr/lib/llvm-19/bin/clang++.cfg >/tmp/switch.sha
	dpkg -i "$debs"/offload-link_*.deb
	sha256sum -c --quiet /tmp/switch.sha || fail "the upgrade changed the switch files"
	offload-link status | cmp -s - /tmp/status-on.txt || fail "the upgrade changed offload-link status"
	echo "switch files unchanged, status unchanged"

	step "offload-link disable"
	offload-link disable
	status_after=$(offload-link status)
	echo "$status_after"
	echo "$status_after" | grep -qx 'clang-19: its own clang-linker-wrapper (no configuration file names offload-link)' ||
		fail "status still names offload-link for clang-19"
	echo "clang-19 -### runs: $(links_through)"
	[ "$(links_through)" = /usr/lib/llvm-19/bin/clang-linker-wrapper ] ||
		fail "clang-19 -### does not run its own wrapper after disable"

	step "offload-link-as-default: installed, upgraded, overruled by hand, upgraded, removed"
	dpkg -i "$debs"/offload-link-as-default_*.deb
	[ "$(links_through)" = /usr/libexec/offload-link/clang-linker-wrapper ] || fail "installing offload-link-as-default did not enable"
	dpkg -i "$debs"/offload-link-as-default_*.deb
	[ "$(links_through)" = /usr/libexec/offload-link/clang-linker-wrapper ] || fail "upgrading offload-link-as-default disabled"
	offload-link disable 19
	dpkg -i "$debs"/offload-link-as-default_*.deb
	[ "$(links_through)" = /usr/lib/llvm-19/bin/clang-linker-wrapper ] || fail "upgrading offload-link-as-default undid 'offload-link disable 19'"
	offload-link enable 19
	dpkg -r offload-link-as-default
	[ "$(links_through)" = /usr/lib/llvm-19/bin/clang-linker-wrapper ] || fail "removing offload-link-as-default left the switch on"
	echo "as set each time"

	step "dpkg -r with the switch on: the package's prerm takes it back"
	offload-link enable 19
	dpkg -r offload-link-remote offload-link
	[ ! -e /usr/lib/llvm-19/bin/clang.cfg ] && [ ! -e /usr/lib/llvm-19/bin/clang++.cfg ] ||
		fail "dpkg -r left the switch files"
	echo "clang-19 -### runs: $(links_through)"

	step "dpkg --purge"
	# With no conffiles, dpkg -r leaves nothing to purge: dpkg forgets them.
	local known
	known=$(dpkg-query -W -f '${Package}\n' offload-link offload-link-remote offload-link-as-default 2>/dev/null || true)
	if [ -n "$known" ]; then
		dpkg --purge $known
	else
		echo "nothing left to purge (no conffiles): dpkg knows none of the three packages"
	fi
	! dpkg-query -W offload-link offload-link-remote offload-link-as-default >/dev/null 2>&1 ||
		fail "a package is still known to dpkg"
}

if [ "${1:-}" = --in-root ]; then
	in_root
	exit
fi

# --- on this machine ------------------------------------------------------------
dir='' keep=0 debs=''
while [ $# -gt 0 ]; do
	case $1 in
	--dir) dir=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--debs) debs=$(cd "$2" && pwd); shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$self" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (try --help)" ;;
	esac
done

if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || die "run it as root (dpkg-buildpackage's installs, mmdebstrap and chroot need it)"
	exec sudo -n -- "$self" ${dir:+--dir "$dir"} ${debs:+--debs "$debs"} $([ $keep = 1 ] && echo --keep)
fi
for tool in mmdebstrap lintian dpkg-buildpackage dh; do
	command -v $tool >/dev/null ||
		die "$tool is missing: apt-get install mmdebstrap lintian dpkg-dev debhelper (scripts/bootstrap.sh does)"
done
. "$repo/scripts/lib/debian-root.sh"
require_apt_sources

work_dir ol-package
root=$dir/root check=$dir/check
remove_work_dir_at_exit "kept: $dir (packages in $dir/src, root file system in $root)"
trap 'exit 143' TERM INT HUP
started=$(date +%s)
took() { echo "-- $1 in $(($(date +%s) - $2)) s"; }

version=$(sed -n '1s/^offload-link (\([^)]*\)).*/\1/p' "$repo/debian/changelog")
[ -n "$version" ] || die "no version in debian/changelog"

if [ -z "$debs" ]; then
	say "dpkg-buildpackage -us -uc -b (offload-link $version, from a copy of the working tree)"
	start=$(date +%s)
	src=$dir/src/offload-link-$version
	mkdir -p "$src"
	git -C "$repo" ls-files -z --cached --others --exclude-standard |
		(cd "$repo" && xargs -0 cp --parents -P -t "$src" --)
	(cd "$src" && dpkg-checkbuilddeps) || die "build dependencies missing (above): apt-get install them"
	(cd "$src" && DEB_BUILD_OPTIONS="parallel=$(nproc)" dpkg-buildpackage -us -uc -b) >"$dir/build.log" 2>&1 ||
		{ tail -30 "$dir/build.log" >&2; die "dpkg-buildpackage failed (log: $dir/build.log)"; }
	debs=$dir/src
	ls -1 "$debs"/*.deb | sed "s|^$debs/|  |"
	took "built" "$start"
fi
for package in offload-link offload-link-remote offload-link-as-default; do
	ls "$debs/${package}_"*.deb >/dev/null 2>&1 || die "no ${package}_*.deb in $debs"
done

say "lintian (errors fail the check)"
lintian_status=0
lintian --info --display-level '>=warning' "$debs"/offload-link*_"$version"_*.deb 2>&1 |
	grep -v '^running with root privileges' | tee "$dir/lintian.txt" || true
if grep -q '^E: ' "$dir/lintian.txt"; then
	lintian_status=1
fi
echo "lintian: $(grep -c '^E: ' "$dir/lintian.txt" || true) errors, $(grep -c '^W: ' "$dir/lintian.txt" || true) warnings"
[ $lintian_status -eq 0 ] || die "lintian reports errors"

# The packages' dependencies go into the root file system with clang 19, so
# that the file lists before and after hold exactly what the packages add.
depends=$(for deb in "$debs"/offload-link_*.deb "$debs"/offload-link-remote_*.deb; do
	dpkg-deb -f "$deb" Depends; done | tr ',' '\n' | sed 's/([^)]*)//; s/|.*//; s/ //g' |
	grep -v '^offload-link' | sort -u | paste -sd,)
packages=clang-19,clang-tools-19,libomp-19-dev,$depends
say "root file system: mmdebstrap --variant=minbase --include=$packages bookworm"
start=$(date +%s)
mmdebstrap --quiet --variant=minbase --mode=root --include="$packages" bookworm "$root" "$sources" \
	>"$dir/mmdebstrap.log" 2>&1 ||
	{ tail -20 "$dir/mmdebstrap.log" >&2; die "mmdebstrap failed (log: $dir/mmdebstrap.log)"; }
took "made, $(chroot "$root" dpkg-query -W | wc -l) packages" "$start"

mkdir -p "$check/debs"
cp "$debs"/offload-link*_"$version"_*.deb "$check/debs/"
cp "$repo/$example" "$self" "$check/"

# Every path in the root file system but the mount points' contents (empty
# outside the check's own mount namespace).
file_list() {
	(cd "$root" && find . -xdev | sed 's|^\.||' | grep -v '^$' | sort)
}
file_list >"$dir/files-before.txt"

say "in the root file system: install, enable, link, upgrade, disable, remove, purge"
start=$(date +%s)
rc=0
# Mounts in a namespace of their own that propagate nowhere.  Inside a chroot
# (the fresh-machine check runs this test in one), "/" is no mount point and
# cannot be made private: the root file system is then bound onto itself and
# that mount made private instead.
unshare --mount --propagation unchanged -- bash -euo pipefail -c '
	root=$1 check=$2
	if ! mount --make-rprivate / 2>/dev/null; then
		mount --bind "$root" "$root"
		mount --make-rprivate "$root"
	fi
	mount -t proc proc "$root/proc"
	mount --rbind /dev "$root/dev"
	mount --rbind /sys "$root/sys"
	mount -t tmpfs tmpfs "$root/tmp"
	mount --bind "$check" "$root/mnt"
	exec chroot "$root" env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		bash /mnt/package-check.sh --in-root
' in-root "$root" "$check" 2>&1 | tee "$dir/in-root.log" || rc=$?
[ $rc -eq 0 ] || die "the check in the root file system failed (log: $dir/in-root.log)"
took "done" "$start"

say "no file left behind"
file_list >"$dir/files-after.txt"
left=0
# dpkg -L: what the packages installed (directories they share with other
# packages were there before).
while read -r path; do
	if [ -e "$root$path" ] || [ -L "$root$path" ]; then
		grep -qxF "$path" "$dir/files-before.txt" || { echo "left: $path (dpkg -L)"; left=1; }
	fi
done <"$check/dpkg-L.txt"
# The whole file system: the same paths as before the installation, but for
# dpkg's log (mmdebstrap leaves none; any dpkg -i starts it) and the
# device-link cache the link made in root's home, which is the user's data
# (as ccache's is: no package removes it; offload-link cache clear does).
diff "$dir/files-before.txt" "$dir/files-after.txt" | grep '^[<>]' |
	grep -vx '> /var/log/dpkg\.log' >"$dir/files-diff.txt" || true
user_cache='^> /root/\.cache(/offload-link(/.*)?)?$'
if grep -Eq "$user_cache" "$dir/files-diff.txt"; then
	echo "kept: root's device-link cache, ~/.cache/offload-link ($(grep -Ec "$user_cache" "$dir/files-diff.txt") paths), the user's data"
	grep -Ev "$user_cache" "$dir/files-diff.txt" >"$dir/files-diff.rest" || true
	mv "$dir/files-diff.rest" "$dir/files-diff.txt"
fi
if [ -s "$dir/files-diff.txt" ]; then
	echo "the file system differs from before the installation (< before, > after):"
	cat "$dir/files-diff.txt"
	left=1
fi
[ $left -eq 0 ] || die "files left behind"
echo "the $(wc -l <"$check/dpkg-L.txt") paths of dpkg -L: gone, or there before; the rest of the file system as before ($(wc -l <"$dir/files-before.txt") paths)"

say "package check passed in $(($(date +%s) - started)) s"
