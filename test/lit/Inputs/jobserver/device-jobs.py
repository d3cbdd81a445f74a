#!/usr/bin/env python3
"""device-jobs.py TRACE: the device links of a --wrapper-time-trace file, and
how many ran at once at most ("at most N at once")."""
import json
import sys

events = [e for e in json.load(open(sys.argv[1]))["traceEvents"]
          if e.get("name") == "Link device image" and e.get("ph") == "X"]
edges = sorted([(e["ts"], 1) for e in events] + [(e["ts"] + e["dur"], -1) for e in events])
running = most = 0
for _, step in edges:   # an end sorts before a start at the same time
    running += step
    most = max(most, running)
print("%d device links, at most %d at once" % (len(events), most))
