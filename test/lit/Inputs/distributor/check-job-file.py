#!/usr/bin/env python3
"""A distributor for the tests: checks the job file against lld's DTLTO
schema (every key there and nothing else: common.linker_output a string,
common.args a non-empty list of strings, common.inputs a list of strings;
each job's args, inputs (at least two, as lld's ThinLTO jobs have) and
outputs (at least one) lists of strings), that every input a job lists
exists, that no output does yet, prints the job count and its arguments,
copies the file to $DTLTO_KEEP when set, then runs the jobs one after
another.  Exit status 1 on a schema violation or a failed job."""
import json
import os
import shutil
import subprocess
import sys


def strings(v, least, what):
    if not isinstance(v, list) or len(v) < least or not all(isinstance(s, str) for s in v):
        sys.exit("check-job-file: %s is not a list of at least %d strings: %r" % (what, least, v))


doc = json.load(open(sys.argv[-1]))
if os.environ.get("DTLTO_KEEP"):
    shutil.copy(sys.argv[-1], os.environ["DTLTO_KEEP"])
if set(doc) != {"common", "jobs"} or set(doc["common"]) != {"linker_output", "args", "inputs"}:
    sys.exit("check-job-file: unexpected keys %r" % sorted(doc))
if not isinstance(doc["common"]["linker_output"], str):
    sys.exit("check-job-file: common.linker_output is not a string")
strings(doc["common"]["args"], 1, "common.args")
strings(doc["common"]["inputs"], 0, "common.inputs")
for i, job in enumerate(doc["jobs"]):
    if set(job) != {"args", "inputs", "outputs"}:
        sys.exit("check-job-file: job %d has keys %r" % (i, sorted(job)))
    strings(job["args"], 0, "jobs[%d].args" % i)
    strings(job["inputs"], 2, "jobs[%d].inputs" % i)
    strings(job["outputs"], 1, "jobs[%d].outputs" % i)
    for f in job["inputs"] + doc["common"]["inputs"]:
        if not os.path.exists(f):
            sys.exit("check-job-file: job %d's input %s is missing" % (i, f))
    for f in job["outputs"]:
        if os.path.exists(f):
            sys.exit("check-job-file: job %d's output %s exists before it ran" % (i, f))
print("check-job-file: %d jobs, distributor arguments %r" % (len(doc["jobs"]), sys.argv[1:-1]))
for job in doc["jobs"]:
    if subprocess.call(doc["common"]["args"] + job["args"]) != 0:
        sys.exit(1)
