#!/usr/bin/env python3
"""Links the size of the ones that hurt: cost against program size.

  bench/scale.py [--steps 100,300,1000,3000] [--archs gfx942] [--kinds openmp,hip]
                 [--variants partitioned,full,upstream19,upstream19-jobs,upstream22,upstream22-jobs]
                 [--timeout 1800] [--machine "2-core VM"] [--plot docs/scale.png]
                 [--results bench-scale.json]

For each step, a program of that many units: OpenMP, bench/run.py's (g)
heavy program (clang 19, -O2, the device runtime linked as bitcode: OpenMPOpt
dominates); HIP, -fgpu-rdc units (clang 22, each a kernel, a device variable
and a function calling the previous unit's).  Each variant links it cold and
the table gets wall time, CPU time (the link and every process it waited
for) and peak memory (the largest resident set of any of its processes).
offload-link's partitioned variant (its default) then relinks after editing
one kernel (one unit recompiled) and after a host-only edit (main.c's
message), with the cache of its cold link; full LTO and upstream have no
cache, so their relink is their cold link.  A link past --timeout is stopped
(its whole process group) and shown as such; a variant that ran out of time
at one step is not tried at the next.  Results accumulate in --results (one
record per machine, step, kind, variant: rerunning a step replaces its
records), from which the table and the plot (time and peak memory against
units, log scales, with matplotlib) are drawn, so steps measured on another
machine (--machine names it) join the same table.  Nothing else may run
beside the timings.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402
import run  # noqa: E402

VARIANTS = ("partitioned", "full", "upstream19", "upstream19-jobs", "upstream22",
            "upstream22-jobs")


def measure(cmd, cwd, timeout):
    """(wall s, CPU s, peak RSS MiB, None) or (wall, cpu, rss, why) when the
    command failed or ran out of time (its process group is killed)."""
    start = time.perf_counter()
    with open(os.path.join(cwd, "link.err"), "wb") as err:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True)
        deadline = start + timeout
        status = None
        while status is None:
            pid, status_raw, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                status = os.waitstatus_to_exitcode(status_raw)
                break
            if time.perf_counter() > deadline:
                os.killpg(proc.pid, signal.SIGKILL)
                _, _, usage = os.wait4(proc.pid, 0)
                return (time.perf_counter() - start, usage.ru_utime + usage.ru_stime,
                        usage.ru_maxrss / 1024, "stopped after %d s" % timeout)
            time.sleep(0.05)
    wall = time.perf_counter() - start
    why = None
    if status != 0:
        with open(os.path.join(cwd, "link.err"), errors="replace") as f:
            why = "failed (%d): %s" % (status, f.read()[-500:])
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, why


def program(args, kind, units):
    """(objects, driver argv without -o, the unit whose kernel an edit
    changes: (source, old, new, compile argv)), generated once."""
    arch_tag = "-".join(args.archs)
    objdir = os.path.join(args.work, "%s-%d-%s" % (kind, units, arch_tag))
    if kind == "openmp":
        # clang 19 compiles OpenMP for NVPTX to cubins unless asked for
        # bitcode (AMDGPU gets bitcode either way).
        lto = ["-foffload-lto"] if any(a.startswith("sm_") for a in args.archs) else []
        clang, flags = "clang-19", ["-O2"] + gen.heavy_flags(args.archs) + lto
        make = lambda: gen.heavy_units(objdir, clang, units, args.archs, args.jobs,  # noqa: E731
                                       shared_callers=min(50, units), extra=lto)
        k = units * 57 // 100
        source = os.path.join(objdir, "heavy%03d.c" % k)
        edit = (source, "sum += h%03d_f1(a[i]);" % k, "sum += h%03d_f1(a[i]) * 0.5;" % k,
                [clang] + flags + ["-c", source, "-o", source[:-2] + ".o"])
        driver = [clang] + flags
        compile_prefix = [clang] + flags
        tail = ["-lomptarget.devicertl"]
    else:
        clang = "clang++-22"
        flags = ["-x", "hip", "-O2", "-w"] + gen.rdc_flags("hip", args.archs)
        make = lambda: gen.rdc_units(objdir, clang, units, "hip", args.archs, args.jobs)  # noqa: E731
        k = units * 57 // 100
        source = os.path.join(objdir, "rdc%03d.cu" % k)
        edit = (source, "return %sx * rdc%03d_var;" % ("rdc%03d_f(x) + " % (k - 1) if k else "", k),
                "return %sx * rdc%03d_var + 1;" % ("rdc%03d_f(x) + " % (k - 1) if k else "", k),
                [clang] + flags + ["-c", source, "-o", source[:-3] + ".o"])
        driver = [clang, "--offload-new-driver", "-fgpu-rdc", "--hip-link"] + \
            ["--offload-arch=" + a for a in args.archs] + ["-nogpuinc", "-nogpulib"]
        compile_prefix = [clang] + flags
        tail = []
    stamp = os.path.join(objdir, "objects")
    if not os.path.exists(stamp):
        print("generating and compiling %s, %d units for %s ..." % (kind, units, arch_tag),
              flush=True)
        objects = make()
        with open(stamp, "w") as f:
            f.write("\n".join(objects))
    with open(stamp) as f:
        objects = f.read().split()
    # A host-only edit: a global of main's host code, appended and removed.
    main_source = objects[0][:-2] + (".c" if kind == "openmp" else ".cu")
    host_edit = (main_source, compile_prefix + ["-c", main_source, "-o", objects[0]])
    return objdir, objects, driver, tail, edit, host_edit


def variant_command(args, variant, wrapper_args):
    release = "19" if "19" in variant else "22"
    if variant.startswith("upstream"):
        cmd = ["/usr/lib/llvm-%s/bin/clang-linker-wrapper" % release]
        if variant.endswith("-jobs"):
            cmd.append("--wrapper-jobs=%d" % (os.cpu_count() or 1))
        return cmd + wrapper_args
    tool = os.path.join(args.build, "bin", "offload-link")
    extra = ["--device-lto=full", "--no-cache"] if variant == "full" else \
        ["--cache-dir=" + os.path.join(args.work, "cache")]
    return [tool] + extra + wrapper_args


def apply_edit(path, old, new):
    with open(path) as f:
        text = f.read()
    if old not in text:
        sys.exit("scale.py: %s has no %r to edit" % (path, old))
    with open(path, "w") as f:
        f.write(text.replace(old, new, 1))


def run_step(args, kind, units, skip):
    objdir, objects, driver, tail, edit, host_edit = program(args, kind, units)
    out = os.path.join(objdir, "app")
    wrapper = [c for c in run.driver_commands(driver + objects + tail + ["-o", out])
               if os.path.basename(c[0]) == "clang-linker-wrapper"]
    if not wrapper:
        sys.exit("scale.py: clang -### printed no clang-linker-wrapper command")
    wrapper_args = wrapper[-1][1:]
    records = []
    for variant in args.variants:
        if (kind, variant) in skip:
            continue
        # Upstream of the release that compiled the objects: 19 for OpenMP
        # (clang 19), 22 for HIP (clang 22).
        if variant.startswith("upstream%s" % ("22" if kind == "openmp" else "19")):
            continue
        release = "19" if "19" in variant else "22"
        if variant.startswith("upstream") and not os.access(
                "/usr/lib/llvm-%s/bin/clang-linker-wrapper" % release, os.X_OK):
            continue
        cmd = variant_command(args, variant, wrapper_args)
        env_cache = os.path.join(args.work, "cache")
        if variant == "partitioned":
            subprocess.run(["rm", "-rf", env_cache])
        os.environ.pop("OFFLOAD_LINK_NO_CACHE", None)
        print("%s %d units, %s: cold ..." % (kind, units, variant), flush=True)
        wall, cpu, rss, why = measure(cmd, objdir, args.timeout)
        rec = {"machine": args.machine, "kind": kind, "units": units, "variant": variant,
               "archs": args.archs, "cold_s": wall, "cpu_s": cpu, "peak_mib": rss, "why": why}
        if why and why.startswith("stopped"):
            skip.add((kind, variant))
        if variant == "partitioned" and not why:
            # Relink after one kernel's edit, then after a host-only edit.
            source, old, new, compile_cmd = edit
            apply_edit(source, old, new)
            subprocess.run(compile_cmd, check=True, cwd=objdir)
            rec["relink_kernel_s"] = measure(cmd, objdir, args.timeout)[0]
            apply_edit(source, new, old)
            subprocess.run(compile_cmd, check=True, cwd=objdir)
            main_source, main_compile = host_edit
            with open(main_source) as f:
                original = f.read()
            with open(main_source, "a") as f:
                f.write("\nint ol_scale_host_edit = 1;\n")
            subprocess.run(main_compile, check=True, cwd=objdir)
            rec["relink_host_s"] = measure(cmd, objdir, args.timeout)[0]
            with open(main_source, "w") as f:
                f.write(original)
            subprocess.run(main_compile, check=True, cwd=objdir)
        print("  %.1f s, %.1f s CPU, %.0f MiB%s" % (wall, cpu, rss, (", " + why[:80]) if why else ""),
              flush=True)
        records.append(rec)
    return records


def load(path):
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return []


def kind_of(r):
    """The kind and its targets: "openmp gfx942"."""
    return "%s %s" % (r["kind"], ",".join(r.get("archs", [])))


def key_of(r):
    return (r["machine"], r["kind"], tuple(r.get("archs", [])), r["units"], r["variant"])


def table(records):
    lines = ["| units | kind | variant | machine | cold | CPU | peak memory | relink, one kernel | relink, host only |",
             "|---:|---|---|---|---:|---:|---:|---:|---:|"]
    for r in sorted(records, key=lambda r: (kind_of(r), r["units"], VARIANTS.index(r["variant"]))):
        cold = ("%.1f s" % r["cold_s"]) if not r["why"] else (
            "> %.0f s" % r["cold_s"] if r["why"].startswith("stopped") else "failed")
        lines.append("| %d | %s | %s | %s | %s | %.1f s | %.0f MiB | %s | %s |" % (
            r["units"], kind_of(r), r["variant"], r["machine"], cold, r["cpu_s"], r["peak_mib"],
            ("%.1f s" % r["relink_kernel_s"]) if "relink_kernel_s" in r else "",
            ("%.1f s" % r["relink_host_s"]) if "relink_host_s" in r else ""))
    return "\n".join(lines)


def plot(records, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("scale.py: no matplotlib (Debian: python3-matplotlib, run with /usr/bin/python3): "
              "no plot", file=sys.stderr)
        return
    fig, (ax_time, ax_mem) = plt.subplots(1, 2, figsize=(11, 6))
    colors = plt.get_cmap("tab20").colors
    series = 0
    for kind in sorted({kind_of(r) for r in records}):
        for variant in VARIANTS:
            rows = sorted((r for r in records if kind_of(r) == kind and r["variant"] == variant),
                          key=lambda r: r["units"])
            done = [r for r in rows if not r["why"]]
            stopped = [r for r in rows if r["why"] and r["why"].startswith("stopped")]
            if not done and not stopped:
                continue
            color = colors[series % len(colors)]
            series += 1
            label = "%s %s" % (kind, variant)
            ax_time.plot([r["units"] for r in done], [r["cold_s"] for r in done], "o-",
                         color=color, label=label)
            ax_time.plot([r["units"] for r in stopped], [r["cold_s"] for r in stopped], "x",
                         color=color, markersize=9)
            ax_mem.plot([r["units"] for r in done], [r["peak_mib"] for r in done], "o-",
                        color=color, label=label)
            rel = [r for r in done if "relink_kernel_s" in r]
            if rel:
                ax_time.plot([r["units"] for r in rel], [r["relink_kernel_s"] for r in rel], "s--",
                             color=color, label=label + ", relink after a kernel edit")
    for ax, what in ((ax_time, "seconds (x: stopped at the time limit)"), (ax_mem, "peak MiB")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("units")
        ax.set_ylabel(what)
        ax.grid(True, which="both", alpha=0.3)
    ax_time.set_title("device link time")
    ax_mem.set_title("peak memory")
    handles, labels = ax_time.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=7)
    fig.tight_layout(rect=(0, 0.2, 1, 1))
    fig.savefig(path, dpi=110)
    print("scale.py: %s" % path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--work", default="/tmp/ol-bench-scale")
    ap.add_argument("--steps", default="100,300,1000,3000")
    ap.add_argument("--archs", default="gfx942")
    ap.add_argument("--kinds", default="openmp,hip")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--machine", default="%d-core machine" % (os.cpu_count() or 1))
    ap.add_argument("--results", default=os.path.join(HERE, "..", "build", "bench-scale.json"))
    ap.add_argument("--plot")
    ap.add_argument("--report-only", action="store_true", help="draw the table and the plot only")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="compile jobs")
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    args.archs = args.archs.split(",")
    args.variants = [v for v in args.variants.split(",") if v]
    for v in args.variants:
        if v not in VARIANTS:
            sys.exit("scale.py: unknown variant %r" % v)
    os.makedirs(args.work, exist_ok=True)
    records = load(args.results)
    if not args.report_only:
        skip = set()
        for units in [int(s) for s in args.steps.split(",")]:
            for kind in args.kinds.split(","):
                new = run_step(args, kind, units, skip)
                keys = {key_of(r) for r in new}
                records = [r for r in records if key_of(r) not in keys] + new
                with open(args.results, "w") as f:
                    json.dump(records, f, indent=1)
    print(table(records))
    if args.plot:
        plot(records, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
