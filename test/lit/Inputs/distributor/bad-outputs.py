#!/usr/bin/env python3
"""A broken distributor for the tests: writes `garbage` into every output
of every job (none when the first argument is "none", every one but the
first job's when it is "all-but-first", which it runs properly), and exits
with the status the environment's BAD_STATUS gives (default 0)."""
import json
import os
import subprocess
import sys

mode = sys.argv[1]
doc = json.load(open(sys.argv[-1]))
for i, job in enumerate(doc["jobs"]):
    if mode == "all-but-first" and i == 0:
        subprocess.check_call(doc["common"]["args"] + job["args"])
        continue
    if mode == "none":
        continue
    for out in job["outputs"]:
        with open(out, "w") as f:
            f.write("garbage\n")
sys.exit(int(os.environ.get("BAD_STATUS", "0")))
