#!/usr/bin/env bash
# gpu-check.sh: the end-to-end programs that can run on an NVIDIA GPU, each
# linked by offload-link and by upstream's clang-linker-wrapper, staged with
# the runtime libraries they need, and run.
#
#   scripts/gpu-check.sh [--arch sm_XX|host] [--dir DIR] [--hecbench HECBENCH]
#                        [--only NAME,...] [--budget SECONDS] [--repeat N] [stage|run]
#
# With no command it stages, then runs here.  DIR (default <checkout>/.gpu-check,
# which git ignores) is what travels to a GPU machine: at most 60 MiB.
#
# stage (on the build machine: this checkout's build/, clang 19 and 22, CUDA in
# $CUDA_PATH or /usr/local/cuda) builds test/gpu/ for --arch (default sm_90):
#   omp   OpenMP, clang 19 (two units, declare target across them), linked
#         by offload-link (ours19) and by clang 19's own wrapper (upstream19);
#         compiled again with -foffload-lto and linked by offload-link with
#         full device LTO (ours19-lto) and partitioned:1 (ours19-part1);
#   omp-timing  OpenMP, clang 19 -foffload-lto (three units), four kernels
#         that print their times: offload-link with full device LTO (full),
#         --device-lto=partitioned:1 (part1) and partitioned (partdef), and
#         clang 19's own wrapper (upstream19);
#         runtime of both: libomptarget 22 from Debian's liboffload-22
#         (downloaded with apt-get download into <checkout>/.gpu-check-cache,
#         never installed), which reads the cubins CUDA 13 writes where
#         libomptarget 19 cannot (docs/design/device-links-and-cache-key.md,
#         "Cubins the runtime cannot read"), and answers to libomptarget.so.19.1, the name clang 19's
#         programs ask for;
#   cuda  CUDA relocatable device code (-fgpu-rdc --offload-new-driver), the
#         static CUDA runtime: clang 19 linked by offload-link (ours19), clang
#         22 by offload-link (ours22) and by clang 22's wrapper (upstream22).
#         Upstream 19 cannot link it with CUDA 13: its fatbinary command uses
#         an option CUDA 13's fatbinary rejects (docs/compat.md).
# Each program checks the device's results against the host's and prints "ok"
# or "WRONG" per result; with no device it prints "no device" and exits 3.
#
# --hecbench HECBENCH (a checkout of github.com/zjin-lcf/HeCBench) stages as
# well the HeCBench OpenMP programs listed in scripts/gpu-check-hecbench.txt
# (names and arguments; --only picks some): each src/<name>-omp, its sources
# and -I/-D/-std= flags read from its Makefile, compiled by clang 19 with
# -foffload-lto and linked by offload-link with full device LTO (full) and
# --device-lto=partitioned (partdef; its --stats must show partitioned LTO),
# and by clang 19's own wrapper (upstream19), as progs/hec-<name>/<linkage>/,
# executables stripped and xz-compressed.  --arch host builds them for
# libomptarget's CPU device instead (-fopenmp-targets=x86_64-unknown-linux-gnu,
# into <checkout>/.gpu-check-host, run here on clang 19's libomptarget): the
# local check that the programs, the run rules and the timing table work.
#
# run (needs bash, coreutils, python3 or xz; nothing else of this machine)
# unpacks the runtime into $TMPDIR, links the driver's libcuda.so.1 there as
# libcuda.so (libomptarget asks for that name, which driver-only installs
# lack), checks with ldd that every program and runtime library loads from DIR
# (besides glibc, libstdc++, libgcc_s and the driver), then runs each with
# OMP_TARGET_OFFLOAD=MANDATORY, in a scratch folder under $TMPDIR.  A linkage
# folder DIR/progs/<prog>/<linkage>/ holds the executable <prog> (or <prog>.xz,
# unpacked into $TMPDIR first), RT (the runtime: omp22, none, or host19 for
# clang 19's libomptarget installed here, whose CPU device counts as a
# device), and optionally:
#   ARGS      one line: the program's arguments (split at white space);
#   EXPECTED  the exact expected output, "time " lines left out of both;
#   PASS_RE   an ERE some output line must match;
#   TIMEOUT   seconds before the run is killed (default 120).
# With a device (nvidia-smi lists a GPU, or RT is host19) a run passes when it
# exits 0 and: with EXPECTED, its output (less "time " lines) equals it; else
# with PASS_RE, a line matches it and none matches FAIL or WRONG; else it says
# "ok" (lines ending ": ok") and nothing says "WRONG".  Without one, when it
# says "no device" and exits 3, or stops with libomptarget's message that
# offloading is mandatory ("... offloading is mandatory").  A program's
# linkages must print the same lines but "time " lines and lines matching the
# ERE in DIR/progs/<prog>/IGNORE_RE (if any); before comparing, lines that
# mention a time with a unit ("Average kernel execution time: 12.3 (us)",
# "Total time 1.5e-3 (s)", "... (ms): 4.2") become "time <label> <us>", the
# label made of the words before the number (a repeated label gets #2, #3).
# The "time" lines make a table of each kernel's time per linkage and its ratio
# to "full" (else the program's first linkage), with the geometric mean of the
# ratios per linkage.  With --repeat N (or $REPEAT) every linkage that passed
# and printed "time " lines runs N-1 times more, a round over all of them
# after another (each program's linkages one after the other, so that a drift
# of the GPU's clocks touches them alike, and in an order rotated each round:
# the first of a program's runs can be faster or slower than the next), and
# the table takes each kernel's best time.  No program starts once BUDGET
# seconds (--budget, or $BUDGET; default 240) have passed since the run
# began: those are listed as skipped (HeCBench's programs run last; a round
# cut short is said so).  Results: stdout and DIR/results/
# (each run's output and its normalized lines; the table in timing.md).  The
# exit status is 0 when every program ran and passed (the times do not count).
set -u
export LC_ALL=C
ME="gpu-check.sh"
die() { echo "$ME: $*" >&2; exit 2; }

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
ARCH=sm_90
DIR=$REPO/.gpu-check
DIR_SET=0
CMD=all
LIMIT_MIB=60
HEC=''
ONLY=''
BUDGET=${BUDGET:-240}
REPEAT=${REPEAT:-1}
while [ $# -gt 0 ]; do
	case $1 in
	--arch) ARCH=${2:-}; shift ;;
	--arch=*) ARCH=${1#--arch=} ;;
	--dir) DIR=${2:-}; DIR_SET=1; shift ;;
	--dir=*) DIR=${1#--dir=}; DIR_SET=1 ;;
	--hecbench) HEC=${2:-}; shift ;;
	--hecbench=*) HEC=${1#--hecbench=} ;;
	--only) ONLY=${2:-}; shift ;;
	--only=*) ONLY=${1#--only=} ;;
	--budget) BUDGET=${2:-}; shift ;;
	--budget=*) BUDGET=${1#--budget=} ;;
	--repeat) REPEAT=${2:-}; shift ;;
	--repeat=*) REPEAT=${1#--repeat=} ;;
	stage|run) CMD=$1 ;;
	-h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
