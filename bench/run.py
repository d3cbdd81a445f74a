#!/usr/bin/env python3
"""Link-time and memory comparison of offload-link with upstream's
clang-linker-wrapper, in the same run on the same machine.

  bench/run.py [--build build] [--units 200] [--kernels 5] [--reps 7]
               [--gpu-units 100] [--gpu-archs sm_80,sm_90,gfx90a,gfx942] [--gpu-lto]
               [--gpu-clang 19|22]
               [--rdc-units 100] [--heavy-units 100]
               [--only host|offload|gpu|cuda|hip|relink|project|heavy|partitioned]

(a) host: a plain host link of many objects with no offloading data, the
    link CMake sends through the wrapper for every C/C++ target once clang is
    told to use it.  ld run directly, offload-link, and upstream 19 and 22,
    all with the same ld arguments (--linker-path=/usr/bin/ld).
(b) offload: a CPU-offload link (x86_64-unknown-linux-gnu device) of
    --units translation units with --kernels target regions each, compiled by
    clang 19: offload-link against upstream 19 with the command line clang 19
    gives the wrapper, and the floor: the linker commands offload-link runs
    (device shared object, host executable), replayed alone.
(c) gpu: an OpenMP GPU link of --gpu-units translation units with one kernel
    each for four architectures (sm_80, sm_90, gfx90a, gfx942), compiled by
    clang 19 with its device runtime: offload-link against upstream 19 at its
    default (one device link at a time) and with --wrapper-jobs=2.  With
    --gpu-clang 22: clang 22 objects built with -nogpulib against upstream 22.
    Needs CUDA's ptxas/nvlink; no GPU.
(f) project: --project-programs executables sharing one static library of
    --project-units GPU units (sm_80, gfx90a, clang 19 with the device
    runtime), each differing from the others in host code only: all of them
    linked by offload-link with an empty cache (the first links the device
    code, the others find it) against upstream 19 linking each in full.
(e) relink: the (c) program linked again after an edit of host code only
    (main.c recompiled): offload-link with its device-link cache warm (every
    device image a hit) against upstream 19, which links everything again;
    and the first link with the cache on (empty) against --no-cache, what
    the cache costs when it cannot help.
(g) heavy: issue 12's heavy OpenMP GPU program: --heavy-units units, each
    a reduction kernel, four declare target arrays and three declare target
    functions calling into the next unit, compiled by clang 19 at -O2 for the
    four architectures with -nogpulib and linked with -lomptarget.devicertl,
    so every architecture's LTO optimizes the device runtime with the user
    code (OpenMPOpt's Attributor dominates).  offload-link against upstream
    19 at its default and with --wrapper-jobs=2; CPU time matters here as
    much as wall time.
(h) partitioned: the (g) program with h_shared(), a function 50 units call,
    linked with full LTO (--device-lto=full, no cache), offload-link's
    default (partitioned LTO, its cache empty at first) and upstream 19
    at its default and with --wrapper-jobs=2: cold, then after editing one kernel of one unit,
    then after editing h_shared(); CPU time with wall time.  The same for
    the program under -g and for its C++ version (classes with out-of-line
    constructors and destructors, a virtual call, a template), without
    upstream (--partitioned-variants).  Each ends with the cold link
    estimated on 16 and 64 cores from --stats=json (bench/estimate_cores.py).  Then both modes
    link again with --save-temps and the AMDGPU kernels' code is compared
    (bench/compare_kernels.py): identical or not, and the largest difference
    in registers and instructions.
(d) cuda, hip: a CUDA program of --rdc-units translation units of
    relocatable device code (-fgpu-rdc, the new offloading driver) for sm_80
    and sm_90, and the same program as HIP for gfx90a and gfx942, compiled by
    clang 22: offload-link against upstream 22, which runs clang (and
    clang-nvlink-wrapper, or clang-offload-bundler) processes per link.  The
    host link takes libcudart / libamdhip64.

Runs of the variants alternate (ABC ABC ...) after one warm-up round, so
drifts in machine load touch all of them alike.  Reported: median and minimum
wall time, the ratio of medians to the baseline, and the median peak RSS of
the process tree (wait4's ru_maxrss: the largest single process).  No
assertions: the numbers are for reading.
"""

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import estimate_cores  # noqa: E402
import gen  # noqa: E402

