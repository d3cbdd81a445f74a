#!/bin/sh
# run-omp19.sh SHIM PROGRAM [ARGS...]: run an OpenMP program on libomptarget
# 19's CPU "device" (offload mandatory), with the CPU plugin's image files
# sent by the e2e tests' preloaded SHIM to a directory of its own, removed
# afterwards (the plugin leaves /tmp/tmpfile_* behind otherwise; see
# test/e2e/tmpfile-redirect.c for why the name must be this short).
# OL_OMP_LIBDIR names another release's runtime (clang 16's unpacked copy).
shim=$1
shift
dir=$(mktemp -d /tmp/XXXXXX) || exit 1
status=0
# LD_PRELOAD splits its list at spaces, and the build tree's path may have
# one: the shim goes by its name, found in its directory on LD_LIBRARY_PATH.
OMP_TARGET_OFFLOAD=MANDATORY OL_TMPFILE_DIR=$dir LD_PRELOAD=$(basename "$shim") \
	LD_LIBRARY_PATH=${OL_OMP_LIBDIR:-/usr/lib/llvm-19/lib}:$(dirname "$shim")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	"$@" || status=$?
rm -rf "$dir"
exit $status
