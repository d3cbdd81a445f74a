#!/bin/sh
# same-as-llc.sh OFFLOAD_LINK RELEASE LEVEL MODULE.ll TRIPLE ARCH DIR [LLC OPTION...]
#
# offload-link's code generation against llc's (docs/design/device-links-and-cache-key.md,
# "Code generation"): MODULE.ll, assembled by LLVM RELEASE's llvm-as and packaged
# for TRIPLE and ARCH ("" for none), is linked by offload-link behaving as
# RELEASE at -O LEVEL under --save-temps in DIR (its log must say that it
# loaded LLVM RELEASE's backend and ran at that level).  The module the link
# optimized and handed to its code generation
# (<output>.<triple>.<arch>.postopt.bc) then goes through LLVM RELEASE's llc
# at the same level, for the same CPU, with the LLC OPTIONs, and llc's object
# (PTX for NVPTX) must be the link's, byte for byte; a difference prints the
# diff of the two disassemblies.  NVPTX links run stand-ins for ptxas and
# nvlink: the PTX is what is compared.
set -e
tool=$1 release=$2 level=$3 module=$4 triple=$5 arch=$6 dir=$7
shift 7
bin=/usr/lib/llvm-$release/bin
rm -rf "$dir"
mkdir -p "$dir/cuda/bin"
cd "$dir"
for stand_in in ptxas nvlink; do
	printf '%s\n' '#!/bin/sh' \
		'while [ $# -gt 0 ]; do case "$1" in --output-file|-o) : > "$2"; shift ;; esac; shift; done' \
		> "cuda/bin/$stand_in"
	chmod +x "cuda/bin/$stand_in"
done
"$bin/llvm-as" "$module" -o in.bc
llvm-offload-binary -o in.pkg --image="file=in.bc,triple=$triple${arch:+,arch=$arch},kind=openmp"
# The level as each release's clang gives it: --opt-level (16, 19), -O among
# the device compiler's options (22).
case $release in
22) level_option=--device-compiler=$triple=-O$level ;;
*) level_option=--opt-level=O$level ;;
esac
"$tool" --offload-abi="$release" --device-lto=full --no-cache "$level_option" \
	--cuda-path="$PWD/cuda" --wrapper-verbose --save-temps --host-triple=x86_64-unknown-linux-gnu \
	--linker-path=/bin/true in.pkg -o a.out > link.log 2>&1 || { cat link.log >&2; exit 1; }
if ! grep -q "loaded LLVM $release\." link.log || ! grep -q "LTO of .* at -O$level\$" link.log; then
	echo "same-as-llc.sh: the link did not run LLVM $release's backend at -O$level:" >&2
	cat link.log >&2
	exit 1
fi
case $triple in
nvptx*) ours=a.out.$triple.$arch.s type=asm ;;
*) ours=a.out.$triple.$arch.o type=obj ;;
esac
"$bin/llc" -O"$level" -mcpu="$arch" -filetype=$type "$@" "a.out.$triple.$arch.postopt.bc" -o "llc.$type"
if ! cmp "llc.$type" "$ours"; then
	if [ $type = obj ]; then
		llvm-objdump -dr --no-show-raw-insn "llc.$type" | tail -n +3 > llc.dis
		llvm-objdump -dr --no-show-raw-insn "$ours" | tail -n +3 > ours.dis
		diff llc.dis ours.dis | head -40 >&2 || :
	else
		diff "llc.$type" "$ours" | head -40 >&2 || :
	fi
	exit 1
fi
