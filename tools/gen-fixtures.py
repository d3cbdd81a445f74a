#!/usr/bin/env python3
"""Regenerates the checked-in scanner fixtures in test/lit/Inputs/scan/.

The fixtures are small real outputs of clang 19/22, the offload packager and
llvm-ar, so the scanner's tests run on machines without those tools.  Run
this only to change them:

    tools/gen-fixtures.py [--out DIR] [--offload-link BUILD/bin/offload-link]

Needs clang-19, clang-22 and llvm-ar-22 in PATH, and a built offload-link,
whose `package --release=19` writes what clang-offload-packager 19 writes.

Fixtures:
  omp19.o omp22.o     real OpenMP fat objects (x86_64 offload): one bitcode
                      image each; entries sections omp_offloading_entries
                      (19) and llvm_offload_entries (22)
  omp19-lto.o         the same as host bitcode (-flto)
  plain.o             host object with no offloading data
  dev.o, dev.offbin   a device ELF object and its packaged OffloadBinary
  embed.o             host object embedding dev.offbin (an ELF image)
  be64.o elf32.o      embed.o built for big-endian powerpc64 and for i386
                      (byte-swapped and 32-bit ELF through libelf)
  v4.o                omp19.o with its offload binary's version set to 4
  libgnu.a libbsd.a   GNU / BSD archives: a long member name, plain.o, embed.o
  libthin.a           thin archive of omp19.o and plain.o
  libbad.a            GNU archive whose member m.o has an offload binary
                      whose Size runs past its section
  libshared.so        a shared library (no libc)
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile

OMP_C = r"""
int counter;
#pragma omp declare target
int dev_add(int a) { return a + 1; }
#pragma omp end declare target
int run(void) {
  int r = 0;
#pragma omp target map(from: r)
  r = dev_add(41);
  return r + counter;
}
"""

PLAIN_C = r"""
int plain_value = 7;
int plain_fn(int x) { return x * plain_value; }
"""

DEV_C = r"""
extern int dev_ext(int);
int dev_common;
__attribute__((weak)) int dev_weak(void) { return 1; }
__attribute__((visibility("hidden"))) int dev_hidden(void) { return 2; }
static int dev_local(void) { return 3; }
int dev_fn(int x) { return dev_ext(x) + dev_local(); }
"""

HOST_C = r"""
int host_main(void) { return 0; }
"""

SHARED_C = r"""
int shared_fn(void) { return 42; }
"""


def run(*cmd, cwd):
    print("+", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, cwd=cwd, check=True)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def section_range(path, want):
    """(offset, size) of the first ELF64 LE section named `want`."""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def shdr(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    strtab = shdr(shstrndx)
    for i in range(shnum):
        h = shdr(i)
        name_at = strtab[4] + h[0]
        name = data[name_at:data.index(b"\0", name_at)].decode()
        if name == want:
            return h[4], h[5]
    raise SystemExit(f"{path}: no section {want}")


def patch(src, dst, section, rel, fmt, value):
    data = bytearray(open(src, "rb").read())
    off, _ = section_range(src, section)
    struct.pack_into(fmt, data, off + rel, value)
    open(dst, "wb").write(bytes(data))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.join(here, "..", "test", "lit", "Inputs", "scan")
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=default_out)
    ap.add_argument("--offload-link", default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "bin", "offload-link"))
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)

    with tempfile.TemporaryDirectory() as tmp:
        for name, text in [("omp.c", OMP_C), ("plain.c", PLAIN_C), ("dev.c", DEV_C),
                           ("host.c", HOST_C), ("shared.c", SHARED_C)]:
            write(os.path.join(tmp, name), text)
        omp = ["-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-O1"]
        run("clang-19", *omp, "-c", "omp.c", "-o", "omp19.o", cwd=tmp)
        run("clang-22", *omp, "-c", "omp.c", "-o", "omp22.o", cwd=tmp)
        run("clang-19", *omp, "-flto", "-c", "omp.c", "-o", "omp19-lto.o", cwd=tmp)
        run("clang-19", "-O1", "-c", "plain.c", "-o", "plain.o", cwd=tmp)
        run("clang-19", "-O1", "-fPIC", "-fcommon", "-c", "dev.c", "-o", "dev.o", cwd=tmp)
        run(args.offload_link, "package", "--release=19", "-o", "dev.offbin",
            "--image=file=dev.o,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp", cwd=tmp)
        run("clang-19", "-O1", "-c", "host.c", "-Xclang", "-fembed-offload-object=dev.offbin",
            "-o", "embed.o", cwd=tmp)
        for target, name in [("powerpc64-unknown-linux-gnu", "be64.o"),
                             ("i386-unknown-linux-gnu", "elf32.o")]:
            run("clang-19", "--target=" + target, "-O1", "-c", "host.c", "-Xclang",
                "-fembed-offload-object=dev.offbin", "-o", name, cwd=tmp)
        run("clang-19", "-shared", "-nostdlib", "-fPIC", "-Wl,--hash-style=gnu",
            "-Wl,-z,max-page-size=4096", "shared.c", "-o", "libshared.so", cwd=tmp)

        # Offload binary header: Version at +4, Size at +8.
        patch(os.path.join(tmp, "omp19.o"), os.path.join(tmp, "v4.o"),
              ".llvm.offloading", 4, "<I", 4)
        patch(os.path.join(tmp, "omp19.o"), os.path.join(tmp, "m.o"),
              ".llvm.offloading", 8, "<Q", 0x10000)

        long_name = "a_member_with_a_long_name.o"
        shutil.copy(os.path.join(tmp, "embed.o"), os.path.join(tmp, long_name))
        run("llvm-ar-22", "--format=gnu", "rcs", "libgnu.a", long_name, "plain.o", cwd=tmp)
        run("llvm-ar-22", "--format=bsd", "rcs", "libbsd.a", long_name, "plain.o", cwd=tmp)
        run("llvm-ar-22", "--format=gnu", "rc", "libbad.a", "plain.o", "m.o", cwd=tmp)

        for name in ["omp19.o", "omp22.o", "omp19-lto.o", "plain.o", "dev.o", "dev.offbin",
                     "embed.o", "be64.o", "elf32.o", "v4.o", "libgnu.a", "libbsd.a", "libbad.a", "libshared.so"]:
            shutil.copy(os.path.join(tmp, name), os.path.join(out, name))
    # The thin archive names its members relative to itself.
    if os.path.exists(os.path.join(out, "libthin.a")):
        os.unlink(os.path.join(out, "libthin.a"))
    run("llvm-ar-22", "--thin", "rc", "libthin.a", "omp19.o", "plain.o", cwd=out)


if __name__ == "__main__":
    main()
