#!/bin/sh
# fetch-llvm-dtlto.sh [BUILD]: LLVM's DTLTO scripts (llvm/utils/dtlto:
# validate.py, local.py) from the Debian source of llvm-toolchain-22, into
# BUILD/deps/llvm-dtlto (default build/), where scripts/test.sh finds them
# for lit/device-lto-distributor-llvm.test.  Needs a deb-src line for the
# archive that has llvm-toolchain-22 (bookworm-security).  Only those two
# files are kept, outside the repository.  Exit status 1 when the source
# cannot be had (the test then stays unsupported).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
dest=$build/deps/llvm-dtlto
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! apt-get source --download-only llvm-toolchain-22 >apt.log 2>&1; then
	echo "fetch-llvm-dtlto.sh: apt-get source llvm-toolchain-22 failed:" >&2
	tail -3 apt.log >&2
	exit 1
fi
tarball=$(ls llvm-toolchain-22_*.orig.tar.* | head -1)
tar -xf "$tarball" --wildcards '*/llvm/utils/dtlto/validate.py' '*/llvm/utils/dtlto/local.py'
mkdir -p "$dest"
cp */llvm/utils/dtlto/validate.py */llvm/utils/dtlto/local.py "$dest/"
echo "fetch-llvm-dtlto.sh: $dest"
