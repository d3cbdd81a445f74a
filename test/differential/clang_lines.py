#!/usr/bin/env python3
"""The lines clang writes (issue 16, item 3): for clang 16, 19 and 22 and each
link flag users put on an offloading link, the clang-linker-wrapper command
`clang -###` prints is run through upstream's wrapper and through
offload-link with --dry-run, and the host linker commands are compared as the
option matrix compares them (docs/compat.md, "Differences the clang lines
accept").  Where the program can run here (the CPU offload target, with
clang 16's or 19's runtime), it is also linked for real both ways, through
clang (upstream) and through clang -B (offload-link), and both programs run:
their target region must run on the device and their outputs must agree.

    clang_lines.py --offload-link build/bin/offload-link
                   --wrapper-dir build/libexec/offload-link --shim <preload.so>
                   [--omp16-root DIR] [--jobs 2] [--releases 16,19,22]
"""

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wrapper_runs  # noqa: E402

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPAT_MD = os.path.join(SOURCE_DIR, "docs", "compat.md")
HEADING = "Differences the clang lines accept"
CUDA = "/usr/local/cuda"
CPU = "x86_64-unknown-linux-gnu"

# The program: its target region says where it ran.  No <omp.h> (clang 16's
# and 22's packages here have none): its two variants of
# omp_is_initial_device, which tell the host from the device, are copied.
PROGRAM = r"""
#pragma omp begin declare variant match(device = {kind(host)})
static inline int omp_is_initial_device(void) { return 1; }
#pragma omp end declare variant
#pragma omp begin declare variant match(device = {kind(nohost)})
static inline int omp_is_initial_device(void) { return 0; }
#pragma omp end declare variant
int work(int);
int main(void) {
  int on_host = 1, sum = 0;
#pragma omp target map(tofrom: on_host, sum)
  {
    on_host = omp_is_initial_device();
    for (int i = 0; i < 10; i++)
      sum += i;
  }
  __builtin_printf("target region on the %s, sum %d, work %d\n",
                   on_host ? "host" : "device", sum, work(4));
  return on_host;
}
"""
SECOND_UNIT = "int work(int x) { return 3 * x; }\n"

# CUDA/HIP relocatable device code without vendor headers.
KERNELS = r"""
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
struct dim3 { unsigned x, y, z; };
typedef struct CUstream_st *cudaStream_t;
extern "C" int cudaLaunchKernel(const void*, dim3, dim3, void**, unsigned long, cudaStream_t);
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, cudaStream_t);
__device__ int scale(int x);
__global__ void kernel(int *out) { *out = scale(21); }
"""
DEVICE_FUNCTION = r"""
#define __device__ __attribute__((device))
__device__ int scale(int x) { return 2 * x; }
"""

# name: (compile flags, link flags, runs here, releases).  The base flags of
# each kind come first (KIND_FLAGS); "gpu" links are compared, never run.
VARIANTS = [
    ("plain", [], [], True),
    ("O0", [], ["-O0"], True),
    ("O1", [], ["-O1"], True),
    ("O2", [], ["-O2"], True),
    ("O3", [], ["-O3"], True),
    ("Ofast", [], ["-Ofast"], True),
    ("Os", [], ["-Os"], True),
    ("g", ["-g"], ["-g"], True),
    # The release's own lld reads its bitcode (/usr/bin/ld.lld is LLVM 14's).
    ("host-lto", ["-flto"], ["-flto", "--ld-path=/usr/lib/llvm-{N}/bin/ld.lld"], True),
    ("offload-lto", [], ["-foffload-lto"], True),
    ("no-offload-lto", [], ["-fno-offload-lto"], True),
    ("target-jit", ["-fopenmp-target-jit"], ["-fopenmp-target-jit"], False),
    ("fuse-ld-lld", [], ["-fuse-ld=lld"], True),
    ("static", [], ["-static"], False),
    ("shared", ["-fPIC"], ["-shared"], False),
    ("relocatable", [], ["-r"], False),
    ("save-temps", [], ["-save-temps"], True),
    ("verbose", [], ["-v"], True),
    ("Wl", [], ["-Wl,-z,now,-z,relro"], True),
    ("Wl-v", [], ["-Wl,-v"], False),
    ("Xoffload-linker", [], ["-Xoffload-linker", "-O1"], True),
    ("response-file", [], ["@link.rsp"], True),
]
GPU_VARIANTS = [
    ("omp-sm80-sm90", ["--offload-arch=sm_80,sm_90"], ["--offload-arch=sm_80,sm_90"]),
    ("omp-sm90-O3", ["--offload-arch=sm_90"], ["--offload-arch=sm_90", "-O3"]),
    ("omp-cuda-path", ["--offload-arch=sm_90"], ["--offload-arch=sm_90",
                                                 "--cuda-path=" + CUDA]),
    ("omp-gfx90a", ["--offload-arch=gfx90a"], ["--offload-arch=gfx90a", "-O2"]),
]
RDC_VARIANTS = [
    ("cuda-rdc", "cuda", "sm_90"),
    ("hip-rdc", "hip", "gfx90a"),
]


