#!/usr/bin/env python3
"""option-names.py HELP: the name column of a --help text, one option a line:
each option's spelling and placeholder ("--linker-path=<path>",
"-L <dir>"), as llvm::opt lays them out.  That column is the interface a
drop-in replacement shares with upstream; the descriptions are not."""
import sys

lines = open(sys.argv[1]).read().splitlines()
options = lines.index("OPTIONS:")
# The description column: where the text of a continuation line starts.
column = next(len(l) - len(l.lstrip(" ")) for l in lines[options + 1:]
              if l.startswith("   ") and l.strip())
for line in lines[options + 1:]:
    if not line.strip() or not line.startswith("  "):
        break
    if not line.startswith("  -") and not line.startswith("  /"):
        continue
    described = len(line) > column and line[column - 1] == " "
    print((line[2:column] if described else line[2:]).rstrip())
