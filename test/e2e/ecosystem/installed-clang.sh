#!/bin/sh
# installed-clang.sh TOOL_BUILD_DIR SHIM WORK OMP16_ROOT: offload-link
# installed into WORK/prefix (cmake --install), then an OpenMP program for the
# x86_64 offload target compiled and linked by clang 16 and by clang 19 the
# two ways docs/usage.md gives: clang -B PREFIX/libexec/offload-link, and
# clang --config=PREFIX/share/offload-link/clang.cfg (clang16.cfg for clang
# 16, which adds --offload-new-driver).  Each link is shown to be
# offload-link's (-Wl,--stats: a summary neither ld nor upstream's wrapper
# prints) and the program runs on its release's libomptarget CPU device.
set -eu
tool_build=$1 shim=$2 work=$3 omp16=$4
here=$(cd "$(dirname "$0")" && pwd)
program=$here/../../../examples/hello-offload.c
fail() { echo "installed-clang: $*" >&2; exit 1; }

rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
cmake --install "$tool_build" --prefix "$prefix" >/dev/null
cd "$work"

for version in 16 19; do
	clang=clang-$version
	command -v "$clang" >/dev/null || fail "no $clang on PATH"
	if [ $version = 16 ]; then
		libdir=$omp16/usr/lib/llvm-16/lib
		config=$prefix/share/offload-link/clang16.cfg
		# The -B way names the new driver itself; the config file adds it.
		b_flags="--offload-new-driver"
	else
		libdir=/usr/lib/llvm-19/lib
		config=$prefix/share/offload-link/clang.cfg
		b_flags=""
	fi
	[ -e "$libdir/libomptarget.so" ] || fail "no libomptarget.so in $libdir"
	for way in B config; do
		if [ $way = B ]; then
			set -- $b_flags -B "$prefix/libexec/offload-link"
		else
			set -- "--config=$config"
		fi
		name=hello-$version-$way
		echo "== clang $version, $*"
		# clang 16's runtime, unpacked in the build tree (whose path may have a space).
		[ $version != 16 ] || set -- "$@" -I "$libdir/clang/16/include" -L "$libdir"
		$clang "$@" -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu \
			-c "$program" -o "$name.o" || fail "$name: compile failed"
		$clang "$@" -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu \
			"$name.o" -o "$name" -Wl,--stats >"$name.log" 2>&1 || { cat "$name.log"; fail "$name: link failed"; }
		grep -q "^offload-link: stats" "$name.log" || { cat "$name.log"; fail "$name: the link did not go through offload-link"; }
		out=$(OL_OMP_LIBDIR=$libdir "$here/../../lit/Inputs/run-omp19.sh" "$shim" "./$name") ||
			{ echo "$out"; fail "$name: the program failed"; }
		echo "$out"
		echo "$out" | grep -q "^OK: the offloading link worked" || fail "$name: wrong output"
	done
done
echo "installed-clang: clang 16 and 19 linked through the installed offload-link with -B and --config=, and ran"
