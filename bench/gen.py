"""Generators for the link benchmarks (used by bench/run.py).

Each writes C sources into a directory and compiles them to objects with a
given clang, two compiles at a time by default.  The sources are
deterministic, so the same parameters give the same objects.
"""

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor


def _compile_all(jobs, cmds):
    def run(cmd):
        subprocess.run(cmd, check=True)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for future in [pool.submit(run, cmd) for cmd in cmds]:
            future.result()


def _write_main(outdir, declarations, setup, calls):
    """main.c: the declarations, then main() summing the calls and printing
    the total."""
    main = os.path.join(outdir, "main.c")
    with open(main, "w") as out:
        out.write("#include <stdio.h>\n" + "".join(d + "\n" for d in declarations))
        out.write("int main(void) {\n" + setup + "  long total = 0;\n")
        for call in calls:
            out.write("  total += %s;\n" % call)
        out.write("  printf(\"%ld\\n\", total);\n  return 0;\n}\n")
    return main


def host_units(outdir, clang, units, jobs):
    """`units` plain C files, each with a few functions calling the previous
    unit, plus main.c calling the last one: a host link with many objects and
    no offloading data.  Returns the object paths, main.o first."""
    os.makedirs(outdir, exist_ok=True)
    sources = []
    for u in range(units):
        path = os.path.join(outdir, "unit%03d.c" % u)
        lines = []
        if u > 0:
            lines.append("int unit%03d_f2(int);" % (u - 1))
        for f in range(3):
            body = "x * %d + %d" % (f + 2, u)
            if u > 0 and f == 2:
                body = "unit%03d_f2(x) + %s" % (u - 1, body)
            lines.append("int unit%03d_f%d(int x) { return %s; }" % (u, f, body))
        lines.append("const char unit%03d_name[] = \"unit %d\";" % (u, u))
        with open(path, "w") as out:
            out.write("\n".join(lines) + "\n")
        sources.append(path)
    main = os.path.join(outdir, "main.c")
    with open(main, "w") as out:
        out.write("#include <stdio.h>\nint unit%03d_f2(int);\n"
                  "int main(void) { printf(\"%%d\\n\", unit%03d_f2(1)); return 0; }\n"
                  % (units - 1, units - 1))
    sources.insert(0, main)
    objects = [s[:-2] + ".o" for s in sources]
    _compile_all(jobs, [[clang, "-O1", "-c", s, "-o", o] for s, o in zip(sources, objects)])
    return objects


def offload_units(outdir, clang, units, kernels, jobs):
    """`units` C files with `kernels` target regions each (and a declare
    target helper), compiled for x86_64-unknown-linux-gnu offloading, plus
    main.c running one kernel of every unit.  Returns the object paths, main.o
    first."""
    os.makedirs(outdir, exist_ok=True)
    sources = []
    for u in range(units):
        path = os.path.join(outdir, "kern%03d.c" % u)
        lines = ["#pragma omp declare target",
                 "static int helper%03d(int x) { return x * %d + 1; }" % (u, u % 7 + 2),
                 "#pragma omp end declare target"]
        for k in range(kernels):
            lines += [
                "int kern%03d_%d(int n) {" % (u, k),
                "  int sum = 0;",
                "#pragma omp target map(tofrom: sum)",
                "  for (int i = 0; i < n; i++) sum += helper%03d(i + %d);" % (u, k),
                "  return sum;",
                "}",
            ]
        with open(path, "w") as out:
            out.write("\n".join(lines) + "\n")
        sources.append(path)
    main = _write_main(outdir, ["int kern%03d_0(int);" % u for u in range(units)], "",
                       ["kern%03d_0(4)" % u for u in range(units)])
    sources.insert(0, main)
    objects = [s[:-2] + ".o" for s in sources]
    flags = ["-O1", "-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu"]
    _compile_all(jobs, [[clang] + flags + ["-c", s, "-o", o] for s, o in zip(sources, objects)])
    return objects


GPU_ARCHS = ("sm_80", "sm_90", "gfx90a", "gfx942")


