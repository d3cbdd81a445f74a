#!/usr/bin/env python3
"""Runs the jobs of a DTLTO job file on this machine, N at a time.

offload-link --device-lto-distributor=local.py [--device-lto-distributor-arg=--jobs=N]
hands it the partitions of a partitioned device LTO (docs/usage.md,
"Device LTO on other machines"); any DTLTO distributor takes the same file.
Each job's command is common.args + the job's args.  Exit status 0 when every
job succeeded, else 1 (the jobs' messages on stderr, each failed command named).
"""
import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="jobs run at once (default: the cores)")
    ap.add_argument("job_file")
    args = ap.parse_args()
    with open(args.job_file) as f:
        doc = json.load(f)
    common = doc["common"]["args"]

    def run(job):
        command = common + job["args"]
        done = subprocess.run(command)
        return command, done.returncode

    failed = 0
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for command, status in pool.map(run, doc["jobs"]):
            if status != 0:
                failed += 1
                print("local.py: job failed (exit status %d): %s" % (status, " ".join(command)),
                      file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
