#!/usr/bin/env bash
# bootstrap.sh: set up a Debian bookworm machine for offload-link, build it,
# and link and run one OpenMP offloading program through it.
#
#   scripts/bootstrap.sh                 install packages, build, run the example
#   scripts/bootstrap.sh --deps-only     install packages and the clang 16 runtime and
#                                        clang 22 omp.h only
#   scripts/bootstrap.sh --no-example    install and build, skip the example (scripts/test.sh)
#   scripts/bootstrap.sh --check         only check that everything the tests use is
#                                        there; name the package of each missing one
#
# Run it as root, or as a user who may sudo: it calls sudo only for apt-get,
# and only when a package is missing.
#
# Environment: OL_BUILD_DIR (default <repo>/build), OL_OMP16_ROOT (where --check
# looks for clang 16's runtime; default <build>/deps/omp16), OL_OMP22_ROOT (clang
# 22's unpacked omp.h; default <build>/deps/omp22), OL_BUILD_TYPE (default
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

deps_only=0 example=1 check_only=0
for arg in "$@"; do
	case $arg in
	--deps-only) deps_only=1 ;;
	--check) check_only=1 ;;
	--no-example) example=0 ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "bootstrap.sh: unknown argument '$arg' (try --help)" >&2
		exit 2
		;;
	esac
done

say() { printf '\n== %s\n' "$*"; }

