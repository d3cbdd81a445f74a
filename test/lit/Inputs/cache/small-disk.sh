#!/bin/sh
# small-disk.sh SHIM DIR KIB COMMAND...: runs COMMAND with DIR a file system
# of KIB KiB, the first way of these two that works here:
#   - a tmpfs of that size mounted on DIR in a mount namespace of its own:
#     `unshare --mount` as root, else `unshare --map-root-user --mount` (a
#     user namespace, which a chroot or a container may refuse);
#   - SHIM (small-disk.c) preloaded, which makes writes under DIR fail as on
#     a full file system of that size.
# Says which on stderr; OL_SMALL_DISK_WAY=preload takes the second.  With the tmpfs, what COMMAND leaves in DIR goes with
# it: COMMAND copies out what the test checks.
set -eu
shim=$1 dir=$2 kib=$3
shift 3
if [ "$(id -u)" -eq 0 ]; then
	namespace="unshare --mount"
else
	namespace="unshare --map-root-user --mount"
fi
# Only a probe can tell: a kernel setting, seccomp or a chroot may refuse.
# OL_SMALL_DISK_WAY=preload skips it, to try the other way where both work.
if [ "${OL_SMALL_DISK_WAY:-}" != preload ] &&
	$namespace sh -c 'mount -t tmpfs -o size=4k ol-small-disk "$1"' sh "$dir" 2>/dev/null; then
	echo "small-disk: a $kib KiB tmpfs on $dir ($namespace)" >&2
	exec $namespace sh -c 'mount -t tmpfs -o size="$2"k ol-small-disk "$1" && shift 2 && exec "$@"' \
		sh "$dir" "$kib" "$@"
fi
echo "small-disk: no mount namespace here; $dir made a $kib KiB disk by $shim" >&2
# A sanitized offload-link must not refuse a module loaded before its runtime.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
OL_SMALL_DISK_DIR=$dir
OL_SMALL_DISK_BYTES=$((kib * 1024))
# LD_PRELOAD splits its list at spaces as well as colons, and the build tree's
# path may have a space: the module goes by its name, found in its directory
# first on LD_LIBRARY_PATH.
LD_PRELOAD=$(basename "$shim")${LD_PRELOAD:+:$LD_PRELOAD}
LD_LIBRARY_PATH=$(dirname "$shim")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ASAN_OPTIONS OL_SMALL_DISK_DIR OL_SMALL_DISK_BYTES LD_PRELOAD LD_LIBRARY_PATH
exec "$@"