def run(argv, cwd, env=None, check=True):
    p = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    out = p.stdout.decode("utf-8", "replace")
    if check and p.returncode:
        raise SystemExit("command failed: %s\n%s" % (" ".join(argv), out))
    return p.returncode, out


class Release:
    def __init__(self, n, omp16_root):
        self.n = n
        self.clang = shutil.which("clang-%d" % n)
        self.upstream = "/usr/lib/llvm-%d/bin/clang-linker-wrapper" % n
        self.omp_flags = ["-fopenmp"] + (["--offload-new-driver"] if n == 16 else [])
        if n == 16:
            self.runtime = os.path.join(omp16_root, "usr/lib/llvm-16/lib")
        else:
            self.runtime = "/usr/lib/llvm-%d/lib" % n
        # A program runs where the release's libomptarget is installed.
        # clang 22's (liboffload-22) runs its programs in the e2e and lit tests;
        # here its lines are compared, not linked for real.
        self.runs = n != 22 and os.path.exists(os.path.join(self.runtime, "libomptarget.so"))
        # The driver adds -L for its own runtime directory only; clang 16's
        # runtime is unpacked elsewhere.
        self.link_extra = ["-L" + self.runtime] if n == 16 else []


def wrapper_command(release, cwd, argv):
    """The clang-linker-wrapper line of `clang -### argv`."""
    _, out = run([release.clang, "-###"] + argv, cwd, check=False)
    for line in out.splitlines():
        if "clang-linker-wrapper" in line and line.startswith(" \""):
            return shlex.split(line)[1:]
    raise SystemExit("clang-%d -### %s: no wrapper command in\n%s" % (release.n, " ".join(argv),
                                                                     out))


def cases_for(release, work):
    """(name, directory, compile commands, link argv, runs here) per variant."""
    out = []
    cpu = release.omp_flags + ["-fopenmp-targets=" + CPU]
    for name, cflags, lflags, runs in VARIANTS:
        lflags = [f.replace("{N}", str(release.n)) for f in lflags]
        compiles = [[release.clang] + cpu + cflags + ["-c", "main.c", "-o", "main.o"],
                    [release.clang] + cpu + cflags + ["-c", "work.c", "-o", "work.o"]]
        link = cpu + lflags + ["main.o", "work.o"] + release.link_extra + ["-o", "prog"]
        out.append((name, compiles, link, runs and release.runs))
    for name, cflags, lflags in GPU_VARIANTS:
        gpu = release.omp_flags + ["-nogpulib", "--cuda-path=" + CUDA]
        compiles = [[release.clang] + gpu + cflags + ["-c", "main.c", "-o", "main.o"],
                    [release.clang] + gpu + cflags + ["-c", "work.c", "-o", "work.o"]]
        link = gpu + lflags + ["main.o", "work.o"] + release.link_extra + ["-o", "prog"]
        out.append((name, compiles, link, False))
    for name, language, arch in RDC_VARIANTS:
        flags = ["-x", language, "--offload-new-driver", "-fgpu-rdc", "--offload-arch=" + arch,
                 "-w"] + (["-nocudainc", "-nocudalib", "--cuda-path=" + CUDA]
                          if language == "cuda" else ["-nogpuinc", "-nogpulib"])
        compiles = [[release.clang] + flags + ["-c", "kernels.cu", "-o", "kernels.o"],
                    [release.clang] + flags + ["-c", "device.cu", "-o", "device.o"]]
        link = ["--offload-new-driver", "-fgpu-rdc", "--offload-arch=" + arch,
                # clang links CUDA objects through the wrapper when asked.
                "--offload-link" if language == "cuda" else "--hip-link",
                "kernels.o", "device.o", "-shared", "-o", "prog"]
        if language == "cuda":
            link += ["--cuda-path=" + CUDA]
        out.append((name, compiles, link, False))
    return [(name, os.path.join(work, "clang%d" % release.n, name), compiles, link, runs)
            for name, compiles, link, runs in out]


