#!/bin/sh
# image-symbols.sh IMAGE: the functions and data objects a device image
# (CUDA cubin or AMDGPU code object) exports, one "TYPE BINDING name" per
# line, sorted: what two links of the same program must agree on.  Not the
# locals partitioned LTO gave one address across partitions
# (<name>__ol_part): the image's own, named by nothing outside it.
set -e
llvm-readelf --syms "$1" |
	awk '$5 != "LOCAL" && ($4 == "FUNC" || $4 == "OBJECT") && $NF !~ /__ol_part$/ { print $4, $5, $NF }' |
	LC_ALL=C sort
