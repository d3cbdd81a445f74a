#!/usr/bin/env python3
"""Partitioned device LTO through a distributor against the same partitions
built in process (docs/design/distributed-lto.md), and what an hour-long
link would take on K machines.

  bench/distributed.py [--build build] [--units 40] [--arch gfx942]
                       [--distributor-jobs 1,2] [--reps 3]
                       [--machines 1,4,16,64] [--cores-per-machine 16]

The program is bench/run.py's (g) heavy OpenMP program (clang 19, -O2, the
device runtime linked as bitcode), linked cold (--no-cache) with
--device-lto=partitioned:1 so that every unit is a job.  Measured, median of
--reps: the partitions' span (from the first partition's start to the last
output, --stats=json's partitions_ms: for the distributor that is from the
cache lookups through writing the job file, running the distributor and
reading back every output) in process on the link's pool, and through
tools/distributors/local.py running N jobs at once; from those, the cost a
job adds (process start, loading LLVM, files): (span with one job at a time
- the partitions' own times in process) / jobs.

The estimate: a link whose partitions add up to an hour of one core's time,
made of copies of this program's partitions (a bigger program, as the links
that take an hour are; the split and the device linker grown with it), on K
machines of C cores each,
every job paying the measured cost of a job; the jobs go to the K x C cores
longest first (bench/estimate_cores.py's list scheduling).  Nothing else may
run beside the timings.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import estimate_cores  # noqa: E402
import gen  # noqa: E402


def link(args, objects, out, extra):
    cmd = (["clang-19", "-O2"] + gen.heavy_flags([args.arch]) + objects
           + ["-lomptarget.devicertl", "-o", out, "-B",
              os.path.join(args.build, "libexec", "offload-link"),
              "-Wl,--no-cache", "-Wl,--device-lto=partitioned:1", "-Wl,--stats=json"] + extra)
    started = time.monotonic()
    done = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - started
    if done.returncode != 0:
        sys.exit("distributed.py: the link failed:\n" + done.stderr[-3000:])
    stats = None
    for line in done.stderr.splitlines():
        if line.startswith("{") and "device_images" in line:
            stats = json.loads(line)
    if not stats:
        sys.exit("distributed.py: no --stats=json line in the link's output")
    image = next(i for i in stats["device_images"] if i.get("partitioned"))
    return wall, image


def median_run(args, objects, out, extra):
    runs = [link(args, objects, out, extra) for _ in range(args.reps)]
    runs.sort(key=lambda r: r[1]["partitioned"]["partitions_ms"])
    return runs[len(runs) // 2]


def hour_estimate(image, job_cost_ms, machines, cores):
    """A program of as many copies of this one's partitions as make an hour
    of partition time (a bigger program, not longer partitions), its split
    and device link grown with it, on machines x cores."""
    part = image["partitioned"]
    times = [ms for ms in part["partition_ms"] if ms and ms > 0]
    copies = 3600e3 / sum(times)
    split = part["split_ms"] * copies
    after = max(0.0, image["wall_ms"] - part["split_ms"] - part["partitions_ms"]) * copies
    jobs = {}
    for c in range(int(copies) + 1):
        share = min(1.0, copies - c)
        for i, ms in enumerate(times):
            if share > 0:
                jobs["c%d/p%d" % (c, i)] = (ms * share + job_cost_ms, [])
    return split + after, split + estimate_cores.schedule(jobs, machines * cores) + after


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--work", default="/tmp/ol-bench-distributed")
    ap.add_argument("--units", type=int, default=40)
    ap.add_argument("--arch", default="gfx942")
    ap.add_argument("--distributor-jobs", default="1,2")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--machines", default="1,4,16,64")
    ap.add_argument("--cores-per-machine", type=int, default=16)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="compile jobs")
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)

    objdir = os.path.join(args.work, "heavy19-%d-%s" % (args.units, args.arch))
    if not os.path.exists(os.path.join(objdir, "done")):
        os.makedirs(objdir, exist_ok=True)
        print("generating and compiling the heavy program (%d units, %s) ..."
              % (args.units, args.arch), flush=True)
        objects = gen.heavy_units(objdir, "clang-19", args.units, [args.arch], args.jobs,
                                  shared_callers=min(50, args.units))
        with open(os.path.join(objdir, "done"), "w") as f:
            f.write("\n".join(objects))
    with open(os.path.join(objdir, "done")) as f:
        objects = f.read().split()
    out = os.path.join(objdir, "app")

    wall, here = median_run(args, objects, out, [])
    part = here["partitioned"]
    own = sum(ms for ms in part["partition_ms"] if ms and ms > 0)
    njobs = part["partitions"] if isinstance(part["partitions"], int) else len(part["partition_ms"])
    print("\n(i) %d units for %s, partitioned:1, cold, %d partitions (median of %d)\n"
          % (args.units, args.arch, njobs, args.reps))
    print("| partitions built | partitions' span | link |")
    print("|---|---:|---:|")
    print("| in process (pool of %d threads) | %.2f s | %.2f s |"
          % (os.cpu_count() or 1, part["partitions_ms"] / 1e3, wall))
    job_cost = 0.0
    local = os.path.join(HERE, "..", "tools", "distributors", "local.py")
    for n in [int(x) for x in args.distributor_jobs.split(",")]:
        dwall, there = median_run(args, objects, out + "-dist",
                                  ["-Wl,--device-lto-distributor=" + local,
                                   "-Wl,--device-lto-distributor-arg=--jobs=%d" % n])
        span = there["partitioned"]["partitions_ms"]
        print("| distributor, %d job%s at once | %.2f s | %.2f s |"
              % (n, "" if n == 1 else "s", span / 1e3, dwall))
        if n == 1:
            job_cost = max(0.0, (span - own) / max(1, njobs))
    print("\nThe partitions' own times in process add up to %.2f s; a job run by the "
          "distributor costs %.0f ms more (process, LLVM, files)." % (own / 1e3, job_cost))
    print("\nAn hour of partitions, shaped as these, on machines of %d cores:\n"
          % args.cores_per_machine)
    print("| machines | estimated device LTO | of which the split and the device link |")
    print("|---:|---:|---:|")
    for k in [int(x) for x in args.machines.split(",")]:
        serial, ms = hour_estimate(here, job_cost, k, args.cores_per_machine)
        print("| %d | %.1f min | %.1f min |" % (k, ms / 60e3, serial / 60e3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
