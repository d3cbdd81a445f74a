#!/usr/bin/env python3
"""Checks the layout rules of docs/design.md ("The layout") on a build:

1. No loop of source files calls each other's functions: the graph of
   "file A calls a function file B defines", read from the symbols of the
   build's object files (nm), has no cycle.
2. No loop of folders either: the same graph, file by folder.
3. Each folder includes only what the layout lets it: the cache is a store
   and knows nothing of the device link, the command line or the driver.
4. The picture of the folders in docs/design.md ("The layout") is the one
   the code draws: --picture prints it, and a picture that differs fails.

    scripts/structure-check.py <build directory>
    scripts/structure-check.py --picture <build directory>

Prints each loop (its files and who calls whom), each forbidden include and
a stale picture; exit status 1 when there is any.
"""

import collections
import glob
import os
import re
import subprocess
import sys

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# folder -> headers and folders its files must not include.
FORBIDDEN_INCLUDES = {
    "src/cache": ["offload/device_link.h", "offload/cmdline.h", "offload/inputs.h",
                  "../device/", "../driver/", "../input/"],
    "src/format": ["offload/cmdline.h", "offload/device_link.h", "offload/inputs.h",
                   "../device/", "../driver/", "../input/"],
    # The device stage gets its groups prepared: it reads no input file and
    # no command-line internals.
    "src/device": ["../driver/", "../input/"],
    # The protocols are a module of their own: they know the interface and
    # nothing of the executable.
    "src/remote": ["offload/cache.h", "offload/cmdline.h", "offload/device_link.h",
                   "offload/diag.h", "offload/inputs.h", "../cache/"],
    # The switch installs; it handles no image.
    "src/switch": ["offload/device_link.h", "offload/inputs.h", "offload/cache.h",
                   "offload/backend.h", "../device/", "../input/", "../driver/"],
}


def call_graph(build):
    """file -> files whose functions it calls, over every object of src/."""
    defined, used = {}, collections.defaultdict(set)
    objects = glob.glob(os.path.join(glob.escape(build), "CMakeFiles", "*.dir", "src", "**",
                                     "*.c.o"), recursive=True)
    if not objects:
        raise SystemExit("structure-check: no object files under %s/CMakeFiles" % build)
    for obj in objects:
        # CMakeFiles/<target>.dir/src/...: the path below the build tree, so
        # that a "src" folder above it (~/src/<clone>) cannot cut it.
        source = "/".join(os.path.relpath(obj, build).split(os.sep)[2:])[:-2]
        if not os.path.exists(os.path.join(SOURCE_DIR, source)):
            continue   # left in the build by a source since removed
        out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            fields = line.split()
            if len(fields) == 3 and fields[1] in "TDBR":
                defined[fields[2]] = source
            elif len(fields) == 2 and fields[0] == "U":
                used[source].add(fields[1])
    graph = collections.defaultdict(set)
    for source, symbols in used.items():
        for symbol in symbols:
            owner = defined.get(symbol)
            if owner and owner != source:
                graph[source].add(owner)
    return graph


def loops(graph):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


# Folders in the order of the pipeline (docs/design.md, "The pipeline"), then
# the ones beside it; the picture lists them so.
FOLDER_ORDER = ["driver", "input", "group", "device", "wrap", "host", "cache", "commands",
                "switch", "format", "support"]
PICTURE_BEGIN = "<!-- structure-check: picture begin -->"
PICTURE_END = "<!-- structure-check: picture end -->"


def folder_graph(graph):
    """folder -> folders whose functions its files call."""
    folders = collections.defaultdict(set)
    for source, owners in graph.items():
        mine = source.split("/")[1]
        folders[mine]
        for owner in owners:
            theirs = owner.split("/")[1]
            if theirs != mine:
                folders[mine].add(theirs)
    return folders


def order_key(folder):
    return (FOLDER_ORDER.index(folder) if folder in FOLDER_ORDER else len(FOLDER_ORDER), folder)


def picture(folders):
    lines = ["```"]
    for folder in sorted(folders, key=order_key):
        calls = sorted(folders[folder], key=order_key)
        lines.append("%-9s ──> %s" % (folder, ", ".join(calls) if calls else "nothing of ours"))
    lines.append("```")
    return "\n".join(lines)


def stale_picture(folders):
    path = os.path.join(SOURCE_DIR, "docs", "design.md")
    text = open(path, encoding="utf-8").read()
    if PICTURE_BEGIN not in text or PICTURE_END not in text:
        return "docs/design.md: no picture between %s and %s" % (PICTURE_BEGIN, PICTURE_END)
    shown = text.split(PICTURE_BEGIN, 1)[1].split(PICTURE_END, 1)[0].strip()
    if shown != picture(folders):
        return ("docs/design.md: the picture of the folders is not the code's; "
                "scripts/structure-check.py --picture <build> draws it:\n" + picture(folders))
    return None


def forbidden_includes():
    bad = []
    for folder, banned in FORBIDDEN_INCLUDES.items():
        for path in sorted(glob.glob(os.path.join(SOURCE_DIR, folder, "*.[ch]"))):
            for number, line in enumerate(open(path, encoding="utf-8"), 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                included = m.group(1) if m else None
                if included and any(included == b or (b.endswith("/") and included.startswith(b))
                                    for b in banned):
                    bad.append("%s:%d: includes %s" % (os.path.relpath(path, SOURCE_DIR),
                                                       number, included))
    return bad


def main():
    args = sys.argv[1:]
    draw = args[:1] == ["--picture"]
    if draw:
        args = args[1:]
    if len(args) != 1:
        raise SystemExit(__doc__)
    graph = call_graph(args[0])
    folders = folder_graph(graph)
    if draw:
        print(picture(folders))
        return 0
    status = 0
    for component in loops(graph):
        status = 1
        print("loop of %d files:" % len(component))
        for source in component:
            print("  %s calls %s" % (source, ", ".join(sorted(graph[source] & set(component)))))
    for component in loops(folders):
        status = 1
        print("loop of %d folders:" % len(component))
        for folder in component:
            print("  %s calls %s" % (folder, ", ".join(sorted(folders[folder] & set(component)))))
    stale = stale_picture(folders)
    if stale:
        status = 1
        print(stale)
    for line in forbidden_includes():
        status = 1
        print(line)
    print("structure-check: %d files in %d folders, %s" % (
        len(graph), len(folders),
        "no loop, no forbidden include, the picture is true" if status == 0 else "see above"))
    return status


if __name__ == "__main__":
    sys.exit(main())