[[ $ARCH =~ ^(sm_[0-9]+a?|host)$ ]] || die "--arch takes sm_XX or host, not '$ARCH'"
[[ $BUDGET =~ ^[0-9]+$ ]] || die "the budget is a number of seconds, not '$BUDGET'"
[[ $REPEAT =~ ^[1-9][0-9]*$ ]] || die "--repeat takes a number of runs, not '$REPEAT'"
[ "$ARCH" = host ] && [ $DIR_SET = 0 ] && DIR=$REPO/.gpu-check-host

# ---- stage ------------------------------------------------------------------

BUILD=${OL_BUILD_DIR:-$REPO/build}
CUDA=${CUDA_PATH:-/usr/local/cuda}
CACHE=${GPU_CHECK_CACHE:-$REPO/.gpu-check-cache}
OMP19_LIB=/usr/lib/llvm-19/lib
# Libraries every Linux machine has, never staged (the loader, glibc).
GLIBC_RE='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|libpthread|librt)\.so'

# link <log> <command...>: runs a link, its messages into <log>; says what
# offload-link warned about.
link() {
	local log=$1
	shift
	if ! "$@" > "$log" 2>&1; then
		echo "$ME: link failed: $*" >&2
		cat "$log" >&2
		return 1
	fi
	# The warning that libomptarget 19 cannot read CUDA 13's cubins (the
	# programs run on 22) once, the others for each link.
	local skip='^$'
	[ $ABI_WARNED = 0 ] || skip='is a cubin of CUDA ELF ABI version'
	grep -h 'warning:' "$log" | grep -v -- "$skip" |
		sed "s|^|    $(basename "$(dirname "$log")"): |"
	grep -q 'is a cubin of CUDA ELF ABI version' "$log" && ABI_WARNED=1
	return 0
}
ABI_WARNED=0

# The OpenMP program, clang 19: ours19 and upstream19; compiled again with
# -foffload-lto (device bitcode), offload-link with full LTO (ours19-lto) and
# partitioned LTO (ours19-part1).
stage_omp() {
	local work=$CACHE/build/omp dest=$DIR/progs/omp l
	local cc=(clang-19 -O2 -fopenmp --offload-arch="$ARCH" --cuda-path="$CUDA"
		--libomptarget-nvptx-bc-path="$OMP19_LIB")
	# With device bitcode clang leaves the bitcode runtime to the link
	# (libomptarget.devicertl.a) and says the path is unused.
	local lto=("${cc[@]}" -foffload-lto -Wno-unused-command-line-argument)
	mkdir -p "$work" || return 1
	for l in ours19 upstream19 ours19-lto ours19-part1; do
		mkdir -p "$dest/$l" && echo omp22 > "$dest/$l/RT" || return 1
	done
	"${cc[@]}" -c "$REPO/test/gpu/omp-main.c" -o "$work/omp-main.o" &&
		"${cc[@]}" -c "$REPO/test/gpu/omp-lib.c" -o "$work/omp-lib.o" &&
		"${lto[@]}" -c "$REPO/test/gpu/omp-main.c" -o "$work/omp-main-lto.o" &&
		"${lto[@]}" -c "$REPO/test/gpu/omp-lib.c" -o "$work/omp-lib-lto.o" || return 1
	link "$dest/ours19/link.log" "${cc[@]}" -B "$BUILD/libexec/offload-link" \
		"$work/omp-main.o" "$work/omp-lib.o" -L"$OMP19_LIB" -o "$dest/ours19/omp" &&
		link "$dest/upstream19/link.log" "${cc[@]}" "$work/omp-main.o" "$work/omp-lib.o" \
			-L"$OMP19_LIB" -o "$dest/upstream19/omp" &&
		link "$dest/ours19-lto/link.log" "${lto[@]}" -B "$BUILD/libexec/offload-link" \
			"$work/omp-main-lto.o" "$work/omp-lib-lto.o" -L"$OMP19_LIB" -o "$dest/ours19-lto/omp" &&
		link "$dest/ours19-part1/link.log" "${lto[@]}" -B "$BUILD/libexec/offload-link" \
			-Wl,--device-lto=partitioned:1 -Wl,--stats -Wl,--no-cache \
			"$work/omp-main-lto.o" "$work/omp-lib-lto.o" -L"$OMP19_LIB" -o "$dest/ours19-part1/omp" ||
		return 1
	partitions "$dest/ours19-part1/link.log"
}

# partitions <log>: says how many partitions a partitioned link made (from
# offload-link's --stats; such links pass --no-cache, as a cache hit would
# partition nothing); fails when it made none.
partitions() {
	local what
	what=$(sed -n 's/^ *partitioned LTO: //p' "$1")
	[ -n "$what" ] || { echo "$ME: $1: no partitioned LTO in the link" >&2; return 1; }
	echo "    $(basename "$(dirname "$1")"): $what"
}