# What the build and the tests use, one line each: a program (looked up on PATH) or an
# absolute path, then the Debian package that provides it.  This is the only list: the
# packages to install are the ones named here, `bootstrap.sh --check` verifies every
# line, and ctest runs that check before any other test (test "requirements"), so a
# tool a test starts using without a line here fails on a fresh machine, loudly.
# "machine-image" marks what the machine image provides and no package installs
# (CUDA 13 at /usr/local/cuda); --check names it instead of a package.
requirements=(
	# the build
	"cc                                              gcc"
	"gcc                                             gcc"
	"c++                                             g++"
	"/usr/include/stdio.h                            libc6-dev"
	"make                                            make"
	"cmake                                           cmake"
	"ninja                                           ninja-build"
	"pkg-config                                      pkg-config"
	"/usr/include/libelf.h                           libelf-dev"
	"/usr/include/zlib.h                             zlib1g-dev"
	"/usr/include/zstd.h                             libzstd-dev"
	"/usr/lib/llvm-22/lib/cmake/llvm/LLVMConfig.cmake llvm-22-dev"
	"/usr/lib/llvm-19/lib/cmake/llvm/LLVMConfig.cmake llvm-19-dev"
	"/usr/lib/llvm-16/lib/cmake/llvm/LLVMConfig.cmake llvm-16-dev"
	# the compilers the tests drive, and upstream's tools of each release (tests
	# compare against them; 16's wrapper needs 16's packager)
	"clang-16                                        clang-16"
	"clang++-16                                      clang-16"
	"/usr/lib/llvm-16/bin/clang-linker-wrapper       clang-tools-16"
	"/usr/lib/llvm-16/bin/clang-offload-packager     clang-tools-16"
	"/usr/lib/llvm-16/bin/llvm-ar                    llvm-16"
	"/usr/lib/llvm-16/bin/ld.lld                     lld-16"
	"clang-19                                        clang-19"
	"clang++-19                                      clang-19"
	"/usr/lib/llvm-19/bin/clang-linker-wrapper       clang-tools-19"
	"/usr/lib/llvm-19/bin/clang-offload-packager     clang-tools-19"
	"/usr/lib/llvm-19/bin/clang-offload-bundler      clang-tools-19"
	"/usr/lib/llvm-19/bin/llvm-ar                    llvm-19"
	"/usr/lib/llvm-19/bin/llvm-objcopy               llvm-19"
	"/usr/lib/llvm-19/bin/ld.lld                     lld-19"
	"clang-22                                        clang-22"
	"clang++-22                                      clang-22"
	"/usr/lib/llvm-22/bin/clang-linker-wrapper       clang-tools-22"
	"/usr/lib/llvm-22/bin/clang-offload-bundler      clang-tools-22"
	"/usr/lib/llvm-22/bin/clang-nvlink-wrapper       clang-tools-22"
	"/usr/lib/llvm-22/bin/clang-sycl-linker          clang-tools-22"
	"/usr/lib/llvm-22/bin/llvm-offload-binary        llvm-22"
	"/usr/lib/llvm-22/bin/llvm-as                    llvm-22"
	"/usr/lib/llvm-22/bin/llvm-readelf               llvm-22"
	"/usr/lib/llvm-22/bin/llvm-objdump               llvm-22"
	"/usr/lib/llvm-22/bin/llvm-objcopy               llvm-22"
	"/usr/lib/llvm-22/bin/llvm-ar                    llvm-22"
	"/usr/lib/llvm-22/bin/ld.lld                     lld-22"
	"/usr/lib/llvm-22/bin/lit                        llvm-22-tools"
	"/usr/lib/llvm-22/bin/FileCheck                  llvm-22-tools"
	"/usr/lib/llvm-22/bin/not                        llvm-22-tools"
	"/usr/lib/llvm-22/bin/split-file                 llvm-22-tools"
	"/usr/lib/llvm-22/bin/count                      llvm-22-tools"
	# the OpenMP offloading runtime the programs run with (clang 16's conflicts
	# with it and is unpacked into the build tree instead: fetch_omp16 below)
	"/usr/lib/llvm-19/lib/libomptarget.so            libomp-19-dev"
	"/usr/lib/llvm-19/lib/libomptarget.so.19.1       libomp5-19"
	"/usr/lib/llvm-19/lib/libomptarget.devicertl.a    libomp-19-dev"
	# clang 22's runtime: libomptarget 22 (its CPU plugin built in) beside 19's;
	# it uses libomp5-19's libomp.so.5.  Its omp.h (libomp-22-dev conflicts with
	# libomp-19-dev) is unpacked into the build tree: fetch_omp22 below.
	"/usr/lib/llvm-22/lib/libomptarget.so.22.1       liboffload-22"
	"/usr/lib/llvm-22/lib/libomptarget.so            liboffload-22-dev"
	# HIP host links
	"/usr/lib/x86_64-linux-gnu/libamdhip64.so        libamdhip64-dev"
	# the HIP runtime's reader of AMDGPU code object metadata (lit feature comgr)
	"/usr/include/amd_comgr.h                        libamd-comgr-dev"
	# CUDA 13: ptxas and nvlink for NVPTX device links, fatbinary, libcudart
	"/usr/local/cuda/bin/ptxas                       machine-image"
	"/usr/local/cuda/bin/nvlink                      machine-image"
	"/usr/local/cuda/bin/fatbinary                   machine-image"
	"/usr/local/cuda/lib64/libcudart.so              machine-image"
	# the device-link cache's remote storage: the libraries of its protocols
	# (offload-link-remote.so), and the servers its tests run
	# (test/lit/Inputs/cache/server.sh; Debian's nginx has WebDAV's PUT built in)
	"/usr/include/hiredis/hiredis.h                  libhiredis-dev"
	"/usr/include/x86_64-linux-gnu/curl/curl.h       libcurl4-openssl-dev"
	"redis-server                                    redis-server"
	"redis-cli                                       redis-tools"
	"/usr/sbin/nginx                                 nginx"
	# partitions as jobs of a distributor: the one-node Slurm cluster its test
	# starts (test/lit/Inputs/distributor/slurm-cluster.sh)
	"/usr/sbin/slurmctld                             slurmctld"
	"/usr/sbin/slurmd                                slurmd"
	"sbatch                                          slurm-client"
	"/usr/sbin/munged                                munge"
	# the host linker and tools the test scripts call
	"ld                                              binutils"
	"ar                                              binutils"
	"python3                                         python3"
	"file                                            file"
	"/usr/bin/time                                   time"
	"od                                              coreutils"
	"timeout                                         coreutils"
	"cmp                                             diffutils"
	"diff                                            diffutils"
	# memcheck/<name>: the unit tests under valgrind
	"valgrind                                        valgrind"
	# lit/man-page.test renders the man page the build writes
	"man                                             man-db"
	# lit/cache-small-disk.test: a small tmpfs in a mount namespace of its own
	# (where none can be had, a preloaded module plays the full disk)
	"unshare                                         util-linux"
	"mount                                           mount"
	"du                                              coreutils"
	# package/check: the Debian package built, checked and tried in a new root
	# file system (scripts/package-check.sh; git lists the files of the tree it
	# packages)
	"dpkg-buildpackage                               dpkg-dev"
	"/usr/share/build-essential/list                 build-essential"
	"git                                             git"
	"dh                                              debhelper"
	"lintian                                         lintian"
	"mmdebstrap                                      mmdebstrap"
)

