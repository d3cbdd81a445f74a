#!/usr/bin/env python3
"""Runs the jobs of a DTLTO job file on a Slurm cluster, as one job array.

    offload-link --device-lto-distributor=slurm.py \\
        [--device-lto-distributor-arg=--sbatch-arg=--partition=cpu ...]

The jobs' files live beside the link's output (a directory the cluster's
machines share, as a build tree on a cluster is); each array task runs one
job's command (common.args + the job's args) with sh, in the link's working
directory.  sbatch --wait returns when every task has ended; what the tasks
printed is passed on to stderr in job order.  Exit status 0 when every task
succeeded, else 1.  The compute nodes need the offload-link and LLVM release
of the link (and ptxas for CUDA jobs) at the paths the job file names, or
--device-lto-remote-compiler= naming where offload-link is there.
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

TASK_SCRIPT = """#!/bin/sh
# One line of the command list a task: the job of its array index.
line=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" "$1")
exec sh -c "$line"
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sbatch", default="sbatch", help="the sbatch to run (default: on PATH)")
    ap.add_argument("--sbatch-arg", action="append", default=[],
                    help="an option for sbatch (--partition=..., --time=..., --mem=...)")
    ap.add_argument("--max-running", type=int, default=0,
                    help="tasks of the array running at once (default: as Slurm allows)")
    ap.add_argument("job_file")
    args = ap.parse_args()

    with open(args.job_file) as f:
        doc = json.load(f)
    jobs = doc["jobs"]
    if not jobs:
        return 0
    common = doc["common"]["args"]
    where = os.path.dirname(os.path.abspath(args.job_file))
    work = tempfile.mkdtemp(prefix=os.path.basename(args.job_file) + ".slurm-", dir=where)
    try:
        commands = os.path.join(work, "commands")
        with open(commands, "w") as f:
            for job in jobs:
                f.write(shlex.join(common + job["args"]) + "\n")
        script = os.path.join(work, "task.sh")
        with open(script, "w") as f:
            f.write(TASK_SCRIPT)
        array = "0-%d" % (len(jobs) - 1)
        if args.max_running > 0:
            array += "%%%d" % args.max_running
        # --no-requeue: a task that cannot start fails the link rather
        # than wait, held, for someone to release it.
        sbatch = [args.sbatch, "--wait", "--quiet", "--no-requeue", "--array=" + array,
                  "--job-name=offload-link-lto", "--chdir=" + os.getcwd(),
                  "--output=" + os.path.join(work, "task-%a.log")] + args.sbatch_arg + \
                 [script, commands]
        status = subprocess.call(sbatch)
        for i in range(len(jobs)):
            log = os.path.join(work, "task-%d.log" % i)
            if os.path.exists(log) and os.path.getsize(log):
                with open(log, errors="replace") as f:
                    sys.stderr.write(f.read())
        if status != 0:
            print("slurm.py: sbatch exited with status %d for %d job%s (%s)"
                  % (status, len(jobs), "" if len(jobs) == 1 else "s", args.job_file),
                  file=sys.stderr)
            return 1
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
