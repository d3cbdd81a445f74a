#!/bin/sh
# cmake-project.sh TOOL_BUILD_DIR SHIM WORK: the CMake project in
# cmake-project/, configured with plain cmake and clang 19 against an
# offload-link installed into WORK/prefix (cmake --install):
#   cache    -DCMAKE_{EXE,SHARED}_LINKER_FLAGS=--config=PREFIX/share/offload-link/clang.cfg,
#            the project unchanged
#   package  find_package(OffloadLink) + offload_link_target()
# each with Ninja and with Unix Makefiles: built, run on libomptarget's CPU
# device, each link shown to be offload-link's (-Wl,--stats: offload-link's
# summary, which neither ld nor upstream's wrapper prints), then built again:
# nothing to do, nothing relinked (the files' times unchanged).
set -eu
tool_build=$1 shim=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
cmake --install "$tool_build" --prefix "$prefix" >/dev/null
stats=-Wl,--stats

fail() { echo "cmake-project: $*" >&2; exit 1; }

for way in cache package; do
	for generator in Ninja "Unix Makefiles"; do
		build=$work/$way-$(echo "$generator" | tr -d ' ')
		if [ $way = cache ]; then
			# The flags are a command line's text: the path quoted (it may have a space).
			set -- "-DCMAKE_EXE_LINKER_FLAGS=\"--config=$prefix/share/offload-link/clang.cfg\" $stats" \
				"-DCMAKE_SHARED_LINKER_FLAGS=\"--config=$prefix/share/offload-link/clang.cfg\" $stats"
		else
			set -- -DOFFLOAD_LINK_PACKAGE=ON "-DCMAKE_PREFIX_PATH=$prefix" \
				"-DCMAKE_EXE_LINKER_FLAGS=$stats" "-DCMAKE_SHARED_LINKER_FLAGS=$stats"
		fi
		echo "== $way, $generator"
		cmake -S "$here/cmake-project" -B "$build" -G "$generator" -DCMAKE_C_COMPILER=clang-19 \
			"$@" >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; fail "configure failed"; }
		cmake --build "$build" -j2 >"$build.log" 2>&1 || { cat "$build.log"; fail "build failed"; }
		# Both links (the program and the shared library) printed offload-link's summary.
		n=$(grep -c "^offload-link: stats" "$build.log" || true)
		[ "$n" -eq 2 ] || { cat "$build.log"; fail "$way/$generator: $n links through offload-link, expected 2"; }
		out=$("$here/../../lit/Inputs/run-omp19.sh" "$shim" "$build/app")
		echo "$out"
		[ "$out" = "dot = 501500, target region on the device: yes" ] || fail "$way/$generator: wrong output"
		before=$(stat -c %Y.%s "$build/app" "$build/libreduce.so")
		sleep 1
		cmake --build "$build" -j2 >"$build.again.log" 2>&1 || { cat "$build.again.log"; fail "rebuild failed"; }
		after=$(stat -c %Y.%s "$build/app" "$build/libreduce.so")
		[ "$before" = "$after" ] || fail "$way/$generator: the rebuild relinked"
		if [ "$generator" = Ninja ]; then
			ninja -C "$build" -n -d explain >"$build.explain" 2>&1
			grep -q "no work to do" "$build.explain" || { cat "$build.explain"; fail "ninja has work to do"; }
		else
			! grep -q "Linking" "$build.again.log" || { cat "$build.again.log"; fail "make relinked"; }
		fi
	done
done
echo "cmake-project: every build linked through offload-link, ran, and rebuilt as a no-op"