# The packages named above (machine-image excluded), each once, in order.
packages=()
for line in "${requirements[@]}"; do
	set -- $line
	[ "$2" = machine-image ] && continue
	case " ${packages[*]} " in *" $2 "*) ;; *) packages+=("$2") ;; esac
done
set --

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

# unpack_debs <root> <file that must exist after> <package>...: downloads the
# packages (never installs them) and unpacks them into <root>, once.
unpack_debs() {
	local root=$1 need=$2 dl deb
	shift 2
	if [ -e "$root/$need" ]; then
		say "$*: present in $root"
		return
	fi
	say "$*: unpacking into $root"
	dl=$(mktemp -d)
	# apt-get download runs as the invoking user and writes into the
	# current directory; _apt must be able to write there when we are root.
	chmod 0777 "$dl"
	(cd "$dl" && apt-get download "$@") || {
		# The package lists may be missing on a fresh image.
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
		(cd "$dl" && apt-get download "$@")
	}
	rm -rf "$root.tmp"
	mkdir -p "$root.tmp"
	for deb in "$dl"/*.deb; do
		dpkg -x "$deb" "$root.tmp"
	done
	rm -rf "$dl" "$root"
	mv "$root.tmp" "$root"
	if [ ! -e "$root/$need" ]; then
		echo "bootstrap.sh: $root/$need missing after unpacking $*" >&2
		exit 1
	fi
}

# libomp5-16 and libomp5-19 both provide and conflict with libomp-x.y, so
# clang 16's runtime cannot be installed next to 19's.  Its two packages are
# unpacked into the build tree instead; the clang-16 tests compile with
# -I<root>/usr/lib/llvm-16/lib/clang/16/include, link with
# -L<root>/usr/lib/llvm-16/lib and run with that directory on LD_LIBRARY_PATH.
fetch_omp16() {
	unpack_debs "$build/deps/omp16" usr/lib/llvm-16/lib/libomptarget.so libomp5-16 libomp-16-dev
	[ -e "$build/deps/omp16/usr/lib/llvm-16/lib/clang/16/include/omp.h" ] || {
		echo "bootstrap.sh: clang 16's omp.h missing from $build/deps/omp16" >&2
		exit 1
	}
}

# clang 22's runtime is installed (liboffload-22, -dev); of libomp-22-dev,
# which conflicts with libomp-19-dev, the tests need only omp.h: unpacked,
# compiled with -I<root>/usr/lib/llvm-22/lib/clang/22/include.
fetch_omp22() {
	unpack_debs "$build/deps/omp22" usr/lib/llvm-22/lib/clang/22/include/omp.h libomp-22-dev
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

# example_with <release> <runtime libdirs> [compile flags...]: compiles and links
# examples/hello-offload.c with clang-<release> through offload-link, checks
# that clang ran it, and runs the program on the host CPU "device".
example_with() {
	local release=$1 libdirs=$2 out=$build/examples/clang$1
	local wrapper=$build/libexec/offload-link/clang-linker-wrapper
	local offload=(-fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu) libflags=() dir
	shift 2
	for dir in ${libdirs//:/ }; do
		libflags+=(-L "$dir")
	done
	mkdir -p "$out"
	say "example: compiling examples/hello-offload.c with clang-$release, linking through $wrapper"
	"clang-$release" -O2 "${offload[@]}" "$@" -c "$repo/examples/hello-offload.c" -o "$out/hello-offload.o"
	# -B makes clang run <dir>/clang-linker-wrapper, i.e. offload-link.
	"clang-$release" "${offload[@]}" -B "$build/libexec/offload-link" "$out/hello-offload.o" \
		"${libflags[@]}" -o "$out/hello-offload" -v >"$out/link.log" 2>&1 || {
		cat "$out/link.log" >&2
		exit 1
	}
	if ! grep -qF "\"$wrapper\"" "$out/link.log"; then
		echo "bootstrap.sh: clang did not run $wrapper; its link log:" >&2
		cat "$out/link.log" >&2
		exit 1
	fi
	echo "linked $out/hello-offload (clang-$release ran $wrapper)"
	say "example: running it on the host CPU 'device' (libomptarget from $libdirs)"
	# The CPU plugin leaves a copy of each device image in /tmp/tmpfile_*;
	# the tests redirect it, here we remove ours.
	local before status=0 f
	before=$(ls -1 /tmp/tmpfile_* 2>/dev/null || true)
	OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		"$out/hello-offload" || status=$?
	for f in /tmp/tmpfile_*; do
		[ -e "$f" ] || continue
		grep -qxF "$f" <<<"$before" || rm -f "$f"
	done
	if [ $status -ne 0 ]; then
		echo "bootstrap.sh: the clang-$release example failed (exit status $status)" >&2
		exit $status
	fi
}

run_example() {
	example_with 19 /usr/lib/llvm-19/lib
	# libomptarget 22, with libomp-19's libomp.so.5 (Debian's 22 packages use it).
	example_with 22 /usr/lib/llvm-22/lib:/usr/lib/llvm-19/lib \
		-I "$build/deps/omp22/usr/lib/llvm-22/lib/clang/22/include"
	say "done: next, run scripts/test.sh"
}

# Every requirement line present, and clang 16's runtime unpacked; else name
# what is missing and the package that provides it, and fail.
# With "lenient", what the machine image provides is only warned about: the
# tool builds without CUDA, the tests need it (they run --check).
check_requirements() {
	local line missing=0 what package lenient=${1:-}
	for line in "${requirements[@]}"; do
		set -- $line
		what=$1 package=$2
		case $what in
		/*) [ -e "$what" ] && continue ;;
		*) command -v "$what" >/dev/null 2>&1 && continue ;;
		esac
		if [ "$package" = machine-image ]; then
			echo "bootstrap.sh: missing $what: the machine image's CUDA 13 at /usr/local/cuda (no Debian package provides it)" >&2
			[ -n "$lenient" ] && continue
		else
			echo "bootstrap.sh: missing $what: install the Debian package $package (scripts/bootstrap.sh does)" >&2
		fi
		missing=$((missing + 1))
	done
	local omp16=${OL_OMP16_ROOT:-$build/deps/omp16} omp22=${OL_OMP22_ROOT:-$build/deps/omp22}
	if [ ! -e "$omp16/usr/lib/llvm-16/lib/libomptarget.so" ]; then
		echo "bootstrap.sh: missing clang 16's OpenMP runtime in $omp16: run scripts/bootstrap.sh --deps-only (unpacks libomp5-16, libomp-16-dev)" >&2
		missing=$((missing + 1))
	fi
	if [ ! -e "$omp22/usr/lib/llvm-22/lib/clang/22/include/omp.h" ]; then
		echo "bootstrap.sh: missing clang 22's omp.h in $omp22: run scripts/bootstrap.sh --deps-only (unpacks libomp-22-dev)" >&2
		missing=$((missing + 1))
	fi
	if [ $missing -ne 0 ]; then
		echo "bootstrap.sh: $missing requirement(s) of the build and tests missing" >&2
		return 1
	fi
	echo "bootstrap.sh: all ${#requirements[@]} requirements of the build and tests present"
}

if [ $check_only -eq 1 ]; then
	check_requirements
	exit
fi
install_packages
fetch_omp16
fetch_omp22
check_requirements lenient
if [ $deps_only -eq 1 ]; then
	exit 0
fi
configure_and_build
if [ $example -eq 1 ]; then
	run_example
fi
