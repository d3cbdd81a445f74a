#!/bin/sh
# offload-flags-project.sh WRAPPER_DIR SHIM WORK: the CMake project in
# offload-flags-project/, built with clang 19 and Ninja writing every command
# into a response file (CMAKE_NINJA_FORCE_RESPONSE_FILE), the offloading
# flags and -O3 in CMAKE_EXE_LINKER_FLAGS with -B WRAPPER_DIR, so every link
# (CMake's OpenMP and feature probes, a tool without a target region, the
# program with one) runs offload-link with clang 19's wrapper options and,
# for all but the program, no device code.  Each link is shown to be
# offload-link's (-Wl,--stats), both programs run, the program's target
# region on libomptarget 19's CPU device.
set -eu
wrapper_dir=$1 shim=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
fail() { echo "offload-flags-project: $*" >&2; exit 1; }

targets=-fopenmp-targets=x86_64-unknown-linux-gnu
# The flags are a command line's text: the directory quoted (it may have a space).
link_flags="-fopenmp $targets -O3 -B \"$wrapper_dir\" -Wl,--stats"
build=$work/build
cmake -S "$here/offload-flags-project" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-19 \
	-DCMAKE_NINJA_FORCE_RESPONSE_FILE=ON \
	"-DCMAKE_EXE_LINKER_FLAGS=$link_flags" \
	"-DOFFLOAD_FLAGS=-fopenmp $targets -O3 -B \"$wrapper_dir\"" \
	"-DOFFLOAD_COMPILE_OPTIONS=-fopenmp;$targets" >"$work/configure.log" 2>&1 ||
	{ cat "$work/configure.log" "$build"/CMakeFiles/CMake*.log 2>/dev/null | tail -60
	  fail "configure failed: a probe did not link"; }
grep -q "HAVE_OFFLOAD_LINK - Success" "$work/configure.log" || { cat "$work/configure.log"; fail "the probe did not run"; }
# The probes linked through offload-link: its summary is in CMake's log
# (CMakeOutput.log before CMake 3.26, CMakeConfigureLog.yaml after).
cat "$build"/CMakeFiles/CMakeOutput.log "$build"/CMakeFiles/CMakeConfigureLog.yaml 2>/dev/null |
	grep -q "offload-link: stats" || fail "CMake's probes did not link through offload-link"
grep -q "RSP_FILE = CMakeFiles/app.rsp" "$build/build.ninja" || fail "Ninja links without a response file"
cmake --build "$build" -v >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build failed"; }
grep -q "@CMakeFiles/app.rsp" "$work/build.log" || { cat "$work/build.log"; fail "the link read no response file"; }
n=$(grep -c "^offload-link: stats" "$work/build.log" || true)
[ "$n" -eq 2 ] || { cat "$work/build.log"; fail "$n links through offload-link, expected 2"; }
out=$("$here/../../lit/Inputs/run-omp19.sh" "$shim" "$build/tool")
[ "$out" = "tool: ran" ] || fail "tool: '$out'"
out=$("$here/../../lit/Inputs/run-omp19.sh" "$shim" "$build/app")
[ "$out" = "app: target region on the device: yes" ] || fail "app: '$out'"
echo "offload-flags-project: the probes, the tool and the program linked through offload-link with the offloading flags; both ran"
