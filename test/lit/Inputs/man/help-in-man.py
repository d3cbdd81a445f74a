#!/usr/bin/env python3
"""help-in-man.py MAN HELP...: every option that a --help text (file HELP)
lists is an entry (.TP/.B) of the man page MAN, with the same metavariable;
prints how many were checked, and each one missing."""
import re
import sys

def unroff(line):
    return line.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")

man = open(sys.argv[1]).read().splitlines()
entries = {unroff(line[3:]).strip() for line in man if line.startswith(".B ")}
missing = []
checked = 0
for path in sys.argv[2:]:
    for line in open(path):
        if not line.startswith("  -"):
            continue
        # The name column: an option and its metavariable, which may hold
        # spaces ("<value> or <triple>=<value>"); the help text follows.
        listed = line[2:].rstrip("\n")
        checked += 1
        if not any(listed == e or listed.startswith(e + " ") for e in entries):
            missing.append(listed)
for name in missing:
    print("missing from the man page: " + name)
print("%d options checked, %d missing" % (checked, len(missing)))
sys.exit(1 if missing else 0)