def gpu_flags(archs, lto, runtime=True):
    """Flags for an OpenMP GPU compile.  With runtime (clang 19): NVPTX
    non-LTO compiles take the device runtime's bitcode from LLVM 19's lib
    directory; AMDGPU goes without ROCm's device libraries, which these
    machines lack; the link adds -lomptarget.devicertl for both.  Without
    runtime: -nogpulib (clang 22, which ships no device runtime here)."""
    flags = ["-fopenmp", "--offload-arch=" + ",".join(archs)]
    if not runtime:
        flags.append("-nogpulib")
    else:
        if not lto:
            flags.append("--libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib")
        flags += ["-Xopenmp-target=amdgcn-amd-amdhsa", "-nogpulib"]
    if lto:
        flags.append("-foffload-lto")
    return flags


def gpu_sources(outdir, units, bare=False):
    """`units` C files with one GPU kernel and one declare target global
    each, plus main.c calling every kernel.  bare: ompx_bare kernels, which
    need no device runtime.  Returns the paths, main.c first."""
    region = ("target teams ompx_bare num_teams(1) thread_limit(1) map(tofrom: a[0:n])" if bare
              else "target teams distribute parallel for map(tofrom: a[0:n])")
    os.makedirs(outdir, exist_ok=True)
    sources = []
    for u in range(units):
        path = os.path.join(outdir, "gpu%03d.c" % u)
        with open(path, "w") as out:
            out.write("#pragma omp declare target\n"
                      "int gpu%03d_scale = %d;\n"
                      "#pragma omp end declare target\n"
                      "int gpu%03d(int *a, int n) {\n"
                      "#pragma omp %s\n"
                      "  for (int i = 0; i < n; i++) a[i] += i * gpu%03d_scale;\n"
                      "  return a[0];\n}\n" % (u, u % 5 + 1, u, region, u))
        sources.append(path)
    main = _write_main(outdir, ["int gpu%03d(int *, int);" % u for u in range(units)],
                       "  int a[16] = {0};\n", ["gpu%03d(a, 16)" % u for u in range(units)])
    return [main] + sources


def gpu_units(outdir, clang, units, archs, lto, jobs, runtime=True):
    """gpu_sources compiled with gpu_flags.  lto: True, False, or "mixed"
    (every other unit with -foffload-lto, so that a link sees bitcode and
    relocatable device objects of the same architecture).  Returns the
    object paths, main.o first."""
    sources = gpu_sources(outdir, units, bare=not runtime)
    objects = [s[:-2] + ".o" for s in sources]
    cmds = []
    for i, (src, obj) in enumerate(zip(sources, objects)):
        unit_lto = (i % 2 == 1) if lto == "mixed" else bool(lto)
        cmds.append([clang, "-O1"] + gpu_flags(archs, unit_lto, runtime) + ["-c", src, "-o", obj])
    _compile_all(jobs, cmds)
    return objects


def _heavy_shared(u, shared_callers):
    """Unit u's part of h_shared(): its declaration (and in unit 0 its
    definition), and the call f0 makes when u is one of its callers."""
    shared = ""
    if shared_callers:
        shared = "double h_shared(double);\n"
        if u == 0:
            shared += "double h_shared(double x) { return x * 0.5 + 1.0; }\n"
    return shared, ("h_shared(x) + " if u < shared_callers else "")


