#!/usr/bin/env python3
"""help-in-man.py MAN HELP...: every option that a --help text (file HELP)
lists is an entry (.TP/.B) of the man page MAN, with the same metavariable,
and every option entry of MAN has a description of its own: words besides
the releases that have the option and "Listed by --help-hidden".  Prints how
many were checked, each one missing and each one without a description."""
import re
import sys

def unroff(line):
    return line.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")

man = open(sys.argv[1]).read().splitlines()
entries = {unroff(line[3:]).strip() for line in man if line.startswith(".B ")}

# The OPTIONS section's entries: ".TP", ".B <option>", then the description.
undescribed = []
described = 0
section = None
for i, line in enumerate(man):
    if line.startswith(".SH "):
        section = line[4:]
    if section != "OPTIONS" or not line.startswith(".B "):
        continue
    text = unroff(man[i + 1]) if i + 1 < len(man) else ""
    text = re.sub(r" ?In clang-linker-wrapper [0-9, ]+ only\.", "", text)
    text = text.replace(" Listed by --help-hidden.", "")
    if man[i + 1].startswith(".") or len(text.split()) < 3:
        undescribed.append(unroff(line[3:]).strip())
    else:
        described += 1

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
for name in undescribed:
    print("no description in the man page: " + name)
print("%d options checked, %d missing" % (checked, len(missing)))
print("%d entries described, %d without a description" % (described, len(undescribed)))
sys.exit(1 if missing or undescribed or not described else 0)
