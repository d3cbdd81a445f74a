#!/bin/sh
# key-options.sh OFFLOAD_LINK CACHE_DIR: for each option that decides a
# device link's output, a link of k.o (in the current directory) with it
# must miss the cache, and the same link again must hit.
set -u
tool=$1 cache=$2
link() {
	env -u OFFLOAD_LINK_NO_CACHE "$tool" --cache-dir="$cache" --wrapper-verbose \
		--host-triple=x86_64-pc-linux-gnu --linker-path=/usr/bin/ld -shared -o out.so k.o "$@" 2>&1
}
status=0
for opt in --device-linker=-znow --device-linker=x86_64-unknown-linux-gnu=-O1 \
	--device-compiler=x86_64-unknown-linux-gnu=-O1 "-mllvm -inline-threshold=7" \
	--offload-opt=-inline-threshold=8 --ptxas-arg=-v --opt-level=O1 --device-debug \
	--embed-bitcode --whole-program --clang-backend \
	--bitcode-library=openmp-x86_64-unknown-linux-gnu-generic=lib.bc \
	--builtin-bitcode=x86_64-unknown-linux-gnu=lib.bc --offload-abi=22; do
	# shellcheck disable=SC2086 # "-mllvm X" is two words
	first=$(link $opt)
	second=$(link $opt)
	case $first in *"cache: miss"*) ;; *) echo "no miss for $opt:"; echo "$first"; status=1 ;; esac
	case $second in *"cache: hit"*) ;; *) echo "no hit for $opt:"; echo "$second"; status=1 ;; esac
	echo "$opt: miss, then hit"
done
exit $status
