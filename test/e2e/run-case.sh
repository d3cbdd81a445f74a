#!/usr/bin/env bash
# run-case.sh: build one end-to-end case with a real clang, link it through a
# given clang-linker-wrapper, run it on libomptarget's CPU "device" and check
# its output.
#
#   run-case.sh --clang 19|16|22 --case <cases/NAME> --work <dir>
#               --wrapper-dir <dir holding clang-linker-wrapper, or "upstream">
#               --shim <preload.so> [--omp16 <unpacked clang-16 runtime root>]
#               [--omp22 <unpacked libomp-22-dev root, for omp.h>]
#               [--partitioned | --full-lto]
#
# --partitioned: the device code is bitcode (-foffload-lto) and the link
# optimizes it in partitions of one module (--device-lto=partitioned:1,
# through OFFLOAD_LINK_DEVICE_LTO); --full-lto: the same bitcode optimized as
# one module (--device-lto=full, upstream's way).  Every case must print the
# same either way.
#
# The case directory holds its sources, expected.txt (the program's exact
# standard output) and recipe.sh, a few lines of shell run in <work> with the
# helpers below.  A recipe line "# clang: 19" limits the case to those
# versions (the CMake side reads it too).
#
# Helpers for recipes ($SRC is the case directory):
#   compile  <src> [flags...]    clang-N with the offloading flags, -c, output <stem>.o
#   compilexx <src> [flags...]   the same with clang++-N
#   link     -o <out> [args...]  clang-N with the offloading flags and -B <wrapper-dir>;
#                                fails unless clang ran <wrapper-dir>/clang-linker-wrapper
#   linkxx   -o <out> [args...]  the same with clang++-N
#   archive  <lib.a> <objs...>   llvm-ar rcs
#   show <cmd...>                echo a command the recipe runs itself
#   fail <message>               stop the case as failed
#   $CLANG $CLANGXX              clang-N, clang++-N
#   $wrapper                     the clang-linker-wrapper under test, for direct runs
#   $upstream                    1 when that is upstream's (--wrapper-dir upstream), else 0
#   $runtime_libdir              the matching libomptarget's directory
#   ${runtime_ldflags[@]}        -L flags that find -lomptarget and -lomp (22: libomptarget
#                                22 and libomp-19's libomp, as Debian's 22 packages use it)
#   $LLD                         this release's ld.lld, for "-fuse-ld=lld --ld-path=$LLD"
#                                (a bare -fuse-ld=lld may find another release's lld, whose
#                                LTO cannot read this clang's bitcode)
#   check    <program> [expected-file [registrations-file]]
#                                run it with the matching libomptarget, OMP_TARGET_OFFLOAD=
#                                MANDATORY, compare stdout with expected.txt (or the file
#                                given) exactly and require exit status 0; when the case has
#                                registrations.txt (or the file is given), compare with it the
#                                device images the program registered, one sorted line each
#                                with its entries (--shim, registration-log.c)
#   link_log                     the log of the last link (clang -v and the wrapper's -v)
#   missing <what> <package>     stop the case as failed: a tool it needs is not installed
#   $UPSTREAM_WRAPPER            this release's upstream clang-linker-wrapper, for objects
#                                made by upstream
#
# --wrapper-dir upstream links through /usr/lib/llvm-N/bin/clang-linker-wrapper
# (from a -B directory of its own), to check the cases themselves.
#
# Exit status: 0 pass, 1 fail (also when a tool the case needs is missing: the
# message names its package; scripts/bootstrap.sh installs them all).
set -euo pipefail

usage() {
	sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

clang_version='' case_dir='' work='' wrapper_dir='' shim='' omp16='' omp22=''
while [ $# -gt 0 ]; do
	case $1 in
	--clang) clang_version=$2; shift 2 ;;
	--case) case_dir=$2; shift 2 ;;
	--work) work=$2; shift 2 ;;
	--wrapper-dir) wrapper_dir=$2; shift 2 ;;
	--shim) shim=$2; shift 2 ;;
	--omp16) omp16=$2; shift 2 ;;
	--omp22) omp22=$2; shift 2 ;;
	--partitioned) device_lto=partitioned:1; shift ;;
	--full-lto) device_lto=full; shift ;;
	*) usage ;;
	esac
