#!/usr/bin/env bash
# test.sh: build offload-link and run its whole test suite (unit, lit and
# end-to-end tests) with ctest.  Works on a fresh clone: it first installs
# what the tests need and builds (scripts/bootstrap.sh --no-example; root or
# sudo is needed only when a package is missing).
#
#   scripts/test.sh [--long] [ctest arguments...]      e.g. scripts/test.sh -R e2e
#
# Without --long, the default tier (ctest -LE long: at least one quick case
# of every kind of check, under 10 minutes on two cores); --long adds the
# long tier (ctest label "long": the Debian package's install test, the
# option matrix of all three releases, the slowest unit tests under
# valgrind, the end-to-end cases again under full LTO and with clang 22 in
# partitions).  ctest arguments given after it select further.
#
# Then the sanitizer configuration: the same sources built with ASan and UBSan
# in <build>-asan, and every test but the end-to-end ones (and the clang
# lines' and the partition fuzzer's real links and runs) run there (their programs are not sanitized, and they
# would double the time), nor the package check (it builds the package from
# the sources, not from that build); with ctest
# arguments, those select the tests there too.  The unit tests also run under
# valgrind in the main build (memcheck/<name>).
#
# Environment: OL_BUILD_DIR (default <repo>/build), OL_BUILD_TYPE and
# OL_LLVM_VERSION as for bootstrap.sh, OL_TEST_JOBS (default: the number of
# cores), OL_SANITIZERS=0 to skip the sanitizer configuration.  The exit
# status is non-zero when any test failed in either configuration.
set -euo pipefail

tier=(-LE long)
if [ "${1:-}" = --long ]; then
	tier=()
	shift
fi
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OL_BUILD_DIR:-$repo/build}
jobs=${OL_TEST_JOBS:-$(nproc)}

OL_BUILD_DIR=$build "$repo/scripts/bootstrap.sh" --no-example

status=0
# LLVM's DTLTO scripts, when scripts/fetch-llvm-dtlto.sh got them.
if [ -z "${OL_LLVM_DTLTO_UTILS:-}" ] && [ -f "$build/deps/llvm-dtlto/validate.py" ]; then
	export OL_LLVM_DTLTO_UTILS="$build/deps/llvm-dtlto"
fi
printf '\n== test: ctest --test-dir %s --output-on-failure -j %s %s\n' "$build" "$jobs" "${tier[*]} $*"
ctest --test-dir "$build" --output-on-failure -j "$jobs" ${tier[@]+"${tier[@]}"} "$@" || status=$?

if [ "${OL_SANITIZERS:-1}" != 0 ]; then
	asan=$build-asan
	printf '\n== sanitizers: ASan + UBSan build in %s\n' "$asan"
	mkdir -p "$asan"
	cmake -S "$repo" -B "$asan" -G Ninja -DCMAKE_BUILD_TYPE="${OL_BUILD_TYPE:-RelWithDebInfo}" \
		-DOL_ENABLE_ASAN=ON -DOL_OMP16_ROOT="$build/deps/omp16" -DOL_OMP22_ROOT="$build/deps/omp22" \
		${OL_LLVM_VERSION:+-DOL_LLVM_VERSION=$OL_LLVM_VERSION} > "$asan/configure.log" ||
		{ cat "$asan/configure.log"; exit 1; }
	cmake --build "$asan" -j "$jobs"
	if [ $# -gt 0 ]; then
		selection=("$@")
	else
		selection=(-E '^(e2e/|differential/clang-lines$|differential/partition-fuzz(-sm90)?$|package/)')
	fi
	printf '\n== sanitizers: ctest --test-dir %s --output-on-failure -j %s %s\n' "$asan" "$jobs" \
		"${selection[*]}"
	ctest --test-dir "$asan" --output-on-failure -j "$jobs" ${tier[@]+"${tier[@]}"} "${selection[@]}" ||
		status=$?
fi
exit "$status"
