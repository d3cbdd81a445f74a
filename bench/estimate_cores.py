#!/usr/bin/env python3
"""What a cold partitioned link would take on a machine with more cores,
from the times one link measured (offload-link --stats=json), beside
upstream's, whose device stage is one LTO job per architecture.

  bench/estimate_cores.py FULL.json PARTITIONED.json [--cores 2,16,64] [--slower 1.0]

FULL.json and PARTITIONED.json: the --stats=json lines of the same link with
full LTO and with --device-lto=partitioned, both cold (no cache).  The
machines here have 2 cores; the estimate replays the measured jobs on N:

  partitioned  per device image: the split (one job), then its partitions
               (one job each, any order), then what follows them (the
               device linker, or AMDGPU's one code generation: the image's
               time less the split and the partitions' span), all images at
               once; the jobs go to the N cores longest first as they become
               ready (list scheduling).  The stages before and after the
               device stage (scan, wrap, host link) are added as measured.
  upstream     one job per image (its full-LTO time here: upstream's LTO of
               an architecture does the same work), on min(N, images)
               cores, plus the same stages around.

The partitions' times were measured with the other core busy, so the
estimate is of the work, not of memory bandwidth or turbo on a big machine.
--slower F scales every measured time by F, for a machine whose core does
the same work F times slower (one full-LTO link of one image, timed on
both, gives F; a 16-core machine here took 1.6-2.2x this one's time).
"""

import argparse
import heapq
import json
import sys


def device_stage_ms(stats):
    for stage in stats["stages"]:
        if stage["name"].startswith("Link device"):
            return stage["wall_ms"]
    return 0.0


def around_device_ms(stats):
    return stats["wall_ms"] - device_stage_ms(stats)


def schedule(jobs, cores):
    """jobs: {name: (ms, [names it waits for])}.  Longest ready job first on
    the first free core.  Returns the makespan."""
    waiting = {name: set(deps) for name, (_, deps) in jobs.items()}
    users = {}
    for name, (_, deps) in jobs.items():
        for dep in deps:
            users.setdefault(dep, []).append(name)
    ready = [(-jobs[n][0], n) for n, deps in waiting.items() if not deps]
    heapq.heapify(ready)
    running = []          # (end, name)
    now, free = 0.0, cores
    done = 0
    while done < len(jobs):
        while free and ready:
            ms, name = heapq.heappop(ready)
            heapq.heappush(running, (now - ms, name))
            free -= 1
        now, name = heapq.heappop(running)
        free += 1
        done += 1
        for user in users.get(name, []):
            waiting[user].discard(name)
            if not waiting[user]:
                heapq.heappush(ready, (-jobs[user][0], user))
    return now


def partitioned_jobs(stats):
    jobs = {}
    for image in stats.get("device_images", []):
        name = image["image"]
        part = image.get("partitioned")
        if not part or not part["partitions"]:
            jobs[name] = (image["wall_ms"], [])
            continue
        split = "%s/split" % name
        jobs[split] = (part["split_ms"], [])
        parts = []
        for i, ms in enumerate(part["partition_ms"]):
            jobs["%s/p%d" % (name, i)] = (ms or 0.0, [split])
            parts.append("%s/p%d" % (name, i))
        rest = max(0.0, image["wall_ms"] - part["split_ms"] - part["partitions_ms"])
        jobs["%s/after" % name] = (rest, parts)
    return jobs


def estimate(full, partitioned, cores_list, slower=1.0):
    rows = []
    part_jobs = {n: (ms * slower, deps) for n, (ms, deps) in partitioned_jobs(partitioned).items()}
    full_jobs = {i["image"]: (i["wall_ms"] * slower, []) for i in full.get("device_images", [])}
    for cores in cores_list:
        part_ms = around_device_ms(partitioned) * slower + schedule(part_jobs, cores)
        up_ms = around_device_ms(full) * slower + schedule(full_jobs, cores)
        rows.append((cores, up_ms, part_ms))
    return rows


def report(rows, title=""):
    lines = ["| cores | upstream (one LTO job per architecture) | partitioned | ratio |",
             "|---:|---:|---:|---:|"]
    for cores, up_ms, part_ms in rows:
        lines.append("| %d | %.1f s | %.1f s | %.2fx |" % (cores, up_ms / 1e3, part_ms / 1e3,
                                                          part_ms / up_ms if up_ms else 0))
    if title:
        print(title)
    print("\n".join(lines))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("full")
    ap.add_argument("partitioned")
    ap.add_argument("--cores", default="2,16,64")
    ap.add_argument("--slower", type=float, default=1.0,
                    help="how many times slower a core of the estimated machine does the same work")
    args = ap.parse_args()
    with open(args.full) as f:
        full = json.loads(f.read().strip().splitlines()[-1])
    with open(args.partitioned) as f:
        part = json.loads(f.read().strip().splitlines()[-1])
    report(estimate(full, part, [int(c) for c in args.cores.split(",")], args.slower))


if __name__ == "__main__":
    sys.exit(main())