# The timing program (OpenMP, clang 19, -foffload-lto), linked by offload-link
# with full LTO (full), partitioned LTO in partitions of one module (part1) and
# of the default size (partdef), and by clang 19's own wrapper (upstream19).
stage_omp_timing() {
	local work=$CACHE/build/omp-timing dest=$DIR/progs/omp-timing l u objs=()
	local cc=(clang-19 -O2 -fopenmp --offload-arch="$ARCH" --cuda-path="$CUDA"
		--libomptarget-nvptx-bc-path="$OMP19_LIB" -foffload-lto -Wno-unused-command-line-argument)
	local ours=("${cc[@]}" -B "$BUILD/libexec/offload-link")
	mkdir -p "$work" || return 1
	for u in main lib ops; do
		"${cc[@]}" -c "$REPO/test/gpu/omp-timing-$u.c" -o "$work/omp-timing-$u.o" || return 1
		objs+=("$work/omp-timing-$u.o")
	done
	for l in full part1 partdef upstream19; do
		mkdir -p "$dest/$l" && echo omp22 > "$dest/$l/RT" || return 1
	done
	link "$dest/full/link.log" "${ours[@]}" "${objs[@]}" -L"$OMP19_LIB" -o "$dest/full/omp-timing" &&
		link "$dest/part1/link.log" "${ours[@]}" -Wl,--device-lto=partitioned:1 -Wl,--stats -Wl,--no-cache \
			"${objs[@]}" -L"$OMP19_LIB" -o "$dest/part1/omp-timing" &&
		link "$dest/partdef/link.log" "${ours[@]}" -Wl,--device-lto=partitioned -Wl,--stats -Wl,--no-cache \
			"${objs[@]}" -L"$OMP19_LIB" -o "$dest/partdef/omp-timing" &&
		link "$dest/upstream19/link.log" "${cc[@]}" "${objs[@]}" -L"$OMP19_LIB" \
			-o "$dest/upstream19/omp-timing" || return 1
	partitions "$dest/part1/link.log" && partitions "$dest/partdef/link.log"
}

# The CUDA program: clang 19 through offload-link, clang 22 through both.
stage_cuda() {
	local work=$CACHE/build/cuda dest=$DIR/progs/cuda v
	mkdir -p "$work" || return 1
	for v in 19 22; do
		local cc=("clang++-$v" -O2 -x cuda --offload-new-driver -fgpu-rdc --offload-arch="$ARCH"
			-nocudainc -nocudalib --cuda-path="$CUDA" -Wno-unknown-cuda-version)
		local ld=("clang++-$v" --offload-new-driver -fgpu-rdc --offload-arch="$ARCH" --cuda-path="$CUDA"
			"$work/main$v.o" "$work/kern$v.o" -L"$CUDA/lib64" -lcudart_static -ldl -lrt -lpthread)
		"${cc[@]}" -c "$REPO/test/gpu/cuda-main.cu" -o "$work/main$v.o" &&
			"${cc[@]}" -c "$REPO/test/gpu/cuda-kern.cu" -o "$work/kern$v.o" || return 1
		mkdir -p "$dest/ours$v" && echo none > "$dest/ours$v/RT" || return 1
		link "$dest/ours$v/link.log" "${ld[@]}" -B "$BUILD/libexec/offload-link" \
			-o "$dest/ours$v/cuda" || return 1
		[ $v = 19 ] && continue
		mkdir -p "$dest/upstream$v" && echo none > "$dest/upstream$v/RT" || return 1
		link "$dest/upstream$v/link.log" "${ld[@]}" -o "$dest/upstream$v/cuda" || return 1
	done
}

# ---- HeCBench ---------------------------------------------------------------

HEC_LIST=$REPO/scripts/gpu-check-hecbench.txt

# hec_make <Makefile>: "<sources>|<flags>" from a HeCBench Makefile: its
# "source =" list and the -I, -D and -std= words of its unindented CFLAGS
# assignments (the indented ones belong to other compilers' branches).
hec_make() {
	awk '
		{ while ($0 ~ /\\$/) { sub(/\\$/, ""); l = $0; if ((getline n) <= 0) break; $0 = l " " n } }
		/^source[ \t]*:?=/ { sub(/^source[ \t]*:?=[ \t]*/, ""); src = $0 }
		/^CFLAGS[ \t]*[:+]?=/ {
			sub(/^CFLAGS[ \t]*[:+]?=/, "")
			for (i = 1; i <= NF; i++) if ($i ~ /^-(I|D|std=)/) fl = fl " " $i
		}
		END { print src "|" fl }' "$1"
}

# pack <executable>: strips it and replaces it with <executable>.xz.
pack() {
	strip "$1" && xz -9 -f "$1"
}

