# lit configuration for offload-link's tool tests.
#
# Run through ctest (one entry per test file), or by hand:
#   lit -sv --param ol_site_config=<build>/test/lit/lit.site.cfg.py test/lit[/file.test]
#   lit -sv <build>/test/lit        (the generated site file loads this one)
#
# Substitutions: %offload-link, %clang-linker-wrapper (the same program under
# clang's name), %libexecdir (the -B directory), %backend (offload-link-llvm.so),
# %run-omp19 (runs a program on libomptarget 19's CPU device), %small-disk
# (a command with a directory on a small file system),
# %clang16 %clang19 %clang22, %clangxx16 %clangxx19 %clangxx22,
# %upstream-wrapper16/19/22, %clang-offload-wrapper14, %llvm-offload-wrapper22,
# %llvm22bin, %omp16dir, %omp19libdir, %gen-program, %run-omp19, %run-omp22, %omp22flags
# (bench/gen.py), %image-symbols (a device image's kernels and globals), %python,
# %malformed (Inputs/malformed/malformed.py: crafted inputs, and a run checked for
# its exit status, temp files and untouched output), %blank-free-t (as %t, but
# under /tmp, with no blank in its path).
# Features: clang16 clang19 clang22 (each clang present), upstream-wrapper-16/19/22,
# clang-offload-wrapper-14, llvm-offload-wrapper-22,
# omp16-runtime, omp19-runtime, omp22-runtime.

import hashlib
import os
import shutil
import sys

import lit.formats

# Launched on a source file (as ctest does) lit finds this file first: read
# the build's facts from the site file named by --param ol_site_config.
if not hasattr(config, "ol_binary_dir"):
    site = lit_config.params.get("ol_site_config")
    if not site:
        lit_config.fatal("no site configuration: pass --param ol_site_config="
                         "<build>/test/lit/lit.site.cfg.py, or run lit on <build>/test/lit")
    config.ol_loading_main_config = True
    lit_config.load_config(config, site)

config.name = "offload-link"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".c", ".ll"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]