HOST_TRIPLE = "x86_64-pc-linux-gnu"
LD = "/usr/bin/ld"


def generated(objdir, message, make):
    """The objects of a generated program: made once by make() (announced
    with message), then listed from objdir/done on later runs."""
    stamp = os.path.join(objdir, "done")
    if not os.path.exists(stamp):
        print(message, flush=True)
        objects = make()
        with open(stamp, "w") as out:
            out.write("\n".join(objects))
    with open(stamp) as inp:
        return inp.read().split("\n")


def driver_commands(argv):
    """The commands clang would run (clang -###), as argv lists."""
    proc = subprocess.run(argv + ["-###"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                          text=True, check=True)
    return [shlex.split(line) for line in proc.stderr.splitlines() if line.startswith(' "')]


def measure(cmd, cwd):
    """Wall seconds, peak RSS in KiB, CPU seconds (user + system, the
    process and every descendant it waited for), and an error text or None."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        cpu = usage.ru_utime + usage.ru_stime
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            tail = err.read().decode(errors="replace").strip().splitlines()[-3:]
            return elapsed, usage.ru_maxrss, cpu, "exit %d: %s" % (proc.returncode, " | ".join(tail))
    return elapsed, usage.ru_maxrss, cpu, None


def measure_sequence(cmds, cwd):
    """Several commands one after another: summed time and CPU, largest RSS."""
    total, peak, cpu_total = 0.0, 0, 0.0
    for cmd in cmds:
        elapsed, rss, cpu, error = measure(cmd, cwd)
        total += elapsed
        cpu_total += cpu
        peak = max(peak, rss)
        if error:
            return total, peak, cpu_total, error
    return total, peak, cpu_total, None


def compare(title, variants, baseline, reps, cwd, warmup=True):
    """variants: [(name, [cmd, ...])]; prints a table of medians.  warmup:
    one untimed round first (links of minutes skip it: the page cache is warm
    after generating the objects, and a round costs as much as a timed one)."""
    print("\n## %s\n" % title)
    times = {name: [] for name, _ in variants}
    rss = {name: [] for name, _ in variants}
    cpu = {name: [] for name, _ in variants}
    failed = {}
    first = 0 if warmup else 1
    for rep in range(first, reps + 1):
        for name, cmds in variants:
            if name in failed:
                continue
            elapsed, peak, used, error = measure_sequence(cmds, cwd)
            if error:
                failed[name] = error
                continue
            if rep > 0:  # round 0 warms the page cache
                times[name].append(elapsed)
                rss[name].append(peak)
                cpu[name].append(used)
    base = statistics.median(times[baseline]) if times.get(baseline) else None
    base_cpu = statistics.median(cpu[baseline]) if cpu.get(baseline) else None
    print("| variant | median ms | min ms | vs %s | CPU s | CPU vs %s | peak RSS MiB |"
          % (baseline, baseline))
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, _ in variants:
        if name in failed:
            print("| %s | failed: %s | | | | | |" % (name, failed[name][:160]))
            continue
        med = statistics.median(times[name])
        ratio = "%.2fx" % (med / base) if base else "-"
        used = statistics.median(cpu[name])
        cpu_ratio = "%.2fx" % (used / base_cpu) if base_cpu else "-"
        print("| %s | %.1f | %.1f | %s | %.2f | %s | %.1f |"
              % (name, med * 1e3, min(times[name]) * 1e3, ratio, used, cpu_ratio,
                 statistics.median(rss[name]) / 1024))
    return times, failed


def upstream_wrappers(versions):
    found = []
    for version in versions:
        path = "/usr/lib/llvm-%s/bin/clang-linker-wrapper" % version
        if os.access(path, os.X_OK):
            found.append(("upstream %s" % version, path))
        else:
            print("(no %s: install clang-tools-%s)" % (path, version))
    return found


def wrapper_variants(tool, driver_argv, version):
    """The wrapper command clang would run for driver_argv (clang -###), as
    variants: offload-link, then upstream `version` at its default and with
    --wrapper-jobs=2, all with the same arguments."""
    wrapper = [c for c in driver_commands(driver_argv)
               if os.path.basename(c[0]) == "clang-linker-wrapper"]
    if not wrapper:
        sys.exit("bench: clang -### printed no clang-linker-wrapper command")
    wrapper_args = wrapper[-1][1:]
    variants = [("offload-link", [[tool] + wrapper_args])]
    for name, path in upstream_wrappers((version,)):
        variants.append((name, [[path] + wrapper_args]))
        variants.append((name + " --wrapper-jobs=2", [[path, "--wrapper-jobs=2"] + wrapper_args]))
    return variants


def print_ratios(times, failed, variants):
    """How much longer each other variant takes than offload-link."""
    ours = statistics.median(times["offload-link"]) if "offload-link" not in failed else None
    for name, _ in variants[1:]:
        if ours and name not in failed and times.get(name):
            print("%s takes %.2fx the time of offload-link"
                  % (name, statistics.median(times[name]) / ours))


def bench_host(args, tool, work):
    objdir = os.path.join(work, "host-%d" % args.units)
    objects = generated(objdir, "generating and compiling %d host units ..." % args.units,
                        lambda: gen.host_units(objdir, args.clang, args.units, args.jobs))
    out = os.path.join(objdir, "app")
    link = [c for c in driver_commands([args.clang] + objects + ["-o", out])
            if os.path.basename(c[0]) == "ld"]
    if not link:
        sys.exit("bench: clang -### printed no ld command")
    ld_args = link[-1][1:]
    wrapper_args = ["--host-triple=" + HOST_TRIPLE, "--linker-path=" + LD] + ld_args
    variants = [("ld", [[LD] + ld_args]), ("offload-link", [[tool] + wrapper_args])]
    for name, path in upstream_wrappers(("19", "22")):
        variants.append((name, [[path] + wrapper_args]))
    compare("(a) host link, %d objects, no offloading data" % (args.units + 1), variants, "ld",
            args.reps, objdir)


def replayable_link_commands(tool, wrapper_args, cwd):
    """Runs offload-link once with --save-temps and -v in cwd and returns the
    linker commands it printed: they can be replayed, since --save-temps
    keeps the files they read."""
    proc = subprocess.run([tool, "--save-temps", "--wrapper-verbose"] + wrapper_args, cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        return None, proc.stdout.strip().splitlines()[-3:]
    cmds = []
    for line in proc.stdout.splitlines():
        if not line.startswith(' "') and not line.startswith('"'):
            continue
        argv = shlex.split(line)
        if os.path.basename(argv[0]) in ("ld", "ld.bfd", "ld.gold", "ld.lld", "lld"):
            cmds.append(argv)
    return cmds, None


def bench_offload(args, tool, work):
    objdir = os.path.join(work, "offload-%d-%d" % (args.units, args.kernels))
    objects = generated(objdir, "generating and compiling %d offloading units x %d kernels with %s ..."
              % (args.units, args.kernels, args.clang),
                        lambda: gen.offload_units(objdir, args.clang, args.units, args.kernels, args.jobs))
    out = os.path.join(objdir, "app")
    flags = ["-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu"]
    wrapper = [c for c in driver_commands([args.clang] + flags + objects + ["-o", out])
               if os.path.basename(c[0]) == "clang-linker-wrapper"]
    if not wrapper:
        sys.exit("bench: clang -### printed no clang-linker-wrapper command")
    wrapper_args = wrapper[-1][1:]
    variants = [("offload-link", [[tool] + wrapper_args])]
    for name, path in upstream_wrappers(("19",)):
        variants.append((name, [[path] + wrapper_args]))

    floor_dir = os.path.join(objdir, "floor")
    shutil.rmtree(floor_dir, ignore_errors=True)
    os.makedirs(floor_dir)
    floor, error = replayable_link_commands(tool, wrapper_args, floor_dir)
    if floor:
        variants.append(("floor: its %d ld runs alone" % len(floor), floor))
        baseline = variants[-1][0]
    else:
        print("(no floor: offload-link --save-temps -v failed or printed no linker command%s)"
              % (": " + " | ".join(error) if error else ""))
        baseline = "offload-link"
    times, failed = compare("(b) CPU-offload link, %d units x %d kernels (clang 19 objects)"
                            % (args.units, args.kernels), variants, baseline, args.reps, floor_dir)
    if "upstream 19" in times and "offload-link" not in failed and "upstream 19" not in failed:
        ours = statistics.median(times["offload-link"])
        theirs = statistics.median(times["upstream 19"])
        print("\noffload-link takes %.2fx the time of upstream 19 (%.1f ms vs %.1f ms)"
              % (ours / theirs, ours * 1e3, theirs * 1e3))


def bench_gpu(args, tool, work):
    archs = args.gpu_archs.split(",")
    lto = args.gpu_lto
    version = args.gpu_clang
    clang = "clang-" + version
    runtime = version == "19"  # LLVM 22 ships no device runtime here: -nogpulib
    objdir = os.path.join(work, "gpu%s-%d-%s%s" % (version, args.gpu_units, "-".join(archs),
                                                  "-lto" if lto else ""))
    objects = generated(objdir, "generating and compiling %d GPU units for %s with %s ..."
              % (args.gpu_units, ",".join(archs), clang),
                        lambda: gen.gpu_units(objdir, clang, args.gpu_units, archs, lto, args.jobs, runtime))
    out = os.path.join(objdir, "app")
    # LLVM 22 has no libomp/libomptarget here: the host link takes 19's.
    host_libs = [] if runtime else ["-L/usr/lib/llvm-19/lib"]
    variants = wrapper_variants(tool, [clang] + gen.gpu_flags(archs, lto, runtime) + objects
                                + host_libs + ["-o", out], version)
    times, failed = compare("(c) GPU link, %d units x 1 kernel, %s%s (clang %s objects, %s)"
                            % (args.gpu_units, ", ".join(archs), ", -foffload-lto" if lto else "",
                               version, "device runtime" if runtime else "-nogpulib"),
                            variants, "offload-link", args.gpu_reps, objdir)
    print_ratios(times, failed, variants)


def bench_heavy(args, tool, work):
    """(g) the heavy GPU link of issue 12: LTO of the device runtime with 100
    units for four architectures, where OpenMPOpt dominates."""
    archs = args.gpu_archs.split(",")
    clang = "clang-19"
    objdir = os.path.join(work, "heavy19-%d-%s" % (args.heavy_units, "-".join(archs)))
    objects = generated(objdir, "generating and compiling the heavy program (%d units, %s) ..."
                        % (args.heavy_units, ",".join(archs)),
                        lambda: gen.heavy_units(objdir, clang, args.heavy_units, archs, args.jobs))
    out = os.path.join(objdir, "app")
    variants = wrapper_variants(tool, [clang, "-O2"] + gen.heavy_flags(archs) + objects
                                + ["-lomptarget.devicertl", "-o", out], "19")
    times, failed = compare("(g) heavy GPU link, %d units, %s, the device runtime in every LTO "
                            "(clang 19 objects, -O2)" % (args.heavy_units, ", ".join(archs)),
                            variants, "offload-link", args.heavy_reps, objdir, warmup=False)
    print_ratios(times, failed, variants)


def bench_rdc(args, tool, work, lang):
    archs = ["sm_80", "sm_90"] if lang == "cuda" else ["gfx90a", "gfx942"]
    clang = "clang++-22"
    objdir = os.path.join(work, "%s22-%d-%s" % (lang, args.rdc_units, "-".join(archs)))
    objects = generated(objdir, "generating and compiling %d %s units for %s with %s ..."
              % (args.rdc_units, lang.upper(), ",".join(archs), clang),
                        lambda: gen.rdc_units(objdir, clang, args.rdc_units, lang, archs, args.jobs))
    libs = (["-L/usr/local/cuda/lib64", "-lcudart"] if lang == "cuda" else ["-lamdhip64"])
    variants = wrapper_variants(tool, [clang] + gen.rdc_flags(lang, archs) + objects + libs
                                + ["-o", os.path.join(objdir, "app")], "22")
    env_path = os.environ.get("PATH", "")
    # Upstream's device clang finds clang-nvlink-wrapper and nvlink on PATH.
    os.environ["PATH"] = "/usr/lib/llvm-22/bin:/usr/local/cuda/bin:" + env_path
    try:
        times, failed = compare("(d) %s relocatable device code, %d units, %s (clang 22 objects)"
                                % (lang.upper(), args.rdc_units, ", ".join(archs)),
                                variants, "offload-link", args.gpu_reps, objdir)
    finally:
        os.environ["PATH"] = env_path
    print_ratios(times, failed, variants)


def bench_relink(args, tool, work):
    archs = args.gpu_archs.split(",")
    objdir = os.path.join(work, "gpu19-%d-%s" % (args.gpu_units, "-".join(archs)))
    objects = generated(objdir, "generating and compiling %d GPU units for %s with clang-19 ..."
              % (args.gpu_units, ",".join(archs)),
                        lambda: gen.gpu_units(objdir, "clang-19", args.gpu_units, archs, False, args.jobs, True))
    wrapper = [c for c in driver_commands(["clang-19"] + gen.gpu_flags(archs, False, True) + objects
                                          + ["-o", os.path.join(objdir, "app")])
               if os.path.basename(c[0]) == "clang-linker-wrapper"]
    if not wrapper:
        sys.exit("bench: clang -### printed no clang-linker-wrapper command")
    wrapper_args = wrapper[-1][1:]
    cache = os.path.join(work, "relink-cache")
    shutil.rmtree(cache, ignore_errors=True)
    del os.environ["OFFLOAD_LINK_NO_CACHE"]
    try:
        # Cold: every run starts from an empty cache directory.
        cold = [("offload-link, cache on (empty)",
                 [["rm", "-rf", cache], [tool, "--cache-dir=" + cache] + wrapper_args]),
                ("offload-link --no-cache", [["rm", "-rf", cache], [tool, "--no-cache"] + wrapper_args])]
        times, failed = compare("(e) first link of the (c) program: what an empty cache costs",
                                cold, "offload-link --no-cache", args.gpu_reps, objdir)
        # A host-only edit: main.c says something else; the device code is the same.
        main_c = objects[0][:-2] + ".c"
        with open(main_c) as inp:
            text = inp.read()
        with open(main_c, "w") as out:
            out.write(text.replace("printf(\"%ld\\n\", total)", "printf(\"total %ld\\n\", total)"))
        subprocess.run(["clang-19", "-O1"] + gen.gpu_flags(archs, False, True)
                       + ["-c", main_c, "-o", objects[0]], check=True)
        warm = [("offload-link, cache warm", [[tool, "--cache-dir=" + cache] + wrapper_args])]
        for name, path in upstream_wrappers(("19",)):
            warm.append((name, [[path] + wrapper_args]))
        subprocess.run([tool, "--cache-dir=" + cache] + wrapper_args, cwd=objdir, check=True,
                       stdout=subprocess.DEVNULL)
        # GNU ld alone takes ~350 ms for this host link, lld ~50: the second
        # table shows what is left of ours when the host link is cheap.
        lld = "/usr/lib/llvm-19/bin/ld.lld"
        with_lld = [[a if not a.startswith("--linker-path=") else "--linker-path=" + lld
                     for a in cmds[0]] for _, cmds in warm[:1]] if os.access(lld, os.X_OK) else []
        for title, variants in (("GNU ld", warm),
                                ("ld.lld", [(name, [[a if not a.startswith("--linker-path=")
                                                     else "--linker-path=" + lld for a in cmd]
                                                    for cmd in cmds]) for name, cmds in warm]
                                 if with_lld else [])):
            if not variants:
                continue
            times, failed = compare("(e) relink after a host-only edit, %d units, %s, host linker %s"
                                    % (args.gpu_units, ", ".join(archs), title),
                                    variants, "offload-link, cache warm", args.gpu_reps, objdir)
            if "upstream 19" in times and not failed:
                print("upstream 19 takes %.1fx the time of offload-link with a warm cache (%s)"
                      % (statistics.median(times["upstream 19"])
                         / statistics.median(times["offload-link, cache warm"]), title))
        # Leave the objects as generated.
        with open(main_c, "w") as out:
            out.write(text)
        subprocess.run(["clang-19", "-O1"] + gen.gpu_flags(archs, False, True)
                       + ["-c", main_c, "-o", objects[0]], check=True)
    finally:
        os.environ["OFFLOAD_LINK_NO_CACHE"] = "1"


def bench_project(args, tool, work):
    archs = ["sm_80", "gfx90a"]
    objdir = os.path.join(work, "project19-%d-%d" % (args.project_units, args.project_programs))
    listed = generated(objdir, "generating and compiling a %d-unit library and %d programs ..."
                       % (args.project_units, args.project_programs),
                       lambda: (lambda lib, mains: [lib] + mains)(
                           *gen.project_units(objdir, "clang-19", args.project_units,
                                              args.project_programs, archs, args.jobs)))
    library, mains = listed[0], listed[1:]
    commands = []
    for i, main_o in enumerate(mains):
        wrapper = [c for c in driver_commands(["clang-19"] + gen.gpu_flags(archs, False) + [main_o, library]
                                              + ["-o", os.path.join(objdir, "prog%02d" % i)])
                   if os.path.basename(c[0]) == "clang-linker-wrapper"]
        if not wrapper:
            sys.exit("bench: clang -### printed no clang-linker-wrapper command")
        commands.append(wrapper[-1][1:])
    cache = os.path.join(work, "project-cache")
    del os.environ["OFFLOAD_LINK_NO_CACHE"]
    try:
        variants = [("offload-link, empty cache",
                     [["rm", "-rf", cache]] + [[tool, "--cache-dir=" + cache] + c for c in commands]),
                    ("offload-link --no-cache", [[tool, "--no-cache"] + c for c in commands])]
        for name, path in upstream_wrappers(("19",)):
            variants.append((name, [[path] + c for c in commands]))
        times, failed = compare("(f) %d programs sharing a %d-unit device library (sm_80, gfx90a, "
                                "clang 19 objects): all links" % (len(mains), args.project_units),
                                variants, "offload-link, empty cache", args.gpu_reps, objdir)
        if "upstream 19" in times and not failed:
            print("upstream 19 takes %.1fx the time of offload-link with its cache"
                  % (statistics.median(times["upstream 19"])
                     / statistics.median(times["offload-link, empty cache"])))
    finally:
        os.environ["OFFLOAD_LINK_NO_CACHE"] = "1"


def recompile(objdir, clang, archs, source, old, new, debug=False):
    """Edits `source` (old -> new) and compiles it again as heavy_units did."""
    path = os.path.join(objdir, source)
    with open(path) as inp:
        text = inp.read()
    if old not in text:
        sys.exit("bench: %s has no %r" % (source, old))
    with open(path, "w") as out:
        out.write(text.replace(old, new))
    compiler = clang.replace("clang-", "clang++-") if source.endswith(".cpp") else clang
    subprocess.run([compiler, "-O2"] + gen.heavy_flags(archs) + (["-g"] if debug else [])
                   + ["-c", path, "-o", os.path.splitext(path)[0] + ".o"], check=True)


def stats_of(cmd, cwd):
    """The --stats=json line of one run of the wrapper command."""
    proc = subprocess.run(cmd[:1] + ["--stats=json"] + cmd[1:], cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    for line in reversed(proc.stderr.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    sys.exit("bench: no --stats=json line from %s" % " ".join(cmd[:1]))


# (h)'s programs: the C program, the same under -g, and the C++ program.
PARTITIONED_VARIANTS = {"c": ("c", False), "c-g": ("c", True), "c++": ("c++", False)}


def bench_partitioned(args, tool, work):
    """(h) issues 21 and 25: relink after an edit, full against partitioned
    LTO, for each program of --partitioned-variants."""
    for variant in args.partitioned_variants.split(","):
        if variant not in PARTITIONED_VARIANTS:
            sys.exit("bench: unknown --partitioned-variants entry %r" % variant)
        bench_partitioned_one(args, tool, work, variant, *PARTITIONED_VARIANTS[variant])


def bench_partitioned_one(args, tool, work, variant, lang, debug):
    archs = args.gpu_archs.split(",")
    clang = "clang-19"
    units = args.heavy_units
    ext = ".cpp" if lang == "c++" else ".c"
    objdir = os.path.join(work, "heavy19-shared-%s-%d-%s" % (variant, units, "-".join(archs)))
    objects = generated(objdir, "generating and compiling the heavy program (%s) with a shared "
                        "function (%d units, %s) ..." % (variant, units, ",".join(archs)),
                        lambda: gen.heavy_units(objdir, clang, units, archs, args.jobs,
                                                shared_callers=min(50, units), lang=lang,
                                                debug=debug))
    out = os.path.join(objdir, "app")
    driver = clang.replace("clang-", "clang++-") if lang == "c++" else clang
    variants = wrapper_variants(tool, [driver, "-O2"] + gen.heavy_flags(archs)
                                + (["-g"] if debug else []) + objects
                                + ["-lomptarget.devicertl", "-o", out], "19")
    ours = variants[0][1][0]
    cache = os.path.join(work, "partitioned-cache-" + variant)
    shutil.rmtree(cache, ignore_errors=True)
    # offload-link as users get it (no option: partitioned LTO, its cache
    # empty at first) against its full LTO, upstream's way.
    runs = [("full LTO (offload-link --device-lto=full)",
             [ours[:1] + ["--device-lto=full", "--no-cache"] + ours[1:]]),
            ("offload-link (default: partitioned LTO)",
             [ours[:1] + ["--cache-dir=" + cache] + ours[1:]])]
    # Upstream, at its default and with two jobs, for the C program.
    if variant == "c":
        runs += variants[1:]
    k = units * 57 // 100
    kernel_unit = "heavy%03d%s" % (k, ext)
    edits = [
        ("cold", None),
        ("relink after editing one kernel (%s)" % kernel_unit,
         (kernel_unit, "sum += h%03d_f1(a[i]);" % k, "sum += h%03d_f1(a[i]) * 0.5;" % k)),
        ("relink after editing h_shared(), called by %d units" % min(50, units),
         ("heavy000" + ext, "x * 0.5 + 1.0", "x * 0.25 + 2.0")),
    ]
    label = {"c": "C", "c-g": "C, -g", "c++": "C++"}[variant]
    os.environ.pop("OFFLOAD_LINK_NO_CACHE", None)
    try:
        for title, edit in edits:
            if edit:
                recompile(objdir, clang, archs, *edit, debug=debug)
            compare("(h) partitioned LTO, %s, %d units, %s: %s" % (label, units, ", ".join(archs),
                                                                   title),
                    runs, "full LTO (offload-link --device-lto=full)", 1, objdir, warmup=False)
    finally:
        os.environ["OFFLOAD_LINK_NO_CACHE"] = "1"
        for title, edit in edits[1:]:
            recompile(objdir, clang, archs, edit[0], edit[2], edit[1], debug=debug)
    # The cold link on more cores than this machine has (bench/estimate_cores.py).
    shutil.rmtree(cache, ignore_errors=True)
    full = stats_of(runs[0][1][0], objdir)
    part = stats_of(runs[1][1][0], objdir)
    estimate_cores.report(estimate_cores.estimate(full, part, [2, 16, 64]),
                          "(h) %s, cold link estimated on more cores (from --stats=json)" % label)
    if variant != "c":
        return
    compare_dir = os.path.join(objdir, "compare")
    compare_script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare_kernels.py")
    subprocess.run([sys.executable, compare_script, "--work", compare_dir, "--"]
                   + ours, cwd=objdir, check=False)


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(repo, "build"),
                        help="offload-link build tree (default: build)")
    parser.add_argument("--work", help="where objects go (default: <build>/bench)")
    parser.add_argument("--clang", default="clang-19")
    parser.add_argument("--units", type=int, default=200)
    parser.add_argument("--kernels", type=int, default=5)
    parser.add_argument("--reps", type=int, default=7, help="timed runs of each variant")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                        help="parallel compiles while generating")
    parser.add_argument("--gpu-units", type=int, default=100)
    parser.add_argument("--gpu-archs", default=",".join(gen.GPU_ARCHS))
    parser.add_argument("--gpu-clang", choices=("19", "22"), default="19",
                        help="compile the GPU units with this clang, compare with its wrapper")
    parser.add_argument("--gpu-lto", action="store_true",
                        help="compile the GPU units with -foffload-lto")
    parser.add_argument("--gpu-reps", type=int, default=3,
                        help="timed runs of each GPU variant (each takes seconds)")
    parser.add_argument("--rdc-units", type=int, default=100,
                        help="translation units of the CUDA and HIP programs")
    parser.add_argument("--project-units", type=int, default=20,
                        help="GPU units of the project's shared library")
    parser.add_argument("--project-programs", type=int, default=20,
                        help="executables of the project")
    parser.add_argument("--heavy-units", type=int, default=100,
                        help="translation units of the heavy GPU program")
    parser.add_argument("--partitioned-variants", default="c,c-g,c++",
                        help="(h)'s programs: c, c-g (the C program under -g), c++")
    parser.add_argument("--heavy-reps", type=int, default=1,
                        help="timed runs of each heavy variant (upstream takes two minutes)")
    parser.add_argument("--only", choices=("host", "offload", "gpu", "cuda", "hip", "relink",
                                           "project", "heavy", "partitioned"))
    args = parser.parse_args()

    # Cold links: the device-link cache has its own scenario.
    os.environ["OFFLOAD_LINK_NO_CACHE"] = "1"
    tool = os.path.join(os.path.abspath(args.build), "bin", "offload-link")
    if not os.access(tool, os.X_OK):
        sys.exit("bench: no %s (build first: scripts/bootstrap.sh)" % tool)
    work = os.path.abspath(args.work or os.path.join(args.build, "bench"))
    os.makedirs(work, exist_ok=True)
    print("# offload-link link benchmark\n\n%d cores, %s, %s, %d timed runs per variant after one "
          "warm-up round" % (os.cpu_count() or 0, args.clang, tool, args.reps))
    if args.only in (None, "host"):
        bench_host(args, tool, work)
    if args.only in (None, "offload"):
        bench_offload(args, tool, work)
    if args.only in (None, "gpu"):
        bench_gpu(args, tool, work)
    if args.only in (None, "cuda"):
        bench_rdc(args, tool, work, "cuda")
    if args.only in (None, "hip"):
        bench_rdc(args, tool, work, "hip")
    if args.only in (None, "relink"):
        bench_relink(args, tool, work)
    if args.only in (None, "project"):
        bench_project(args, tool, work)
    if args.only in (None, "heavy"):
        bench_heavy(args, tool, work)
    if args.only in (None, "partitioned"):
        bench_partitioned(args, tool, work)


if __name__ == "__main__":
    main()