def prepare(case):
    name, cwd, compiles, link, runs = case
    os.makedirs(cwd, exist_ok=True)
    for file, text in (("main.c", PROGRAM), ("work.c", SECOND_UNIT), ("kernels.cu", KERNELS),
                       ("device.cu", DEVICE_FUNCTION)):
        with open(os.path.join(cwd, file), "w") as f:
            f.write(text)
    if "@link.rsp" in link:
        with open(os.path.join(cwd, "link.rsp"), "w") as f:
            f.write("-O2 -Wl,-z,now\n")
    for argv in compiles:
        run(argv, cwd)


def run_program(path, release, shim, cwd):
    env = dict(os.environ)
    # LD_PRELOAD splits its list at spaces, and the build tree's path may have
    # one: the shim goes by its name, found in its directory on LD_LIBRARY_PATH.
    env.update({"OMP_TARGET_OFFLOAD": "MANDATORY", "LD_PRELOAD": os.path.basename(shim),
                "OL_TMPFILE_DIR": os.path.join(cwd, "tmp"),
                "LD_LIBRARY_PATH": release.runtime + ":" + os.path.dirname(shim)})
    os.makedirs(env["OL_TMPFILE_DIR"], exist_ok=True)
    return run([path], cwd, env, check=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--offload-link", required=True)
    ap.add_argument("--wrapper-dir", required=True, help="the -B directory (clang-linker-wrapper)")
    ap.add_argument("--shim", required=True, help="the e2e tests' preload (tmpfile-redirect)")
    ap.add_argument("--omp16-root", default="/nonexistent")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--releases", default="16,19,22")
    ap.add_argument("--work", default=None)
    args = ap.parse_args()
    started = time.time()
    work = os.path.abspath(args.work or "clang-lines")
    shutil.rmtree(work, ignore_errors=True)
    releases = {int(n): Release(int(n), args.omp16_root) for n in args.releases.split(",")}
    todo = []
    for release in releases.values():
        todo += [(release,) + case for case in cases_for(release, work)]
    wrapper_runs.run_all(args.jobs, lambda c: prepare(c[1:]), todo)

    env = dict(os.environ)
    env["OFFLOAD_LINK_NO_CACHE"] = "1"

    def one(case):
        release, name, cwd, _, link, runs = case
        line = wrapper_command(release, cwd, link)
        linker = next(w.split("=", 1)[1] for w in line if w.startswith("--linker-path="))
        results = []
        for who, program in (("upstream", release.upstream), ("offload-link", args.offload_link)):
            rundir = os.path.join(cwd, who)
            os.makedirs(rundir)
            # Inputs are named relative to the case's directory.
            argv = [program, "--dry-run"] + [os.path.join(cwd, w) if os.path.exists(
                os.path.join(cwd, w)) and not w.startswith("/") else w for w in line]
            results.append(wrapper_runs.run_wrapper(argv, rundir, linker, env))
        problems = []
        if runs:
            outputs = []
            for who, extra in (("upstream", []), ("offload-link", ["-B", args.wrapper_dir])):
                prog = "prog-" + who
                status, out = run([release.clang] + extra + link[:-1] + [prog], cwd, env,
                                  check=False)
                if status:
                    problems.append("%s: the link failed:\n%s" % (who, out))
                    continue
                status, out = run_program(os.path.join(cwd, prog), release, args.shim, cwd)
                if status or "on the device" not in out:
                    problems.append("%s: the program failed (exit %d):\n%s" % (who, status, out))
                outputs.append(out)
            if len(outputs) == 2 and outputs[0] != outputs[1]:
                problems.append("the programs' outputs differ:\n%s---\n%s" % tuple(outputs))
        return results, problems

    results = wrapper_runs.run_all(args.jobs, one, todo)
    rows = wrapper_runs.read_accepted(COMPAT_MD, HEADING)
    differences, failures, ran = [], [], 0
    for case, ((theirs, ours), problems) in zip(todo, results):
        release, name = case[0], case[1]
        ran += case[5]
        for p in problems:
            failures.append("clang %d %s: %s" % (release.n, name, p))
        if not theirs.same_as(ours):
            differences.append(("clang %d %s" % (release.n, name),
                                wrapper_runs.find_accepted(rows, release.n, name, "*"),
                                ours, theirs))
    for f in failures:
        print("FAILED", f)
    print("clang lines: %d programs linked both ways and run" % ran)
    status = wrapper_runs.report("clang lines", len(todo), differences, rows, started)
    if status == 0 and not failures:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else status


if __name__ == "__main__":
    sys.exit(main())
