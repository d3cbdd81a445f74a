#!/usr/bin/env bash
# fresh-machine-check.sh: run README.md's two set-up commands, as a new user
# would, from a fresh clone in a new minimal Debian bookworm root file system.
#
#   scripts/fresh-machine-check.sh [--keep] [--dir DIR] [--rev REV]
#
#   --dir DIR   build the root file system in DIR (default: a new directory
#               under /var/tmp); it must not exist or be empty
#   --keep      leave the root file system there afterwards (for a look inside:
#               chroot DIR)
#   --rev REV   clone this commit (default HEAD); uncommitted changes are not
#               part of a fresh clone, so commit what you want checked
#
# The root file system is `mmdebstrap --variant=minbase bookworm` from this
# machine's own Debian apt sources (/etc/apt/sources.list.d/debian.sources):
# no compiler, no make, no sudo, nothing but what every Debian has.  CUDA 13
# at /usr/local/cuda comes with the machine image, not from a package, so it is
# bound in read-only.  The commands are read from README.md (the `sh` block
# under "Set up"), run as root inside the chroot in a clone at
# "/root/src/my projects/offload-link" (a folder named src above it, as users
# clone, and a space in its path), each timed; the output of each goes to
# DIR.logs/<n>.log and its last lines are shown.  Exit status 0 when both
# commands succeed.
#
# Needs root (mmdebstrap, chroot, mounts in a private mount namespace) and the
# mmdebstrap package; several GB of disk and network access to the mirror.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir='' keep=0 rev=HEAD
while [ $# -gt 0 ]; do
	case $1 in
	--dir) dir=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--rev) rev=$2; shift 2 ;;
	-h | --help) sed -n '2,26p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "fresh-machine-check.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done

die() { echo "fresh-machine-check.sh: $*" >&2; exit 1; }
say() { printf '\n== %s\n' "$*"; }

[ "$(id -u)" -eq 0 ] || die "run it as root (mmdebstrap, chroot and mounts need it)"
command -v mmdebstrap >/dev/null || die "mmdebstrap is missing: apt-get install mmdebstrap"
. "$repo/scripts/lib/debian-root.sh"
require_apt_sources

# The two commands, exactly as README.md gives them.
mapfile -t commands < <(awk '/^## Set up/ { section = 1 }
	section && /^```sh$/ { block = 1; next }
	block && /^```/ { exit }
	block && NF { print }' "$repo/README.md")
[ ${#commands[@]} -eq 2 ] ||
	die "README.md's set-up block has ${#commands[@]} commands, expected 2"

work_dir ol-fresh
logs=$dir.logs
rm -rf "$logs"
mkdir -p "$logs"

remove_work_dir_at_exit "root file system kept in $dir"

say "root file system: mmdebstrap --variant=minbase bookworm $dir ($sources)"
start=$(date +%s)
mmdebstrap --quiet --variant=minbase --mode=root bookworm "$dir" "$sources" >"$logs/mmdebstrap.log" 2>&1 ||
	{ tail -20 "$logs/mmdebstrap.log" >&2; die "mmdebstrap failed (log: $logs/mmdebstrap.log)"; }
echo "made in $(($(date +%s) - start)) s; nothing installed but minbase: $(chroot "$dir" dpkg-query -W | wc -l) packages"

# Where many people clone (~/src/<project>), under a folder with a space in
# its name: no test may depend on where the tree lives.
clone="/root/src/my projects/offload-link"
say "fresh clone of $(git -C "$repo" rev-parse --short "$rev") into $clone"
mkdir -p "$(dirname "$dir$clone")"
git clone --quiet --no-local --no-checkout "$repo" "$dir$clone"
git -C "$dir$clone" checkout --quiet --detach "$(git -C "$repo" rev-parse "$rev")"

# Inside a private mount namespace, so every mount ends with the check.
run_in_root() {
	local log=$1 command=$2
	unshare --mount --propagation private -- bash -euo pipefail -c '
		root=$1 command=$2 clone=$3
		mount -t proc proc "$root/proc"
		mount --rbind /dev "$root/dev"
		mount --rbind /sys "$root/sys"
		mount -t tmpfs tmpfs "$root/tmp"
		if [ -d /usr/local/cuda ]; then
			mkdir -p "$root/usr/local/cuda"
			mount --bind /usr/local/cuda "$root/usr/local/cuda"
			mount -o remount,bind,ro "$root/usr/local/cuda"
		fi
		cp /etc/resolv.conf "$root/etc/resolv.conf"
		exec chroot "$root" env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			bash -c "cd \"$clone\" && $command"
	' run-in-root "$dir" "$command" "$clone" >"$log" 2>&1
}

status=0 n=0
for command in "${commands[@]}"; do
	n=$((n + 1))
	say "command $n: $command"
	start=$(date +%s)
	rc=0
	run_in_root "$logs/$n.log" "$command" || rc=$?
	took=$(($(date +%s) - start))
	tail -15 "$logs/$n.log"
	if [ $rc -eq 0 ]; then
		echo "-- command $n passed in $took s (log: $logs/$n.log)"
	else
		echo "-- command $n FAILED with status $rc after $took s (log: $logs/$n.log)"
		status=1
		break
	fi
done

if [ $status -eq 0 ]; then
	say "both README commands passed on a fresh Debian bookworm root file system"
else
	say "the README commands do not pass on a fresh machine"
fi
exit $status
