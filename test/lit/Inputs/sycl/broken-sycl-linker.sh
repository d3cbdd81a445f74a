#!/bin/sh
# A clang-sycl-linker whose output is not an offload binary: it writes text
# to the file named by -o.
while [ $# -gt 0 ]; do
	if [ "$1" = -o ]; then
		echo "not an offload binary" > "$2"
		exit 0
	fi
	shift
done
exit 1
