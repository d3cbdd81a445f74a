#!/usr/bin/env bash
# gpu-check.sh: the end-to-end programs that can run on an NVIDIA GPU, each
# linked by offload-link and by upstream's clang-linker-wrapper, staged with
# the runtime libraries they need, and run.
#
#   scripts/gpu-check.sh [--arch sm_XX] [--dir DIR] [stage|run]
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
# run (needs bash, coreutils, python3 or xz; nothing else of this machine)
# unpacks the runtime into $TMPDIR, links the driver's libcuda.so.1 there as
# libcuda.so (libomptarget asks for that name, which driver-only installs
# lack), checks with ldd that every program and runtime library loads from DIR
# (besides glibc, libstdc++, libgcc_s and the driver), then runs each with
# OMP_TARGET_OFFLOAD=MANDATORY.  With a GPU (nvidia-smi lists one) a run
# passes when it exits 0 and says "ok" with no "WRONG"; without one, when it
# says "no device" and exits 3.  The linkages of one program must print the
# same lines, "time <kernel> <us>" lines excepted: those make a table per
# program of each kernel's time per linkage and its ratio to "full" (else the
# first linkage).  Results: stdout and DIR/results/ (each run's output; the
# tables in timing.md).  The exit status is 0 when everything passed (the
# times do not count).
set -u
export LC_ALL=C
ME="gpu-check.sh"
die() { echo "$ME: $*" >&2; exit 2; }

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
ARCH=sm_90
DIR=$REPO/.gpu-check
CMD=all
LIMIT_MIB=60
while [ $# -gt 0 ]; do
	case $1 in
	--arch) ARCH=${2:-}; shift ;;
	--arch=*) ARCH=${1#--arch=} ;;
	--dir) DIR=${2:-}; shift ;;
	--dir=*) DIR=${1#--dir=} ;;
	stage|run) CMD=$1 ;;
	-h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
[[ $ARCH =~ ^sm_[0-9]+a?$ ]] || die "--arch takes sm_XX, not '$ARCH'"

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
	grep -h 'warning:' "$log" | sed "s|^|    $(basename "$(dirname "$log")"): |"
	return 0
}

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
			-Wl,--device-lto=partitioned:1 -Wl,--stats \
			"$work/omp-main-lto.o" "$work/omp-lib-lto.o" -L"$OMP19_LIB" -o "$dest/ours19-part1/omp" ||
		return 1
	partitions "$dest/ours19-part1/link.log"
}

# partitions <log>: says how many partitions a partitioned link made (from
# offload-link's --stats); fails when it made none.
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
		link "$dest/part1/link.log" "${ours[@]}" -Wl,--device-lto=partitioned:1 -Wl,--stats \
			"${objs[@]}" -L"$OMP19_LIB" -o "$dest/part1/omp-timing" &&
		link "$dest/partdef/link.log" "${ours[@]}" -Wl,--device-lto=partitioned -Wl,--stats \
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
	echo "  runtime omp22"
	stage_omp22_runtime || die "staging libomptarget 22 failed"
	{
		echo "arch $ARCH"
		echo "staged $(date -u '+%Y-%m-%d %H:%M:%SZ') from $(git -C "$REPO" rev-parse --short HEAD 2> /dev/null)"
		echo "cuda $(cuda_release)"
	} > "$DIR/STAGED"
	size=$(du -sb "$DIR" | cut -f1)
	echo "# staged: $(find "$DIR/progs" -name RT | wc -l) program linkages, $((size / 1048576)) MiB"
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