# One unit of the heavy program, C and C++ (%-formatted with u, n: the next
# unit, k, shared: h_shared()'s part, call: its call in f0).
HEAVY_C_UNIT = (
    "#pragma omp declare target\n%(shared)s"
    "double h%(u)03d_g0[64], h%(u)03d_g1[64], h%(u)03d_g2[64], h%(u)03d_g3[64];\n"
    "double h%(n)03d_f2(double);\n"
    "double h%(u)03d_f0(double x) {\n"
    "  int i = (int)x & 63;\n"
    "  return %(call)sx * h%(u)03d_g0[i] + h%(u)03d_g1[(i + %(k)d) & 63];\n}\n"
    "double h%(u)03d_f1(double x) {\n"
    "  double s = 0;\n"
    "  for (int j = 0; j < 4; j++) s += h%(u)03d_f0(x + j) * h%(u)03d_g2[j];\n"
    "  return s + h%(n)03d_f2(x);\n}\n"
    "double h%(u)03d_f2(double x) { return x * h%(u)03d_g3[(int)x & 63] + %(k)d; }\n"
    "#pragma omp end declare target\n"
    "double h%(u)03d(double *a, int n) {\n"
    "  double sum = 0;\n"
    "#pragma omp target teams distribute parallel for reduction(+: sum) "
    "map(to: a[0:n])\n"
    "  for (int i = 0; i < n; i++) sum += h%(u)03d_f1(a[i]);\n"
    "  return sum;\n}\n")

HEAVY_CXX_UNIT = (
    "#pragma omp declare target\n%(shared)s"
    "double h%(u)03d_g0[64], h%(u)03d_g1[64], h%(u)03d_g2[64], h%(u)03d_g3[64];\n"
    "double h%(n)03d_f2(double);\n"
    "struct H%(u)03dBase {\n  double w;\n  H%(u)03dBase(double w);\n"
    "  virtual ~H%(u)03dBase();\n  virtual double eval(double x) const;\n};\n"
    "struct H%(u)03dScaled : H%(u)03dBase {\n  double s;\n"
    "  H%(u)03dScaled(double w, double s);\n  ~H%(u)03dScaled() override;\n"
    "  double eval(double x) const override;\n};\n"
    "H%(u)03dBase::H%(u)03dBase(double w) : w(w) {}\n"
    "H%(u)03dBase::~H%(u)03dBase() {}\n"
    "double H%(u)03dBase::eval(double x) const { return x * w; }\n"
    "H%(u)03dScaled::H%(u)03dScaled(double w, double s) : H%(u)03dBase(w), s(s) {}\n"
    "H%(u)03dScaled::~H%(u)03dScaled() {}\n"
    "double H%(u)03dScaled::eval(double x) const { return H%(u)03dBase::eval(x) * s + %(k)d; }\n"
    "template <typename T> T h%(u)03d_mix(T a, T b) { return a * T(0.75) + b; }\n"
    "double h%(u)03d_f0(double x) {\n"
    "  int i = (int)x & 63;\n"
    "  return %(call)sx * h%(u)03d_g0[i] + h%(u)03d_g1[(i + %(k)d) & 63];\n}\n"
    "double h%(u)03d_f1(double x) {\n"
    "  H%(u)03dScaled obj(h%(u)03d_g2[1] + 1.0, 2.0);\n"
    "  const H%(u)03dBase &base = obj;\n"
    "  double s = 0;\n"
    "  for (int j = 0; j < 4; j++) s += h%(u)03d_f0(x + j) * h%(u)03d_g2[j];\n"
    "  return h%(u)03d_mix(s + base.eval(x), h%(n)03d_f2(x));\n}\n"
    "double h%(u)03d_f2(double x) { return x * h%(u)03d_g3[(int)x & 63] + %(k)d; }\n"
    "#pragma omp end declare target\n"
    "extern \"C\" double h%(u)03d(double *a, int n) {\n"
    "  double sum = 0;\n"
    "#pragma omp target teams distribute parallel for reduction(+: sum) "
    "map(to: a[0:n])\n"
    "  for (int i = 0; i < n; i++) sum += h%(u)03d_f1(a[i]);\n"
    "  return sum;\n}\n")


def _heavy_program(outdir, units, shared_callers, ext, unit_text):
    """Writes the units of the heavy program and its main.c; returns the
    paths, main.c first."""
    os.makedirs(outdir, exist_ok=True)
    sources = []
    for u in range(units):
        shared, call = _heavy_shared(u, shared_callers)
        path = os.path.join(outdir, "heavy%03d%s" % (u, ext))
        with open(path, "w") as out:
            out.write(unit_text % {"u": u, "n": (u + 1) % units, "k": u % 7 + 1,
                                   "shared": shared, "call": call})
        sources.append(path)
    main = _write_main(outdir, ["double h%03d(double *, int);" % u for u in range(units)],
                       "  double a[64] = {0};\n", ["(long)h%03d(a, 64)" % u for u in range(units)])
    return [main] + sources


