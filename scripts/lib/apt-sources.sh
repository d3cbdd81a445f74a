# apt-sources.sh: sourced by the scripts that make a new Debian root file
# system with mmdebstrap (fresh-machine-check.sh, package-check.sh).
#
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