run() {
	local rtroot=${TMPDIR:-/tmp}/gpu-check-rt results gpu=0 gpu_name='' libcuda failed=0 passed=0
	local rel dir prog linkage rt lp out rc verdict line tb
	[ -d "$DIR/progs" ] || die "nothing staged in $DIR (run '$ME stage' first)"
	DIR=$(cd "$DIR" && pwd -P)
	results=$DIR/results
	rm -rf "$results" && mkdir -p "$results" "$rtroot/driver" || die "cannot create $results"
	echo "# running $DIR ($(tr '\n' ';' < "$DIR/STAGED" 2> /dev/null))"
	if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L 2> /dev/null | grep -q '^GPU '; then
		gpu=1
		gpu_name=$(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader | head -n1)
		echo "GPU: $gpu_name"
	else
		echo "GPU: none (no nvidia-smi, or it lists none): every program must report no device"
	fi
	libcuda=$(find_libcuda)
	rm -f "$rtroot/driver/libcuda.so"
	[ -n "$libcuda" ] && ln -s "$libcuda" "$rtroot/driver/libcuda.so"
	echo "libcuda: ${libcuda:-not found}"
	for tb in "$DIR"/rt/*.tar.xz; do
		[ -e "$tb" ] || continue
		unpack "$tb" "$rtroot/$(basename "$tb" .tar.xz)" || { echo "FAIL cannot unpack $tb"; return 1; }
	done

	for dir in "$DIR"/progs/*/*/; do
		dir=${dir%/}
		linkage=${dir##*/}
		prog=$(basename "$(dirname "$dir")")
		rel=$prog/$linkage
		rt=$(cat "$dir/RT")
		lp=$dir
		if [ "$rt" != none ]; then
			lp+=:$rtroot/$rt
			# The machine's own libstdc++ and libgcc_s unless they are missing
			# or too old for the runtime.
			if LD_LIBRARY_PATH=$lp lddx "$rtroot/$rt"/*.so* |
				grep -Eq "(libstdc\+\+|libgcc_s)[^ ]* => not found|(GLIBCXX|CXXABI|GCC)_[0-9.]+' not found"; then
				lp+=:$rtroot/$rt/compat
			fi
		fi
		lp+=:$rtroot/driver
		mkdir -p "$results/$rel"
		# What the program and its runtime load, and from where.
		line=$( { LD_LIBRARY_PATH=$lp lddx "$dir/$prog"; [ "$rt" = none ] || LD_LIBRARY_PATH=$lp lddx "$rtroot/$rt"/*.so*; } |
			awk -v a="$dir/" -v b="$rtroot/" -v g="$GLIBC_RE" '
				/=>/ && $3 == "not" { print $1 " not found"; next }
				/=>/ { if (index($3, a) == 1 || index($3, b) == 1 || $1 ~ g) next
				       if ($1 ~ /^(libstdc\+\+|libgcc_s)\.so/ || $1 ~ /^lib(cuda|nvidia-)/) next
				       print $1 " from " $3 }' | sort -u | tr '\n' ' ')
		if [ -n "$line" ]; then
			echo "FAIL $rel: libraries missing or from outside the staged folder: $line"
			failed=$((failed + 1))
			continue
		fi
		out=$results/$rel/output
		(cd "$dir" && OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=$lp timeout -k 5 120 "./$prog" > "$out" 2>&1 < /dev/null)
		rc=$?
		echo "$rc" > "$results/$rel/status"
		if grep -q 'error while loading shared libraries\|cannot open shared object' "$out"; then
			verdict="FAIL $rel: a library did not load: $(grep -m1 'shared' "$out")"
		elif [ $gpu = 1 ] && [ $rc = 0 ] && grep -q ': ok$' "$out" && ! grep -q 'WRONG' "$out"; then
			verdict="PASS $rel: $(grep -c ': ok$' "$out") results ok"
		elif [ $gpu = 0 ] && [ $rc = 3 ] && grep -q '^no device:' "$out"; then
			verdict="PASS $rel: $(grep -m1 '^no device:' "$out")"
		else
			verdict="FAIL $rel: exit $rc: $(grep -m1 -E 'WRONG|error|fatal|no device|.' "$out" | cut -c1-200)"
		fi
		echo "$verdict"
		case $verdict in PASS*) passed=$((passed + 1)) ;; *) failed=$((failed + 1)) ;; esac
	done

	# One program, one output, whoever linked it.
	for prog in "$DIR"/progs/*/; do
		prog=$(basename "$prog")
		local first='' other differ=0
		for other in "$results/$prog"/*/output; do
			[ -e "$other" ] || continue
			if [ -z "$first" ]; then
				first=$other
			elif ! diff -q <(grep -v '^time ' "$first") <(grep -v '^time ' "$other") > /dev/null; then
				echo "DIFFER $prog: $(basename "$(dirname "$first")") and $(basename "$(dirname "$other")") print different lines:"
				diff <(grep -v '^time ' "$first") <(grep -v '^time ' "$other") | head -n 12 | sed 's/^/    /'
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
	echo "# $passed passed, $failed failed; outputs in $results"
	[ $failed = 0 ]
}

# timing <results>: for each program whose outputs have "time <kernel> <us>"
# lines, a table of each kernel's time per linkage and its ratio to the
# linkage "full" (else the first linkage), in Markdown.
timing() {
	local prog outs found=0
	echo "# Kernel times (microseconds, best of the program's launches; ratio to full or the first linkage)"
	echo
	echo "Staged: $(paste -sd';' "$DIR/STAGED" 2> /dev/null | sed 's/;/; /g'). GPU: ${gpu_name:-none}."
	for prog in "$1"/*/; do
		prog=$(basename "$prog")
		outs=("$1/$prog"/*/output)
		[ -e "${outs[0]}" ] && grep -q '^time ' "${outs[@]}" || continue
		found=1
		echo
		awk -v prog="$prog" '
			FNR == 1 { n = split(FILENAME, p, "/"); l = p[n - 1]; link[++nl] = l }
			/^time [^ ]+ [0-9.]+$/ {
				if (!(($2) in seen)) { seen[$2] = 1; kernel[++nk] = $2 }
				t[$2, l] = $3; timed[l] = 1
			}
			/WRONG/ { wrong[l] = 1 }
			END {
				ref = ""
				for (i = 1; i <= nl; i++) if (link[i] == "full" && timed["full"]) ref = "full"
				for (i = 1; i <= nl && ref == ""; i++) if (timed[link[i]]) ref = link[i]
				printf "## %s (ratio to %s)\n\n| kernel |", prog, ref
				for (i = 1; i <= nl; i++) printf " %s%s |", link[i], wrong[link[i]] ? " (WRONG results)" : ""
				printf "\n|---|"
				for (i = 1; i <= nl; i++) printf "---:|"
				printf "\n"
				for (k = 1; k <= nk; k++) {
					printf "| %s |", kernel[k]
					for (i = 1; i <= nl; i++) {
						if (!((kernel[k], link[i]) in t)) { printf " - |"; continue }
						v = t[kernel[k], link[i]]; r = t[kernel[k], ref]
						if (r > 0) printf " %.1f (%.3f) |", v, v / r
						else printf " %.1f |", v
					}
					printf "\n"
				}
			}' "${outs[@]}"
	done
	if [ $found = 0 ]; then
		echo
		echo "No program printed time lines (no device, or none ran)."
	fi
}

case $CMD in
stage) stage ;;
run) run ;;
all) stage && run ;;
esac
