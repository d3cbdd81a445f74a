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