def heavy_sources(outdir, units, shared_callers=0):
    """The heavy GPU program (issue 12): `units` C files, each with one
    reduction kernel over a mapped array, four declare target arrays of 64 and
    three declare target functions, one of which calls a function of the next
    unit (so the device link resolves symbols across units), plus main.c.
    Linked with the device runtime, OpenMPOpt's Attributor dominates each
    architecture's LTO.  shared_callers > 0: unit 0 also defines h_shared(),
    which f0 of the first shared_callers units calls (a function many units
    call, for the partitioned relink).  Returns the paths, main.c first."""
    return _heavy_program(outdir, units, shared_callers, ".c", HEAVY_C_UNIT)


def heavy_cxx_sources(outdir, units, shared_callers=0):
    """The heavy program in C++ (issue 25): each unit's f1 builds an object of
    a class with an out-of-line constructor and destructor (which give the
    module aliases) and calls its virtual function through a base reference,
    and mixes with a function template; f2, h_shared and the kernel are as in
    heavy_sources.  main.c stays C (the kernels' host functions are extern
    "C").  Returns the paths, main.c first."""
    return _heavy_program(outdir, units, shared_callers, ".cpp", HEAVY_CXX_UNIT)


def heavy_units(outdir, clang, units, archs, jobs, shared_callers=0, lang="c", debug=False,
                extra=()):
    """heavy_sources (lang "c") or heavy_cxx_sources ("c++", compiled with
    clang++) compiled as the issue measured them: -O2, the four
    architectures, -nogpulib (the link adds -lomptarget.devicertl), -g
    when debug, and the extra flags.  Returns the object paths, main.o first."""
    if lang == "c++":
        sources = heavy_cxx_sources(outdir, units, shared_callers)
    else:
        sources = heavy_sources(outdir, units, shared_callers)
    objects = [os.path.splitext(s)[0] + ".o" for s in sources]
    flags = heavy_flags(archs) + (["-g"] if debug else []) + list(extra)
    cxx = clang.replace("clang-", "clang++-")
    _compile_all(jobs, [[cxx if s.endswith(".cpp") else clang, "-O2"] + flags + ["-c", s, "-o", o]
                        for s, o in zip(sources, objects)])
    return objects


def heavy_flags(archs):
    return ["-fopenmp", "--offload-arch=" + ",".join(archs), "-nogpulib"]


def project_units(outdir, clang, units, programs, archs, jobs):
    """A project of `programs` executables sharing one static library: the
    library is gpu_sources' units in libdev.a; each program's main.c differs
    from the others in host code only and calls every library function, so
    every executable links the same device code (the case AMReX reports).
    Returns (library path, [main objects])."""
    sources = gpu_sources(outdir, units)[1:]
    objects = [s[:-2] + ".o" for s in sources]
    mains = []
    for p in range(programs):
        path = os.path.join(outdir, "prog%02d.c" % p)
        with open(path, "w") as out:
            out.write("#include <stdio.h>\n")
            out.write("".join("int gpu%03d(int *, int);\n" % u for u in range(units)))
            out.write("int main(void) {\n  int a[16] = {0};\n  long total = %d;\n" % p)
            out.write("".join("  total += gpu%03d(a, 16);\n" % u for u in range(units)))
            out.write("  printf(\"program %d: %%ld\\n\", total);\n  return 0;\n}\n" % p)
        mains.append(path)
    cmds = [[clang, "-O1"] + gpu_flags(archs, False) + ["-c", src, "-o", src[:-2] + ".o"]
            for src in sources + mains]
    _compile_all(jobs, cmds)
    library = os.path.join(outdir, "libdev.a")
    if os.path.exists(library):
        os.remove(library)
    subprocess.run(["/usr/lib/llvm-19/bin/llvm-ar", "rcs", library] + objects, check=True)
    return library, [m[:-2] + ".o" for m in mains]


