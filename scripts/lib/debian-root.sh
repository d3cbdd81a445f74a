# debian-root.sh: what the scripts that make a new Debian root file system
# with mmdebstrap share (fresh-machine-check.sh, package-check.sh).  Sourced;
# the sourcing script defines die().

# apt_sources: prints the file holding this machine's Debian apt sources, for
# mmdebstrap: deb822 (/etc/apt/sources.list.d/debian.sources, as Debian 12
# installs; another *.sources there, as mmdebstrap may name it in the roots
# it makes) or one-line (/etc/apt/sources.list), so that the package check
# also runs inside the fresh-machine check's root.  Returns 1 when there is
# none.
apt_sources() {
	for candidate in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list.d/*.sources \
		/etc/apt/sources.list; do
		if [ -s "$candidate" ] && grep -q '^[^#]' "$candidate"; then
			printf '%s\n' "$candidate"
			return 0
		fi
	done
	return 1
}

# require_apt_sources: sets $sources (apt_sources), or dies.
require_apt_sources() {
	sources=$(apt_sources) ||
		die "no apt sources to take the Debian mirror from (/etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list)"
}

# work_dir NAME: sets $dir to an absolute, empty directory: the one $dir
# names (--dir; made if missing, refused unless empty), else a new
# /var/tmp/NAME.XXXXXX.
work_dir() {
	if [ -z "$dir" ]; then
		dir=$(mktemp -d "/var/tmp/$1.XXXXXX")
	elif [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
		die "$dir exists and is not empty"
	fi
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
}

# remove_work_dir_at_exit MESSAGE: when the script ends, $dir is removed, or
# with --keep ($keep 1) kept, and MESSAGE printed to say what is in it.
remove_work_dir_at_exit() {
	kept_message=$1
	trap remove_work_dir EXIT
}

remove_work_dir() {
	if [ "$keep" -eq 0 ]; then
		rm -rf --one-file-system "$dir"
	else
		echo "$kept_message"
	fi
}