done
if [ -z "$clang_version" ] || [ -z "$case_dir" ] || [ -z "$work" ] || [ -z "$wrapper_dir" ] || [ -z "$shim" ]; then
	usage
fi

case $work in /*) ;; *) work=$PWD/$work ;; esac
SRC=$(cd "$case_dir" && pwd)
case_name=$(basename "$SRC")
upstream=0
if [ "$wrapper_dir" = upstream ]; then
	upstream=1
	wrapper_dir=$work/upstream-bin
fi
wrapper=$wrapper_dir/clang-linker-wrapper

missing() {
	echo "FAILED [clang-$clang_version $case_name]: missing $1: install $2 (scripts/bootstrap.sh)" >&2
	exit 1
}
fail() {
	echo "FAILED [clang-$clang_version $case_name]: $*" >&2
	exit 1
}

CLANG=clang-$clang_version
CLANGXX=clang++-$clang_version
LLD=/usr/lib/llvm-$clang_version/bin/ld.lld
command -v "$CLANG" >/dev/null || missing "$CLANG" "the Debian package clang-$clang_version"
[ $upstream -eq 1 ] || [ -x "$wrapper" ] || fail "no executable $wrapper"
[ -r "$shim" ] || fail "no $shim"
[ -x "$LLD" ] || missing "$LLD" "the Debian package lld-$clang_version"

offload_flags=(-fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu)
if [ -n "${device_lto:-}" ]; then
	offload_flags+=(-foffload-lto)
	export OFFLOAD_LINK_DEVICE_LTO=$device_lto
fi
runtime_ldflags=()
case $clang_version in
19)
	runtime_libdir=/usr/lib/llvm-19/lib
	[ -e "$runtime_libdir/libomptarget.so" ] || missing "$runtime_libdir/libomptarget.so" "the Debian packages libomp-19-dev and libomp5-19"
	;;
16)
	# clang 16 still uses the old offloading driver for OpenMP unless asked,
	# and that one never runs clang-linker-wrapper.  Its runtime is the
	# unpacked copy from scripts/bootstrap.sh (it conflicts with 19's package).
	offload_flags+=(--offload-new-driver)
	[ -n "$omp16" ] || fail "no --omp16 root given"
	runtime_libdir=$omp16/usr/lib/llvm-16/lib
	[ -e "$runtime_libdir/libomptarget.so" ] ||
		missing "clang-16's OpenMP runtime in $omp16" "it with scripts/bootstrap.sh --deps-only (unpacks libomp5-16, libomp-16-dev)"
	offload_flags+=(-I "$runtime_libdir/clang/16/include" -L "$runtime_libdir")
	;;
22)
	# libomptarget 22 (liboffload-22, -dev) beside 19's, with libomp-19's
	# libomp.so.5 as Debian's 22 packages have it; omp.h from the unpacked
	# libomp-22-dev (it conflicts with libomp-19-dev).
	runtime_libdir=/usr/lib/llvm-22/lib
	runtime_ldflags=(-L /usr/lib/llvm-22/lib -L /usr/lib/llvm-19/lib)
	[ -e /usr/lib/llvm-22/lib/libomptarget.so ] ||
		missing /usr/lib/llvm-22/lib/libomptarget.so "the Debian packages liboffload-22 and liboffload-22-dev"
	[ -n "$omp22" ] || fail "no --omp22 root given"
	[ -e "$omp22/usr/lib/llvm-22/lib/clang/22/include/omp.h" ] ||
		missing "clang-22's omp.h in $omp22" "it with scripts/bootstrap.sh --deps-only (unpacks libomp-22-dev)"
	offload_flags+=(-I "$omp22/usr/lib/llvm-22/lib/clang/22/include" "${runtime_ldflags[@]}")
	;;
*) fail "unsupported clang version $clang_version" ;;
esac
[ ${#runtime_ldflags[@]} -gt 0 ] || runtime_ldflags=(-L "$runtime_libdir")

if grep -q '^# clang:' "$SRC/recipe.sh" &&
	! grep '^# clang:' "$SRC/recipe.sh" | grep -qw "$clang_version"; then
	fail "case $case_name is not for clang-$clang_version (its recipe's '# clang:' line)"
fi

UPSTREAM_WRAPPER=/usr/lib/llvm-$clang_version/bin/clang-linker-wrapper

rm -rf "$work"
mkdir -p "$work"
cd "$work"
if [ $upstream -eq 1 ]; then
	[ -x "$UPSTREAM_WRAPPER" ] || missing "$UPSTREAM_WRAPPER" "the Debian package clang-tools-$clang_version"
	mkdir -p "$wrapper_dir"
	ln -s "$UPSTREAM_WRAPPER" "$wrapper"
fi
echo "case $case_name, clang-$clang_version, wrapper $wrapper -> $(readlink -f "$wrapper")"

# Echo each command as it runs, so a failing ctest log shows what happened.
show() {
	printf '+'
	printf ' %q' "$@"
	printf '\n'
}

compile_with() {
	local driver=$1 src=$2
	shift 2
	local base
	base=$(basename "$src")
	show "$driver" "${offload_flags[@]}" -c "$SRC/$src" -o "${base%.*}.o" "$@"
	"$driver" "${offload_flags[@]}" -c "$SRC/$src" -o "${base%.*}.o" "$@" ||
		fail "compiling $src"
}
compile() { compile_with "$CLANG" "$@"; }
compilexx() { compile_with "$CLANGXX" "$@"; }

link_count=0
link_with() {
	local driver=$1
	shift
	link_count=$((link_count + 1))
	local log=link$link_count.log
	show "$driver" "${offload_flags[@]}" -B "$wrapper_dir" -v "$@"
	if ! "$driver" "${offload_flags[@]}" -B "$wrapper_dir" -v "$@" >"$log" 2>&1; then
		cat "$log"
		fail "link failed (log above, also in $work/$log)"
	fi
	# clang -v prints each command it runs; the link must have gone through
	# the wrapper under test, not the one installed next to clang.
	if ! grep -qF "\"$wrapper\" " "$log"; then
		cat "$log"
		fail "clang did not run $wrapper (log above)"
	fi
}
link() { link_with "$CLANG" "$@"; }
link_log() { echo "link$link_count.log"; }
linkxx() { link_with "$CLANGXX" "$@"; }

archive() {
	show llvm-ar rcs "$@"
	rm -f "$1"
	[ -x "/usr/lib/llvm-$clang_version/bin/llvm-ar" ] ||
		missing "/usr/lib/llvm-$clang_version/bin/llvm-ar" "the Debian package llvm-$clang_version"
	"/usr/lib/llvm-$clang_version/bin/llvm-ar" rcs "$@" || fail "llvm-ar $*"
}

check() {
	local program=$1 expected=${2:-$SRC/expected.txt} registrations=${3:-$SRC/registrations.txt}
	# A private directory for the device images the CPU plugin writes; its
	# name is short enough for the plugin's 20-byte template (see the shim).
	local imgdir status=0
	imgdir=$(mktemp -d /tmp/XXXXXX)
	rm -f "$program.registrations"
	show "./$program"
	# LD_PRELOAD splits its list at spaces, and the build tree's path may
	# have one: the shim goes by its name, found in its directory on
	# LD_LIBRARY_PATH.
	OL_TMPFILE_DIR=$imgdir OL_REGISTRATION_LOG=$PWD/$program.registrations \
		LD_PRELOAD=$(basename "$shim") OMP_TARGET_OFFLOAD=MANDATORY \
		LD_LIBRARY_PATH=$runtime_libdir:$(dirname "$shim")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		"./$program" >"$program.out" 2>"$program.err" || status=$?
	rm -rf "$imgdir"
	cat "$program.out"
	cat "$program.err" >&2
	if [ $status -ne 0 ]; then
		fail "$program exited with status $status"
	fi
	if ! diff -u "$expected" "$program.out"; then
		fail "$program printed something else than $(basename "$expected") (diff above)"
	fi
	if [ -e "$registrations" ]; then
		touch "$program.registrations"
		LC_ALL=C sort "$program.registrations" >"$program.registrations.sorted"
		echo "registered device images:"
		cat "$program.registrations.sorted"
		if ! diff -u "$registrations" "$program.registrations.sorted"; then
			fail "$program registered other device images than $(basename "$registrations") says (diff above)"
		fi
	fi
}

# shellcheck source=/dev/null
. "$SRC/recipe.sh"
echo "PASSED: clang-$clang_version $case_name"