# What the CUDA/HIP sources need of the vendors' headers, without them: the
# attributes clang knows and the launch function a kernel's host stub calls.
GPU_LANG_PRELUDE = """\
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __host__ __attribute__((host))
struct dim3 { unsigned x, y, z; __host__ __device__ dim3(unsigned a = 1, unsigned b = 1,
  unsigned c = 1) : x(a), y(b), z(c) {} };
typedef struct CUstream_st *stream_t;
extern "C" int %(launch)s(const void *, dim3, dim3, void **, unsigned long, stream_t);
"""


def rdc_sources(outdir, units, lang):
    """`units` CUDA or HIP files of relocatable device code: one kernel, a
    __device__ variable and a __device__ function each, calling the previous
    unit's function (so the device link resolves symbols across units), plus
    main.cu.  Returns the paths, main.cu first."""
    launch = "hipLaunchKernel" if lang == "hip" else "cudaLaunchKernel"
    prelude = GPU_LANG_PRELUDE % {"launch": launch}
    os.makedirs(outdir, exist_ok=True)
    sources = []
    for u in range(units):
        path = os.path.join(outdir, "rdc%03d.cu" % u)
        with open(path, "w") as out:
            out.write(prelude)
            if u > 0:
                out.write("__device__ int rdc%03d_f(int);\n" % (u - 1))
            call = "rdc%03d_f(x) + " % (u - 1) if u > 0 else ""
            out.write("__device__ int rdc%03d_var = %d;\n"
                      "__device__ int rdc%03d_f(int x) { return %sx * rdc%03d_var; }\n"
                      "__global__ void rdc%03d_kernel(int *p) { p[%d] = rdc%03d_f(p[0]); }\n"
                      % (u, u % 7 + 1, u, call, u, u, u % 16, u))
        sources.append(path)
    main = os.path.join(outdir, "main.cu")
    with open(main, "w") as out:
        out.write(prelude + "extern \"C\" int printf(const char *, ...);\n"
                  "int main() { printf(\"%d units\\n\", " + str(units) + "); return 0; }\n")
    return [main] + sources


def rdc_flags(lang, archs):
    """clang flags of a relocatable-device-code CUDA or HIP compile and link
    through the new offloading driver, without the vendors' headers and device
    libraries."""
    flags = ["--offload-new-driver", "-fgpu-rdc"] + ["--offload-arch=" + a for a in archs]
    if lang == "cuda":
        return flags + ["-nocudainc", "-nocudalib", "--cuda-path=/usr/local/cuda"]
    return flags + ["-nogpuinc", "-nogpulib"]


def rdc_units(outdir, clang, units, lang, archs, jobs):
    """rdc_sources compiled with rdc_flags.  Returns the object paths."""
    sources = rdc_sources(outdir, units, lang)
    objects = [s[:-3] + ".o" for s in sources]
    cmds = [[clang, "-x", lang, "-O2", "-w"] + rdc_flags(lang, archs) + ["-c", src, "-o", obj]
            for src, obj in zip(sources, objects)]
    _compile_all(jobs, cmds)
    return objects


def main():
    import argparse
    parser = argparse.ArgumentParser(description="Write and compile a benchmark program.")
    parser.add_argument("kind", choices=("gpu",))
    parser.add_argument("--out", required=True)
    parser.add_argument("--clang", default="clang-19")
    parser.add_argument("--units", type=int, default=20)
    parser.add_argument("--archs", default=",".join(GPU_ARCHS))
    parser.add_argument("--lto", choices=("no", "yes", "mixed"), default="no")
    parser.add_argument("--nogpulib", action="store_true", help="no device runtime (clang 22)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    lto = {"no": False, "yes": True, "mixed": "mixed"}[args.lto]
    objects = gpu_units(os.path.abspath(args.out), args.clang, args.units, args.archs.split(","), lto, args.jobs,
                        runtime=not args.nogpulib)
    print("\n".join(objects))


if __name__ == "__main__":
    main()