# The HeCBench programs of HEC_LIST (lines "<name> | <arguments> [| <IGNORE_RE>]"),
# each src/<name>-omp of HEC, compiled by clang 19 with -foffload-lto for ARCH
# (or the CPU device with --arch host), linked by offload-link with full
# device LTO (full) and partitioned (partdef), and by clang 19's wrapper
# (upstream19), as progs/hec-<name>/<linkage>/.
stage_hecbench() {
	local tried=0 compiled=0 linked=0 skipped=0 why=() line name args words ignore
	local d mk src flags s obj objs work dest l prog rt ok
	local dev=(--offload-arch="$ARCH" --cuda-path="$CUDA" --libomptarget-nvptx-bc-path="$OMP19_LIB")
	rt=omp22
	if [ "$ARCH" = host ]; then
		dev=(-fopenmp-targets=x86_64-unknown-linux-gnu)
		rt=host19
	fi
	local cc=(clang++-19 -O2 -fopenmp "${dev[@]}" -foffload-lto -Wno-unused-command-line-argument)
	local ours=("${cc[@]}" -B "$BUILD/libexec/offload-link")
	[ -f "$HEC_LIST" ] || die "no $HEC_LIST"
	while IFS= read -r line; do
		line=${line%%#*}
		[[ $line =~ [^[:space:]] ]] || continue
		IFS='|' read -r name args ignore <<< "$line"
		read -r name <<< "$name"
		read -r -a words <<< "$args"
		args=${words[*]}
		ignore=$(sed 's/^ *//; s/ *$//' <<< "$ignore")
		if [ -n "$ONLY" ] && [[ ,$ONLY, != *,$name,* ]]; then
			continue
		fi
		tried=$((tried + 1))
		d=$HEC/src/$name-omp
		prog=hec-$name
		dest=$DIR/progs/$prog
		work=$CACHE/build/hec-$ARCH/$name
		mk=$d/Makefile
		if [ ! -f "$mk" ]; then
			skipped=$((skipped + 1)); why+=("$name: no $mk"); continue
		fi
		IFS='|' read -r src flags <<< "$(hec_make "$mk")"
		rm -rf "$work" && mkdir -p "$work" || return 1
		objs=()
		ok=1
		for s in $src; do
			obj=$work/$(basename "${s%.*}").o
			# shellcheck disable=SC2086 # flags are words
			if ! (cd "$d" && "${cc[@]}" $flags -c "$s" -o "$obj") > "$work/compile.log" 2>&1; then
				ok=0
				break
			fi
			objs+=("$obj")
		done
		if [ $ok = 0 ] || [ ${#objs[@]} = 0 ]; then
			skipped=$((skipped + 1))
			why+=("$name: does not compile: $(grep -m1 'error' "$work/compile.log" | cut -c1-150)")
			continue
		fi
		compiled=$((compiled + 1))
		for l in full partdef upstream19; do
			mkdir -p "$dest/$l" || return 1
		done
		if link "$dest/full/link.log" "${ours[@]}" -Wl,--device-lto=full "${objs[@]}" \
				-L"$OMP19_LIB" -o "$dest/full/$prog" &&
			link "$dest/partdef/link.log" "${ours[@]}" -Wl,--device-lto=partitioned -Wl,--stats -Wl,--no-cache \
				"${objs[@]}" -L"$OMP19_LIB" -o "$dest/partdef/$prog" &&
			link "$dest/upstream19/link.log" "${cc[@]}" "${objs[@]}" -L"$OMP19_LIB" \
				-o "$dest/upstream19/$prog" &&
			# For the CPU device the runtime is no bitcode of its own, so
			# a program of up to 8 units is one partition: nothing to split.
			{ [ "$ARCH" = host ] || partitions "$dest/partdef/link.log" | sed "s/^    /    $prog: /"; }; then
			:
		else
			rm -rf "$dest"
			skipped=$((skipped + 1)); why+=("$name: a link failed or made no partitions")
			continue
		fi
		for l in full partdef upstream19; do
			echo "$rt" > "$dest/$l/RT" &&
				echo "$args" > "$dest/$l/ARGS" &&
				echo '(^|[^A-Za-z])PASS([^A-Za-z]|$)' > "$dest/$l/PASS_RE" &&
				echo 30 > "$dest/$l/TIMEOUT" &&
				pack "$dest/$l/$prog" || return 1
		done
		[ -z "$ignore" ] || printf '%s\n' "$ignore" > "$dest/IGNORE_RE"
		# Identical machine code makes any difference of their times noise
		# (GPU images; the CPU device's are not compared).
		if [ "$ARCH" != host ]; then
			python3 "$REPO/scripts/lib/same-device-code.py" "$dest"/full/"$prog"* \
				"$dest"/partdef/"$prog"* "$dest"/upstream19/"$prog"* > "$dest/CODE" 2>&1
			echo "    $prog: against full: $(sed -E 's|^.*/([a-z0-9]+)/[^/:]*: ([^(;]*).*|\1: \2|' \
				"$dest/CODE" | paste -sd, | sed 's/ *,/, /g; s/ *$//')"
		fi
		linked=$((linked + 1))
	done < "$HEC_LIST"
	echo "  HeCBench: $tried tried, $compiled compiled, $linked linked three ways, $skipped skipped"
	for line in "${why[@]}"; do
		echo "    skipped $line"
	done
	[ $linked -gt 0 ]
}

# libomptarget 22 and every library it loads but glibc, stripped, packed with
# xz into DIR/rt/omp22.tar.xz (about 45 MB: libLLVM is most of it); packed
# once into the cache, again only when one of its files changes.
stage_omp22_runtime() {
	local src=/usr/lib/llvm-22/lib stage=$CACHE/rt/omp22 tarball=$CACHE/rt/omp22.tar.xz
	local deb stamp added lib arrow path dest
	if [ ! -f "$src/libomptarget.so.22.1" ]; then
		src=$CACHE/liboffload-22/usr/lib/llvm-22/lib
		if [ ! -f "$src/libomptarget.so.22.1" ]; then
			mkdir -p "$CACHE/debs" && chmod 0777 "$CACHE/debs" || return 1
			echo "  apt-get download liboffload-22 (into $CACHE/debs, not installed)"
			(cd "$CACHE/debs" && apt-get download liboffload-22 > /dev/null) || {
				echo "$ME: apt-get download liboffload-22 failed" >&2
				return 1
			}
			deb=$(ls -t "$CACHE"/debs/liboffload-22_*.deb | head -n1)
			rm -rf "$CACHE/liboffload-22" && dpkg -x "$deb" "$CACHE/liboffload-22" || return 1
		fi
	fi
	# Repacked when libomptarget or anything it loads changes.
	stamp=$({ ls -lL "$src/libomptarget.so.22.1"; ldd "$src/libomptarget.so.22.1" |
		awk '$3 ~ /^\// { print $3 }' | xargs ls -lL; } | sha256sum)
	if [ ! -f "$tarball" ] || [ "$(cat "$tarball.stamp" 2> /dev/null)" != "$stamp" ]; then
		echo "  packing libomptarget 22 and what it loads (xz -9, a few minutes)"
		rm -rf "$stage" && mkdir -p "$stage/compat" || return 1
		cp -L "$src/libomptarget.so.22.1" "$stage/" || return 1
		# clang 19's programs ask for libomptarget.so.19.1; 22 reads their
		# registration (it upgrades their offload entries).
		ln -s libomptarget.so.22.1 "$stage/libomptarget.so.19.1"
		# The dependency closure: a copied library may resolve its own
		# needs differently, so until a pass adds nothing.
		for _ in 1 2 3 4; do
			added=0
			while read -r lib arrow path _; do
				[ "$arrow" = "=>" ] || continue
				[[ $lib =~ $GLIBC_RE ]] && continue
				[ "$path" != not ] || { echo "$ME: $lib not found (needed by libomptarget 22)" >&2; return 1; }
				case $lib in
				libstdc++.so.6|libgcc_s.so.1) dest=$stage/compat/$lib ;;
				*) dest=$stage/$lib ;;
				esac
				[ -e "$dest" ] && continue
				cp -L "$path" "$dest" && strip --strip-unneeded "$dest" || return 1
				added=1
			done < <(LD_LIBRARY_PATH=$stage:$stage/compat ldd "$stage"/*.so* "$stage"/compat/*.so* 2> /dev/null |
				sort -u)
			[ $added = 0 ] && break
		done
		strip --strip-unneeded "$stage/libomptarget.so.22.1" || return 1
		(cd "$stage" && tar -cf - --owner=0 --group=0 --sort=name . | xz -9 -T2 > "$tarball.tmp") &&
			mv "$tarball.tmp" "$tarball" && printf '%s\n' "$stamp" > "$tarball.stamp" || return 1
	fi
	mkdir -p "$DIR/rt" && cp "$tarball" "$DIR/rt/omp22.tar.xz" &&
		(cd "$stage" && find . -type f -printf '%P %s\n' | sort) > "$DIR/rt/omp22.MANIFEST"
}

# "release 13.0, V13.0.88", from nvlink's version line.
cuda_release() {
	"$CUDA/bin/nvlink" --version | sed -n 's/^Cuda compilation tools, //p'
}

stage() {
	local t size
	[ -x "$BUILD/libexec/offload-link/clang-linker-wrapper" ] ||
		die "no $BUILD/libexec/offload-link/clang-linker-wrapper: build first (scripts/bootstrap.sh)"
	if [ -n "$HEC" ]; then
		[ -d "$HEC/src" ] || die "--hecbench $HEC: no src/ there (a HeCBench checkout)"
		HEC=$(cd "$HEC" && pwd -P)
	fi
	if [ "$ARCH" = host ]; then
		[ -n "$HEC" ] || die "--arch host stages only the HeCBench programs: give --hecbench"
		for t in clang++-19 strip xz; do
			command -v "$t" > /dev/null || die "'$t' is required to stage"
		done
		rm -rf "$DIR" && mkdir -p "$DIR/progs" || die "cannot create $DIR"
		DIR=$(cd "$DIR" && pwd -P)
		echo "# staging into $DIR for libomptarget's CPU device (clang 19's runtime, here only)"
		stage_hecbench || die "staging the HeCBench programs failed"
		echo "arch host" > "$DIR/STAGED"
		echo "# staged: $(find "$DIR/progs" -name RT | wc -l) program linkages, $(du -sh "$DIR" | cut -f1)"
		return 0
	fi
	for t in clang-19 clang++-19 clang++-22 "$CUDA/bin/ptxas" "$CUDA/bin/nvlink" ldd strip xz dpkg sha256sum; do
		command -v "$t" > /dev/null || die "'$t' is required to stage"
	done
	[ -f "$OMP19_LIB/libomptarget-nvptx-$ARCH.bc" ] ||
		die "clang 19 has no OpenMP device runtime for $ARCH ($OMP19_LIB/libomptarget-nvptx-$ARCH.bc)"
	rm -rf "$DIR" && mkdir -p "$DIR/progs" || die "cannot create $DIR"
	DIR=$(cd "$DIR" && pwd -P)
	echo "# staging into $DIR for $ARCH, CUDA tools in $CUDA ($(cuda_release))"
	echo "  omp: clang 19, offload-link and upstream 19; -foffload-lto, offload-link full and partitioned:1"
	stage_omp || die "staging the OpenMP program failed"
	echo "  omp-timing: clang 19 -foffload-lto, offload-link full, partitioned:1 and partitioned; upstream 19"
	stage_omp_timing || die "staging the OpenMP timing program failed"
	echo "  cuda: clang 19 with offload-link, clang 22 with offload-link and upstream 22"
	stage_cuda || die "staging the CUDA program failed"
	if [ -n "$HEC" ]; then
		echo "  HeCBench ($HEC, $(git -C "$HEC" rev-parse --short HEAD 2> /dev/null)): clang 19 -foffload-lto, offload-link full and partitioned; upstream 19"
		stage_hecbench || die "staging the HeCBench programs failed"
	fi
	echo "  runtime omp22"
	stage_omp22_runtime || die "staging libomptarget 22 failed"
	{
		echo "arch $ARCH"
		echo "staged $(date -u '+%Y-%m-%d %H:%M:%SZ') from $(git -C "$REPO" rev-parse --short HEAD 2> /dev/null)"
		echo "cuda $(cuda_release)"
		[ -z "$HEC" ] || echo "hecbench $(git -C "$HEC" rev-parse --short HEAD 2> /dev/null)"
	} > "$DIR/STAGED"
	size=$(du -sb "$DIR" | cut -f1)
	echo "# staged: $(find "$DIR/progs" -name RT | wc -l) program linkages, $size bytes ($(((size + 524288) / 1048576)) MiB; runtime $(du -sb "$DIR/rt" | cut -f1) bytes)"
	[ "$size" -le $((LIMIT_MIB * 1048576)) ] || die "$DIR is over $LIMIT_MIB MiB"
}

# ---- run --------------------------------------------------------------------

# ldd, or the loader's --list where a machine has no ldd.
lddx() {
	local f
	if command -v ldd > /dev/null 2>&1; then
		ldd "$@" 2>&1
	else
		for f; do echo "$f:"; /lib64/ld-linux-x86-64.so.2 --list "$f" 2>&1; done
	fi
}

# unpack <tarball> <dest>: xz and tar, else python3 (GPU machines may lack xz).
unpack() {
	rm -rf "$2" "$2.tmp" && mkdir -p "$2.tmp" || return 1
	if command -v xz > /dev/null 2>&1; then
		xz -dc "$1" | tar -xf - -C "$2.tmp"
	else
		python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2.tmp"
	fi && mv "$2.tmp" "$2"
}

# The driver's libcuda.so.1: the loader's cache, else the usual folders.
find_libcuda() {
	local d found
	found=$({ ldconfig -p 2> /dev/null || /sbin/ldconfig -p 2> /dev/null; } |
		awk '/libcuda\.so\.1 .*x86-64/ { print $NF; exit }')
	if [ -z "$found" ]; then
		for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/nvidia/lib64 /usr/lib/wsl/lib; do
			[ -e "$d/libcuda.so.1" ] && { found=$d/libcuda.so.1; break; }
		done
	fi
	printf '%s' "$found"
}

# unxz <file.xz> <dest>: xz, else python3's lzma.
unxz_to() {
	if command -v xz > /dev/null 2>&1; then
		xz -dc "$1" > "$2"
	else
		python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1" > "$2"
	fi
}

# timelines: the output on stdin with the lines that give a time with a unit
# made "time <label> <microseconds>" (HeCBench's "Average kernel execution
# time: 12.3 (us)", "Total kernel execution time 1.5 (s)", "... time (ms): 4.2");
# the label is the words before the number, a repeated one numbered #2, #3.
timelines() {
	awk '
		function us(v, u) {
			if (u ~ /^(s|sec|secs|second|seconds)$/) return v * 1e6
			if (u ~ /^(ms|msec|msecs)$/) return v * 1e3
			if (u ~ /^(ns|nsec|nsecs)$/) return v / 1e3
			return v
		}
		BEGIN {
			num = "[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?"
			after = num "[ \t]*[(]?(s|sec|secs|second|seconds|ms|msec|msecs|us|usec|usecs|ns|nsec|nsecs)[)]?([^a-z/]|$)"
			before = "[(](s|ms|us|ns)[)][ \t]*[:=]?[ \t]*" num
		}
		/^time / { print; next }
		{
			low = tolower($0)
			if (low !~ /time/) { print; next }
			if (match(low, after)) {
				seg = substr(low, RSTART, RLENGTH); label = substr(low, 1, RSTART - 1)
				match(seg, num); v = substr(seg, RSTART, RLENGTH); u = substr(seg, RSTART + RLENGTH)
				gsub(/[^a-z]/, "", u)
			} else if (match(low, before)) {
				seg = substr(low, RSTART, RLENGTH); label = substr(low, 1, RSTART - 1)
				match(seg, /[(][a-z]+[)]/); u = substr(seg, RSTART + 1, RLENGTH - 2)
				match(seg, num "$"); v = substr(seg, RSTART, RLENGTH)
			} else { print; next }
			gsub(/[^a-z0-9_<>.+]+/, "-", label)
			gsub(/^[-.]+|[-.]+$/, "", label)
			if (label == "") label = "time"
			if (++seen[label] > 1) label = label "#" seen[label]
			printf "time %s %.3f\n", label, us(v + 0, u)
		}'
}

run() {
	local rtroot=${TMPDIR:-/tmp}/gpu-check-rt results gpu=0 gpu_name='' libcuda failed=0 passed=0
	local rel dir prog linkage rt lp out rc verdict line tb exe dev limit args work ign
	local began=$SECONDS skipped=() mandatory='offloading is mandatory'
	local -A rtpath=() rtldd=() again=()
	local timed=() order=() round
	[ -d "$DIR/progs" ] || die "nothing staged in $DIR (run '$ME stage' first)"
	DIR=$(cd "$DIR" && pwd -P)
	results=$DIR/results
	rm -rf "$results" "${rtroot:?}/bin" "${rtroot:?}/work" && mkdir -p "$results" "$rtroot/driver" ||
		die "cannot create $results"
	echo "# running $DIR ($(tr '\n' ';' 2> /dev/null < "$DIR/STAGED")), budget ${BUDGET}s"
	if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L 2> /dev/null | grep -q '^GPU '; then
		gpu=1
		gpu_name=$(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader | head -n1)
		echo "GPU: $gpu_name"
	else
		echo "GPU: none (no nvidia-smi, or it lists none): every GPU program must report no device"
	fi
	libcuda=$(find_libcuda)
	rm -f "$rtroot/driver/libcuda.so"
	[ -n "$libcuda" ] && ln -s "$libcuda" "$rtroot/driver/libcuda.so"
	echo "libcuda: ${libcuda:-not found}"
	for tb in "$DIR"/rt/*.tar.xz; do
		[ -e "$tb" ] || continue
		unpack "$tb" "$rtroot/$(basename "$tb" .tar.xz)" || { echo "FAIL cannot unpack $tb"; return 1; }
	done

	# HeCBench's programs last: the budget, if it runs out, cuts them.
	local dirs=() d
	for d in "$DIR"/progs/*/*/; do
		[[ $d == "$DIR"/progs/hec-* ]] || dirs+=("$d")
	done
	for d in "$DIR"/progs/hec-*/*/; do
		[ -d "$d" ] && dirs+=("$d")
	done
	for dir in "${dirs[@]}"; do
		dir=${dir%/}
		linkage=${dir##*/}
		prog=$(basename "$(dirname "$dir")")
		rel=$prog/$linkage
		[ -f "$dir/RT" ] || continue
		if [ $((SECONDS - began)) -ge "$BUDGET" ]; then
			skipped+=("$rel")
			continue
		fi
		rt=$(cat "$dir/RT")
		mkdir -p "$results/$rel"
		exe=$dir/$prog
		if [ ! -e "$exe" ] && [ -e "$exe.xz" ]; then
			exe=$rtroot/bin/$rel/$prog
			mkdir -p "$rtroot/bin/$rel" && unxz_to "$dir/$prog.xz" "$exe" && chmod +x "$exe" || {
				echo "FAIL $rel: cannot unpack $dir/$prog.xz"
				failed=$((failed + 1))
				continue
			}
		fi
		dev=$gpu
		lp=$dir
		case $rt in
		none) ;;
		host19) lp+=:$OMP19_LIB; dev=1 ;;
		*)
			# The machine's own libstdc++ and libgcc_s unless they are missing
			# or too old for the runtime; what the runtime loads: once per runtime.
			if [ -z "${rtpath[$rt]+set}" ]; then
				rtpath[$rt]=$rtroot/$rt
				if LD_LIBRARY_PATH=$rtroot/$rt:$rtroot/driver lddx "$rtroot/$rt"/*.so* |
					grep -Eq "(libstdc\+\+|libgcc_s)[^ ]* => not found|(GLIBCXX|CXXABI|GCC)_[0-9.]+' not found"; then
					rtpath[$rt]+=:$rtroot/$rt/compat
				fi
				rtldd[$rt]=$(LD_LIBRARY_PATH=${rtpath[$rt]}:$rtroot/driver lddx "$rtroot/$rt"/*.so*)
			fi
			lp+=:${rtpath[$rt]}
			;;
		esac
		lp+=:$rtroot/driver
		# What the program and its runtime load, and from where (host19: from
		# this machine, only that everything is found).
		line=$( { LD_LIBRARY_PATH=$lp lddx "$exe"; case $rt in none|host19) ;; *) printf '%s\n' "${rtldd[$rt]}" ;; esac; } |
			awk -v a="$dir/" -v b="$rtroot/" -v g="$GLIBC_RE" -v any="$([ "$rt" = host19 ] && echo 1)" '
				/=>/ && $3 == "not" { print $1 " not found"; next }
				/=>/ { if (any || index($3, a) == 1 || index($3, b) == 1 || $1 ~ g) next
				       if ($1 ~ /^(libstdc\+\+|libgcc_s)\.so/ || $1 ~ /^lib(cuda|nvidia-)/) next
				       print $1 " from " $3 }' | sort -u | tr '\n' ' ')
		if [ -n "$line" ]; then
			echo "FAIL $rel: libraries missing or from outside the staged folder: $line"
			failed=$((failed + 1))
			continue
		fi
		args=()
		[ -f "$dir/ARGS" ] && read -r -a args < "$dir/ARGS"
		limit=120
		[ -f "$dir/TIMEOUT" ] && limit=$(tr -dc '0-9' < "$dir/TIMEOUT")
		work=$rtroot/work/$rel
		mkdir -p "$work"
		out=$results/$rel/output
		run_program "$out"
		rc=$?
		echo "$rc" > "$results/$rel/status"
		timelines < "$out" > "$results/$rel/lines"
		if grep -q 'error while loading shared libraries\|cannot open shared object' "$out"; then
			verdict="FAIL $rel: a library did not load: $(grep -m1 'shared' "$out")"
		elif [ $rc = 124 ] || [ $rc = 137 ]; then
			verdict="FAIL $rel: killed after ${limit:-120}s"
		elif [ $dev = 0 ]; then
			if [ $rc = 3 ] && grep -q '^no device:' "$out"; then
				verdict="PASS $rel: $(grep -m1 '^no device:' "$out")"
			elif [ $rc != 0 ] && grep -q "$mandatory" "$out"; then
				verdict="PASS $rel: no device: $(grep -m1 "$mandatory" "$out" | cut -c1-160)"
			else
				verdict="FAIL $rel: exit $rc without a device: $(grep -m1 -E 'error|fatal|no device|.' "$out" | cut -c1-200)"
			fi
		elif [ -f "$dir/EXPECTED" ]; then
			if [ $rc = 0 ] && diff -q <(grep -v '^time ' "$out") <(grep -v '^time ' "$dir/EXPECTED") > /dev/null; then
				verdict="PASS $rel: output as expected ($(grep -vc '^time ' "$out") lines)"
			else
				verdict="FAIL $rel: exit $rc, output$(diff <(grep -v '^time ' "$out") <(grep -v '^time ' "$dir/EXPECTED") > /dev/null && echo ' as expected' || echo ' differs from EXPECTED:') $(diff <(grep -v '^time ' "$out") <(grep -v '^time ' "$dir/EXPECTED") | grep -m1 '^[<>]' | cut -c1-160)"
			fi
		elif [ -f "$dir/PASS_RE" ]; then
			if [ $rc = 0 ] && grep -Eq -f "$dir/PASS_RE" "$out" && ! grep -Eq 'FAIL|WRONG' "$out"; then
				verdict="PASS $rel: $(grep -Em1 -f "$dir/PASS_RE" "$out" | cut -c1-120)"
			else
				verdict="FAIL $rel: exit $rc: $(grep -m1 -E 'FAIL|WRONG|error|fatal' "$out" | cut -c1-200)"
			fi
		elif [ $rc = 0 ] && grep -q ': ok$' "$out" && ! grep -q 'WRONG' "$out"; then
			verdict="PASS $rel: $(grep -c ': ok$' "$out") results ok"
		else
			verdict="FAIL $rel: exit $rc: $(grep -m1 -E 'WRONG|error|fatal|no device|.' "$out" | cut -c1-200)"
		fi
		echo "$verdict"
		case $verdict in PASS*) passed=$((passed + 1)) ;; *) failed=$((failed + 1)) ;; esac
		if [[ $verdict == PASS* ]] && [ $dev = 1 ] && grep -q '^time ' "$results/$rel/lines"; then
			timed+=("$rel")
			again[$rel]=$(declare -p exe lp limit work args)
		fi
	done

	# More runs of the timed linkages, for the best time of each kernel.
	for ((round = 2; round <= REPEAT; round++)); do
		mapfile -t order < <(printf '%s\n' "${timed[@]}" | awk -F/ -v r="$round" '
			function flush(  i) { for (i = 0; i < n; i++) print g[(i + r - 1) % n]; n = 0 }
			$1 != p { flush() }
			{ g[n++] = $0; p = $1 }
			END { flush() }')
		for rel in "${order[@]}"; do
			if [ $((SECONDS - began)) -ge "$BUDGET" ]; then
				echo "ROUND $round cut short: the budget of ${BUDGET}s was spent at $rel"
				break 2
			fi
			eval "${again[$rel]}"
			out=$results/$rel/output.$round
			run_program "$out"
			rc=$?
			if [ $rc = 0 ]; then
				timelines < "$out" > "$results/$rel/lines.$round"
			else
				echo "ROUND $round: $rel exited $rc (its time left out)"
			fi
		done
		[ $round = "$REPEAT" ] && echo "ROUND $round done: ${#timed[@]} linkages again"
	done

	# One program, one output, whoever linked it: the normalized lines less
	# "time " lines and those IGNORE_RE matches.
	for prog in "$DIR"/progs/*/; do
		prog=$(basename "$prog")
		local first='' other differ=0
		ign=$DIR/progs/$prog/IGNORE_RE
		[ -s "$ign" ] || ign=/dev/null
		for other in "$results/$prog"/*/lines; do
			[ -e "$other" ] || continue
			if [ -z "$first" ]; then
				first=$other
			elif ! diff -q <(comparable "$first" "$ign") <(comparable "$other" "$ign") > /dev/null; then
				echo "DIFFER $prog: $(basename "$(dirname "$first")") and $(basename "$(dirname "$other")") print different lines:"
				diff <(comparable "$first" "$ign") <(comparable "$other" "$ign") | head -n 12 | sed 's/^/    /'
				differ=1
			fi
		done
		if [ $differ = 1 ]; then
			failed=$((failed + 1))
		elif [ -n "$first" ]; then
			echo "AGREE $prog: $(cd "$results/$prog" && echo *)"
		fi
	done
	timing "$results" | tee "$results/timing.md"
	if [ ${#skipped[@]} -gt 0 ]; then
		echo "SKIPPED (the budget of ${BUDGET}s was spent): ${skipped[*]}"
	fi
	echo "# $passed passed, $failed failed, ${#skipped[@]} skipped; $((SECONDS - began))s; outputs in $results"
	[ $failed = 0 ] && [ ${#skipped[@]} = 0 ]
}

# run_program <output>: one run of a staged linkage, as run() set it up
# (its work, lp, limit, exe and args), its output into <output>; its status.
run_program() {
	(cd "$work" && OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=$lp \
		timeout -k 5 "${limit:-120}" "$exe" "${args[@]}" > "$1" 2>&1 < /dev/null) 2> /dev/null
}

# comparable <lines> <ignore-file>: the lines two linkages must share.
comparable() {
	if [ "$2" = /dev/null ]; then
		grep -v '^time ' "$1"
	else
		grep -v '^time ' "$1" | grep -Ev -f "$2"
	fi
}

# timing <results>: the "time <kernel> <us>" lines of every program's
# linkages (from their normalized lines), in one Markdown table: a row per
# program and kernel, a column per linkage ("full" first) with the time and its
# ratio to the program's "full" (else its first linkage that has the time),
# then per linkage the geometric mean of its ratios (and how many), outputs
# that say FAIL or WRONG left out.
timing() {
	local files
	echo "# Kernel times (microseconds as each program reports them$([ "$REPEAT" -gt 1 ] && echo ", the best of $REPEAT runs"); ratio to full, else the first linkage)"
	echo
	echo "Staged: $(paste -sd';' "$DIR/STAGED" 2> /dev/null | sed 's/;/; /g'). GPU: ${gpu_name:-none}."
	echo
	files=$(cd "$1" && for f in */*/lines */*/lines.*; do [ -e "$f" ] && grep -q '^time ' "$f" && echo "$f"; done)
	if [ -z "$files" ]; then
		echo "No program printed time lines (no device, or none ran)."
		return 0
	fi
	(cd "$1" && awk '
		FNR == 1 {
			n = split(FILENAME, p, "/"); prog = p[1]; l = p[2]
			if (!(l in lk)) { lk[l] = ++nl; link[nl] = l }
			if (!(prog in pk)) { pk[prog] = ++np; progs[np] = prog }
		}
		/^time [^ ]+ [-+0-9.eE]+$/ {
			k = prog SUBSEP $2
			if (!(k in seen)) { seen[k] = 1; kern[prog, ++nk[prog]] = $2 }
			if (!((prog, $2, l) in t) || $3 + 0 < t[prog, $2, l] + 0) t[prog, $2, l] = $3
		}
		/FAIL|WRONG/ { bad[prog, l] = 1 }
		END {
			# "full" first, then the order they came in.
			c = 0
			if ("full" in lk) col[++c] = "full"
			for (i = 1; i <= nl; i++) if (link[i] != "full") col[++c] = link[i]
			printf "| program | kernel |"
			for (i = 1; i <= c; i++) printf " %s |", col[i]
			printf "\n|---|---|"
			for (i = 1; i <= c; i++) printf "---:|"
			printf "\n"
			for (j = 1; j <= np; j++) {
				prog = progs[j]
				for (x = 1; x <= nk[prog]; x++) {
					kn = kern[prog, x]
					ref = ""
					for (i = 1; i <= c && ref == ""; i++) if ((prog, kn, col[i]) in t) ref = col[i]
					r = t[prog, kn, ref] + 0
					printf "| %s | %s |", prog, kn
					for (i = 1; i <= c; i++) {
						if (!((prog, kn, col[i]) in t)) { printf " - |"; continue }
						v = t[prog, kn, col[i]] + 0
						mark = bad[prog, col[i]] ? " (FAIL/WRONG)" : ""
						if (r > 0 && col[i] != ref) {
							printf " %.1f (%.3f)%s |", v, v / r, mark
							if (v > 0 && !bad[prog, col[i]] && !bad[prog, ref]) {
								lsum[col[i]] += log(v / r); lcnt[col[i]]++
							}
						} else printf " %.1f%s |", v, mark
					}
					printf "\n"
				}
			}
			printf "| geometric mean of the ratios | |"
			for (i = 1; i <= c; i++)
				if (lcnt[col[i]]) printf " %.3f (%d) |", exp(lsum[col[i]] / lcnt[col[i]]), lcnt[col[i]]
				else printf " - |"
			printf "\n"
		}' $files)
}

case $CMD in
stage) stage ;;
run) run ;;
all) stage && run ;;
esac
