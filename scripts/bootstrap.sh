#!/usr/bin/env bash
# bootstrap.sh: set up a Debian bookworm machine for offload-link, build it,
# and link and run one OpenMP offloading program through it.
#
#   sudo scripts/bootstrap.sh            install packages, build, run the example
#   scripts/bootstrap.sh --deps-only     install packages and the clang-16 runtime only
#   scripts/bootstrap.sh --no-example    install and build, skip the example (scripts/test.sh)
#
# Environment: OL_BUILD_DIR (default <repo>/build), OL_BUILD_TYPE (default
# RelWithDebInfo), OL_LLVM_VERSION (the LLVM the backend links; default: the
# project's default, 22).
#
# Idempotent: packages already installed and a runtime already unpacked are
# left alone, and a configured build tree is only rebuilt.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OL_BUILD_DIR:-$repo/build}
build_type=${OL_BUILD_TYPE:-RelWithDebInfo}
llvm_version=${OL_LLVM_VERSION:-}

deps_only=0 example=1
for arg in "$@"; do
	case $arg in
	--deps-only) deps_only=1 ;;
	--no-example) example=0 ;;
	-h | --help)
		sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "bootstrap.sh: unknown argument '$arg' (try --help)" >&2
		exit 2
		;;
	esac
done

say() { printf '\n== %s\n' "$*"; }

# What each package is for:
#   clang-16/19/22, clang-tools-16/19/22  the compilers the tests drive, and the upstream
#                                   clang-linker-wrapper / clang-offload-packager of each
#                                   release (tests compare against them; 16's wrapper
#                                   needs 16's packager)
#   llvm-22-dev, llvm-19-dev        the LLVM C API the backend builds against (22 is the
#                                   default; 19 is the other supported build)
#   llvm-22-tools                   lit, FileCheck, not, split-file
#   lld-16/19/22                    -fuse-ld=lld for host LTO links in the tests
#   libomp5-19, libomp-19-dev       the OpenMP offloading runtime the programs run with
#                                   (clang 16's runtime conflicts with it: see below)
#   gcc                             a host toolchain without offloading, linking a library
#                                   made by a relocatable link (relocatable-archive, and
#                                   lit/relocatable-link-22.test)
#   libelf-dev, zlib1g-dev, libzstd-dev, pkg-config, cmake, ninja-build, python3, time
packages=(
	clang-16 clang-tools-16
	clang-19 clang-tools-19 lld-19 llvm-19-dev libomp5-19 libomp-19-dev
	clang-22 clang-tools-22 lld-22 llvm-22 llvm-22-dev llvm-22-tools
	lld-16
	libelf-dev zlib1g-dev libzstd-dev pkg-config cmake ninja-build python3 time
	binutils file gcc
)

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "bootstrap.sh: need root to run: $*" >&2
		echo "bootstrap.sh: run it as root or with sudo" >&2
		exit 1
	fi
}

install_packages() {
	local missing=() p
	for p in "${packages[@]}"; do
		if [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" != installed ]; then
			missing+=("$p")
		fi
	done
	if [ ${#missing[@]} -eq 0 ]; then
		say "packages: all ${#packages[@]} present"
		return
	fi
	say "packages: installing ${missing[*]}"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# libomp5-16 and libomp5-19 both provide and conflict with libomp-x.y, so
# clang 16's runtime cannot be installed next to 19's.  Its two packages are
# downloaded and unpacked into the build tree instead; the clang-16 tests
# compile with -I<root>/usr/lib/llvm-16/lib/clang/16/include, link with
# -L<root>/usr/lib/llvm-16/lib and run with that directory on LD_LIBRARY_PATH.
fetch_omp16() {
	local root=$build/deps/omp16
	local libdir=$root/usr/lib/llvm-16/lib
	if [ -e "$libdir/libomptarget.so" ] && [ -e "$root/usr/lib/llvm-16/lib/clang/16/include/omp.h" ]; then
		say "clang-16 OpenMP runtime: present in $root"
		return
	fi
	say "clang-16 OpenMP runtime: unpacking into $root"
	local dl
	dl=$(mktemp -d)
	# apt-get download runs as the invoking user and writes into the
	# current directory; _apt must be able to write there when we are root.
	chmod 0777 "$dl"
	(cd "$dl" && apt-get download libomp5-16 libomp-16-dev) || {
		# The package lists may be missing on a fresh image.
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
		(cd "$dl" && apt-get download libomp5-16 libomp-16-dev)
	}
	rm -rf "$root.tmp"
	mkdir -p "$root.tmp"
	local deb
	for deb in "$dl"/*.deb; do
		dpkg -x "$deb" "$root.tmp"
	done
	rm -rf "$dl" "$root"
	mv "$root.tmp" "$root"
	if [ ! -e "$libdir/libomptarget.so" ]; then
		echo "bootstrap.sh: $libdir/libomptarget.so missing after unpacking" >&2
		exit 1
	fi
}

configure_and_build() {
	say "build: $build ($build_type${llvm_version:+, LLVM $llvm_version})"
	local generator=() llvm=()
	if [ -n "$llvm_version" ]; then
		llvm=(-DOL_LLVM_VERSION="$llvm_version")
	fi
	if [ ! -e "$build/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
		generator=(-G Ninja)
	fi
	cmake -S "$repo" -B "$build" "${generator[@]}" -DOL_WERROR=ON \
		-DCMAKE_BUILD_TYPE="$build_type" "${llvm[@]}"
	cmake --build "$build" -j "${OL_TEST_JOBS:-$(nproc)}"
}

run_example() {
	local out=$build/examples
	local wrapper=$build/libexec/offload-link/clang-linker-wrapper
	mkdir -p "$out"
	say "example: compiling examples/hello-offload.c with clang-19, linking through $wrapper"
	clang-19 -O2 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu \
		-c "$repo/examples/hello-offload.c" -o "$out/hello-offload.o"
	# -B makes clang run <dir>/clang-linker-wrapper, i.e. offload-link.
	clang-19 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu \
		-B "$build/libexec/offload-link" "$out/hello-offload.o" -o "$out/hello-offload" -v >"$out/link.log" 2>&1 || {
		cat "$out/link.log" >&2
		exit 1
	}
	if ! grep -qF "\"$wrapper\"" "$out/link.log"; then
		echo "bootstrap.sh: clang did not run $wrapper; its link log:" >&2
		cat "$out/link.log" >&2
		exit 1
	fi
	echo "linked $out/hello-offload (clang ran $wrapper)"
	say "example: running it on the host CPU 'device' (libomptarget from /usr/lib/llvm-19/lib)"
	# The CPU plugin leaves a copy of each device image in /tmp/tmpfile_*;
	# the tests redirect it, here we remove ours.
	local before
	before=$(ls -1 /tmp/tmpfile_* 2>/dev/null || true)
	local status=0
	LD_LIBRARY_PATH=/usr/lib/llvm-19/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$out/hello-offload" || status=$?
	local f
	for f in /tmp/tmpfile_*; do
		[ -e "$f" ] || continue
		grep -qxF "$f" <<<"$before" || rm -f "$f"
	done
	if [ $status -ne 0 ]; then
		echo "bootstrap.sh: the example failed (exit status $status)" >&2
		exit $status
	fi
	say "done: next, run scripts/test.sh"
}

install_packages
fetch_omp16
if [ $deps_only -eq 1 ]; then
	exit 0
fi
configure_and_build
if [ $example -eq 1 ]; then
	run_example
fi
