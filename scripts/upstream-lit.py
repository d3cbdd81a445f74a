#!/usr/bin/env python3
"""Run LLVM's own clang-linker-wrapper lit tests, unchanged, against a wrapper.

Each clang-linker-wrapper command of upstream's test files
(clang/test/Driver/linker-wrapper*.c) runs on its own: the file is copied with
every other wrapper command dropped (the clang and packager commands that
build the inputs stay) and lit runs the copy.  The result is one PASS or FAIL
per wrapper command and a total, the numbers docs/compat.md records per
release.  test/lit/upstream/ holds our ports of the same tests, with the
deliberate differences written out; this script measures the distance to
upstream's text.

  scripts/upstream-lit.py --release 19 --wrapper build/bin/offload-link \\
      --from-tarball llvm-toolchain-19_19.1.7.orig.tar.xz
  scripts/upstream-lit.py --release 22 --wrapper /usr/lib/llvm-22/bin/clang-linker-wrapper \\
      my-copies/linker-wrapper*.c

The Debian source of a release comes with `apt-get source --download-only
llvm-toolchain-19` (a deb-src line for the archive is needed).  Tools come from
/usr/lib/llvm-<release>/bin (clang, clang-offload-packager) and
/usr/lib/llvm-22/bin (FileCheck, lit, llvm-ar, llvm-offload-binary).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

LIT = "/usr/lib/llvm-22/bin/lit"
FEATURES = ["x86-registered-target", "nvptx-registered-target", "amdgpu-registered-target",
            "spirv-registered-target", "system-linux"]
CONFIG = """
import lit.formats, os
config.name = "upstream-{release}"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(__file__), "out")
config.environment["PATH"] = os.pathsep.join([{bindir!r}, "/usr/lib/llvm-{release}/bin",
                                              "/usr/lib/llvm-22/bin", os.environ["PATH"]])
config.environment["LC_ALL"] = "C"
for name in ("OFFLOAD_LINK_BACKEND", "TMPDIR", "HOME"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
config.substitutions.append(("%clang", "/usr/lib/llvm-{release}/bin/clang"))
for feature in {features!r}:
    config.available_features.add(feature)
"""


def wrapper_commands(lines):
    """(first, last) line indices of the RUN commands that run the wrapper."""
    found, i = [], 0
    while i < len(lines):
        if "RUN:" not in lines[i]:
            i += 1
            continue
        j = i
        while lines[j].rstrip().endswith("\\") and j + 1 < len(lines):
            j += 1
        if re.search(r"RUN:\s*(not\s+)?clang-linker-wrapper\b", lines[i]):
            found.append((i, j))
        i = j + 1
    return found


def extract(tarball, into):
    """The linker-wrapper tests of an LLVM source tarball."""
    paths = []
    with tarfile.open(tarball) as tar:
        for member in tar:
            name = os.path.basename(member.name)
            if ("/clang/test/Driver/" in member.name and name.startswith("linker-wrapper")
                    and name.endswith(".c") and member.isfile()):
                member.name = name
                tar.extract(member, into)
                paths.append(os.path.join(into, name))
    return sorted(paths)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--release", required=True, choices=["16", "19", "22"])
    ap.add_argument("--wrapper", required=True, help="the program to test")
    ap.add_argument("--from-tarball", help="take the tests from an LLVM source tarball")
    ap.add_argument("-v", "--verbose", action="store_true", help="show lit's output on failure")
    ap.add_argument("files", nargs="*", help="upstream test files")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="upstream-lit-")
    try:
        files = list(args.files)
        if args.from_tarball:
            files += extract(args.from_tarball, os.path.join(work, "src"))
        if not files:
            sys.exit("no test files: name them or pass --from-tarball")
        bindir = os.path.join(work, "bin")
        os.makedirs(bindir)
        # Under upstream's name, as the tests call it.
        os.symlink(os.path.abspath(args.wrapper), os.path.join(bindir, "clang-linker-wrapper"))
        config = CONFIG.format(release=args.release, bindir=bindir, features=FEATURES)
        total = passed = 0
        for path in files:
            lines = open(path).read().split("\n")
            commands = wrapper_commands(lines)
            for k, (first, last) in enumerate(commands):
                case = os.path.join(work, "case%d" % total)
                os.makedirs(case)
                open(os.path.join(case, "lit.cfg.py"), "w").write(config)
                variant = list(lines)
                for m, (a, b) in enumerate(commands):
                    if m != k:
                        variant[a:b + 1] = ["// (dropped)"] * (b - a + 1)
                open(os.path.join(case, os.path.basename(path)), "w").write("\n".join(variant))
                run = subprocess.run([LIT, "-v", case], capture_output=True, text=True)
                ok = run.returncode == 0
                total += 1
                passed += ok
                words = " ".join(l.split("RUN:", 1)[1].strip() for l in lines[first:last + 1])
                print("%s %s:%d %s" % ("PASS" if ok else "FAIL", os.path.basename(path),
                                       first + 1, words[:140]))
                if not ok and args.verbose:
                    print(run.stdout)
        print("TOTAL %s: %d of %d" % (args.release, passed, total))
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