# Tools first from LLVM 22 (FileCheck, not, split-file, llvm-objdump,
# llvm-readelf, llvm-offload-binary), then the build's bin directory.
path = os.pathsep.join([config.ol_llvm22_bindir,
                        os.path.join(config.ol_binary_dir, "bin"),
                        config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["PATH"] = path
# The tool finds its backends beside it (<bin>/../lib/offload-link), the one
# for the inputs' LLVM first, as a user's link does; a test that needs one
# plugin names it (%backend, %backend19).
config.environment.pop("OFFLOAD_LINK_BACKEND", None)
# Tests compare the commands a link runs: a device-link cache hit would run
# none.  The cache's own tests turn it on with their own directory.
config.environment["OFFLOAD_LINK_NO_CACHE"] = "1"
# Messages and sorting must not depend on the caller's locale.
config.environment["LC_ALL"] = "C"
# OL_TEST_DEVICE_LTO=partitioned[:N] runs the suite with partitioned device
# LTO (docs/design/partitioned-lto.md); a user's own
# OFFLOAD_LINK_DEVICE_LTO never leaks in.
config.environment.pop("OFFLOAD_LINK_DEVICE_LTO", None)
if os.environ.get("OL_TEST_DEVICE_LTO"):
    config.environment["OFFLOAD_LINK_DEVICE_LTO"] = os.environ["OL_TEST_DEVICE_LTO"]
for passthrough in ("TMPDIR", "HOME", "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"):
    if passthrough in os.environ:
        config.environment[passthrough] = os.environ[passthrough]

# The source and build trees may live under a path with a space in it
# (/home/me/my projects/offload-link): every substitution that names a path in
# them, or one a cache variable sets, is double-quoted, which lit's shell and
# the "sh -c '...'" scripts of the tests both take as one word.  The tests
# quote lit's own %t, %s, %S and %p the same way ("%t/out", "%s"); such a
# substitution must not be used inside a double-quoted string.
def q(path):
    return '"%s"' % path


subs = {
    "%offload-link": q(config.ol_tool),
    "%clang-linker-wrapper": q(os.path.join(config.ol_libexec_dir, "clang-linker-wrapper")),
    "%libexecdir": q(config.ol_libexec_dir),
    # The build writes the man page and clang.cfg where the install puts them.
    "%man-page": q(os.path.join(config.ol_binary_dir, "share", "man", "man1", "offload-link.1")),
    "%clang-cfg": q(os.path.join(config.ol_binary_dir, "share", "offload-link", "clang.cfg")),
    "%backend": q(config.ol_backend),
    "%llvm22bin": q(config.ol_llvm22_bindir),
    "%omp16dir": q(config.ol_omp16_root),
    "%omp19libdir": "/usr/lib/llvm-19/lib",
    # The benchmark's program generator doubles as the tests' (bench/gen.py).
    "%gen-program": "%s %s" % (q(sys.executable),
                               q(os.path.join(config.ol_source_dir, "bench", "gen.py"))),
    "%python": q(sys.executable),
    # The distributors of partitioned device LTO's jobs (tools/distributors).
    "%distributors": q(os.path.join(config.ol_source_dir, "tools", "distributors")),
    # The malformed-input suite's generator and checker (test/lit/malformed).
    "%malformed": "%s %s" % (q(sys.executable), q(os.path.join(config.test_source_root, "Inputs",
                                                              "malformed", "malformed.py"))),
    "%image-symbols": q(os.path.join(config.test_source_root, "Inputs", "gpu", "image-symbols.sh")),
}

# Running an OpenMP program on libomptarget 19's CPU "device", without the
# image files its CPU plugin leaves in /tmp (Inputs/run-omp19.sh).
subs["%run-omp19"] = "%s %s" % (q(os.path.join(config.test_source_root, "Inputs", "run-omp19.sh")),
                                q(config.ol_tmpfile_shim))
# The same on libomptarget 22 (liboffload-22), which uses libomp-19's
# libomp.so.5 as Debian's 22 packages do; %omp22flags compiles and links a
# clang 22 OpenMP program for it (omp.h from the unpacked libomp-22-dev).
subs["%run-omp22"] = "env OL_OMP_LIBDIR=/usr/lib/llvm-22/lib:/usr/lib/llvm-19/lib " + subs["%run-omp19"]
subs["%omp22flags"] = "-I %s -L /usr/lib/llvm-22/lib -L /usr/lib/llvm-19/lib" % q(os.path.join(
    config.ol_omp22_root, "usr/lib/llvm-22/lib/clang/22/include"))

# Running a command with a directory on a small file system (a tmpfs where a
# mount namespace can be had, else the preloaded Inputs/cache/small-disk.c):
# %small-disk DIR KIB COMMAND...
subs["%small-disk"] = "%s %s" % (q(os.path.join(config.test_source_root, "Inputs", "cache",
                                                "small-disk.sh")), q(config.ol_small_disk_shim))

# %blank-free-t: like %t, a path for the test's own files, but one with no
# blank wherever the tree lives (under /tmp, named after this build tree and
# the test), for what cannot live under a path with one; the test removes it.
# (offload-link enable will not name a directory with a blank in clang's
# configuration files.)  lit replaces %{t:stem} after this.
subs["%blank-free-t"] = "/tmp/offload-link-%s-%%{t:stem}" % hashlib.sha256(
    config.ol_binary_dir.encode()).hexdigest()[:12]

for version in ("16", "19", "22"):
    # The release's own tools (clang-offload-packager), for test/lit/upstream.
    subs.setdefault("%llvm" + version + "bin", "/usr/lib/llvm-%s/bin" % version)
    clang = shutil.which("clang-" + version)
    if clang:
        config.available_features.add("clang" + version)
        subs["%clang" + version] = clang
        subs["%clangxx" + version] = shutil.which("clang++-" + version) or clang
    upstream = "/usr/lib/llvm-%s/bin/clang-linker-wrapper" % version
    if os.access(upstream, os.X_OK):
        config.available_features.add("upstream-wrapper-" + version)
        subs["%upstream-wrapper" + version] = upstream

# The standalone wrapper tools "offload-link wrap" takes over: features
# clang-offload-wrapper-14, llvm-offload-wrapper-22.
for tool, version in (("clang-offload-wrapper", "14"), ("llvm-offload-wrapper", "22")):
    path = "/usr/lib/llvm-%s/bin/%s" % (version, tool)
    if os.access(path, os.X_OK):
        config.available_features.add("%s-%s" % (tool, version))
        subs["%%%s%s" % (tool, version)] = path

# The backends built for other LLVM majors, beside the default one.
for major in ("16", "19", "22"):
    plugin = os.path.join(os.path.dirname(config.ol_backend), "offload-link-llvm-%s.so" % major)
    if os.path.exists(plugin):
        config.available_features.add("backend" + major)
        subs["%backend" + major] = q(plugin)

if os.path.exists(os.path.join(config.ol_omp16_root, "usr/lib/llvm-16/lib/libomptarget.so")):
    config.available_features.add("omp16-runtime")
if os.path.exists("/usr/lib/llvm-19/lib/libomptarget.so"):
    config.available_features.add("omp19-runtime")
if os.path.exists("/usr/lib/llvm-22/lib/libomptarget.so") and os.path.exists(
        os.path.join(config.ol_omp22_root, "usr/lib/llvm-22/lib/clang/22/include/omp.h")):
    config.available_features.add("omp22-runtime")

# GPU device links (target_nvptx.c, target_amdgpu.c): "cuda" when ptxas and
# nvlink are in /usr/local/cuda/bin or on PATH (no GPU needed), "ld.lld" when
# an ld.lld is there for AMDGPU code objects.
def find_tool(name, dirs):
    for d in dirs:
        candidate = os.path.join(d, name)
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which(name)

if find_tool("ptxas", ["/usr/local/cuda/bin"]) and find_tool("nvlink", ["/usr/local/cuda/bin"]):
    config.available_features.add("cuda")
    subs["%cudapath"] = os.path.dirname(os.path.dirname(
        find_tool("ptxas", ["/usr/local/cuda/bin"])))
    # Upstream's clang-nvlink-wrapper (19) finds nvlink only on PATH, and a
    # fresh machine's PATH does not name CUDA's bin directory.
    config.environment["PATH"] = os.pathsep.join(
        [config.environment["PATH"], os.path.join(subs["%cudapath"], "bin")])
if find_tool("ld.lld", [config.ol_llvm22_bindir]):
    config.available_features.add("ld.lld")
# "comgr": libamd-comgr (Debian's libamd-comgr-dev), the reader of code
# object metadata the HIP runtime uses (Inputs/gpu/comgr-kernels.c).
if os.path.exists("/usr/include/amd_comgr.h") and any(
        os.path.exists(os.path.join(d, "libamd_comgr.so"))
        for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/opt/rocm/lib")):
    config.available_features.add("comgr")

# "llvm-dtlto-utils": LLVM's DTLTO scripts (validate.py, local.py) from an
# LLVM source tree, where OL_LLVM_DTLTO_UTILS names their directory.
dtlto_utils = os.environ.get("OL_LLVM_DTLTO_UTILS", "")
if dtlto_utils and all(os.path.exists(os.path.join(dtlto_utils, f))
                       for f in ("validate.py", "local.py")):
    config.available_features.add("llvm-dtlto-utils")
    config.environment["OL_LLVM_DTLTO_UTILS"] = dtlto_utils

# "slurm": the daemons of a one-node Slurm cluster a test starts for itself
# (Inputs/distributor/slurm-cluster.sh; Debian's slurm-wlm and munge).
if all(shutil.which(t) or os.access("/usr/sbin/" + t, os.X_OK)
       for t in ("munged", "slurmctld", "slurmd", "sbatch", "sinfo")):
    config.available_features.add("slurm")
    config.environment["PATH"] = os.pathsep.join([config.environment["PATH"], "/usr/sbin"])

# Longest first, so no substitution eats the prefix of another
# (%clang-linker-wrapper before anything starting with %clang).
for key in sorted(subs, key=len, reverse=True):
    config.substitutions.append((key, subs[key]))
