#!/bin/sh
# make-example.sh TOOL SHIM WORK: examples/make built by make -j4 with
# offload-link as its link command (clang as the host linker), run on
# libomptarget's CPU device, then made again: nothing to do, nothing relinked.
set -eu
tool=$1 shim=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "make-example: $*" >&2; exit 1; }

rm -rf "$work" && mkdir -p "$work"
# make pastes OFFLOAD_LINK into a shell command line: the tool quoted, as its
# path may have a space in it.
tool="\"$tool\""
cp "$here/../../../examples/make/Makefile" "$here/../../../examples/make/"*.c "$work/"
cd "$work"
make -j4 OFFLOAD_LINK="$tool --stats" app >build.log 2>&1 || { cat build.log; fail "make failed"; }
grep -q "^offload-link: stats" build.log || { cat build.log; fail "the link did not go through offload-link"; }
out=$("$here/../../lit/Inputs/run-omp19.sh" "$shim" ./app)
echo "$out"
[ "$out" = "dot = 501500, target region on the device: yes" ] || fail "wrong output"
before=$(stat -c %Y app)
sleep 1
make -q OFFLOAD_LINK="$tool" app || fail "make would rebuild"
make -j4 OFFLOAD_LINK="$tool" app >again.log 2>&1
[ "$(stat -c %Y app)" = "$before" ] || { cat again.log; fail "the second make relinked"; }
# A clean build from nothing with plain make (one job at a time) links the same program.
make clean >/dev/null && make OFFLOAD_LINK="$tool" app >serial.log 2>&1 || { cat serial.log; fail "make failed"; }
out=$("$here/../../lit/Inputs/run-omp19.sh" "$shim" ./app)
[ "$out" = "dot = 501500, target region on the device: yes" ] || fail "wrong output after make"
echo "make-example: built with make -j4 and make, ran, and made again as a no-op"
