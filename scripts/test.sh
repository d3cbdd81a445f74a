#!/usr/bin/env bash
# test.sh: build offload-link and run its whole test suite (unit, lit and
# end-to-end tests) with ctest.  Works on a fresh clone: it first installs
# what the tests need and builds (scripts/bootstrap.sh --no-example; root or
# sudo is needed only when a package is missing).
#
#   scripts/test.sh [ctest arguments...]      e.g. scripts/test.sh -R e2e
#
# Environment: OL_BUILD_DIR (default <repo>/build), OL_BUILD_TYPE and
# OL_LLVM_VERSION as for bootstrap.sh, OL_TEST_JOBS (default: the number of
# cores).  The output ends with ctest's summary; the exit status is ctest's.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OL_BUILD_DIR:-$repo/build}
jobs=${OL_TEST_JOBS:-$(nproc)}

OL_BUILD_DIR=$build "$repo/scripts/bootstrap.sh" --no-example

printf '\n== test: ctest --test-dir %s --output-on-failure -j %s %s\n' "$build" "$jobs" "$*"
exec ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
