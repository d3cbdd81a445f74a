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
5. At most MAX_ARROWS_UP arrows run back up.  The rooms (the folders of
   src/, and "include" for the headers of include/offload/ that declare no
   function a source defines) stand on the floors of FLOORS; an arrow from
   one room to another is a file of the first calling a function of a file
   of the second, or including a header of the second (a header belongs to
   the room that defines what it declares); one from a lower floor to a
   higher one runs back up.

    scripts/structure-check.py <build directory>
    scripts/structure-check.py --picture <build directory>

Prints each loop (its files and who calls whom), each forbidden include, a
stale picture and each arrow that runs back up (its rooms, then each pair of
files that draws it); exit status 1 when there is a loop, a forbidden
include, a stale picture, a room on no floor, or more arrows back up than
MAX_ARROWS_UP.
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


def call_graph(build, defined_out=None):
    """file -> files whose functions it calls, over every object of src/;
    defined_out, a dict, gets symbol -> the file defining it."""
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
    if defined_out is not None:
        defined_out.update(defined)
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


# The floors of the rooms, from the ground up (docs/design.md, "The layout"):
# a room stands above the rooms it calls and whose headers it includes.
FLOORS = [
    ["support"],                     # the ground: every room uses it
    ["format", "switch", "remote"],  # byte formats; the switch; the remote protocols
    ["include", "cache"],            # headers that declare no function; the store
    ["driver"],                      # the command line, which the stages after it read
    ["input", "backend", "host"],    # inputs; the LLVM plugin; the host link
    ["device", "commands"],          # device links; the companion commands
    ["wrap", "group"],               # what prepares the device links and wraps their images
]
MAX_ARROWS_UP = 4
INCLUDE_RE = re.compile(r'\s*#\s*include\s+"([^"]+)"')
NAME_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


def header_room(header, defined):
    """The room of include/offload/<header>: the one whose files define most
    of the functions it names (on a tie, the one with a source of the
    header's name); "include" when it names none."""
    text = open(os.path.join(SOURCE_DIR, header), encoding="utf-8").read()
    rooms = collections.Counter(defined[name].split("/")[1]
                                for name in NAME_RE.findall(text) if name in defined)
    if not rooms:
        return "include"
    most = max(rooms.values())
    stem = os.path.splitext(os.path.basename(header))[0]
    tied = sorted(room for room, n in rooms.items() if n == most)
    for room in tied:
        if os.path.exists(os.path.join(SOURCE_DIR, "src", room, stem + ".c")):
            return room
    return tied[0]


def room_arrows(graph, defined):
    """(room, room) -> the pairs of files that draw the arrow: a call from a
    file of one room to a file of the other, or an include of the other's
    header."""
    rooms = {}

    def room_of(path):
        if path not in rooms:
            rooms[path] = (header_room(path, defined) if path.startswith("include/")
                           else path.split("/")[1])
        return rooms[path]

    arrows = collections.defaultdict(set)
    for source, owners in graph.items():
        for owner in owners:
            if room_of(source) != room_of(owner):
                arrows[(room_of(source), room_of(owner))].add("%s calls %s" % (source, owner))
    files = [os.path.relpath(p, SOURCE_DIR) for pattern in
             ("src/*/*.c", "src/*/*.cpp", "src/*/*.h", "include/offload/*.h")
             for p in sorted(glob.glob(os.path.join(SOURCE_DIR, pattern)))]
    for path in files:
        for line in open(os.path.join(SOURCE_DIR, path), encoding="utf-8"):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            if m.group(1).startswith("offload/"):
                target = "include/" + m.group(1)
            else:
                target = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
            if os.path.isfile(os.path.join(SOURCE_DIR, target)) and room_of(path) != room_of(target):
                arrows[(room_of(path), room_of(target))].add("%s includes %s" % (path, target))
    return arrows


def arrows_up(arrows):
    """The arrows that run back up, each with its pairs of files, and the
    rooms on no floor."""
    floor = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}
    unplaced = sorted({room for pair in arrows for room in pair if room not in floor})
    up = sorted((pair, files) for pair, files in arrows.items()
                if pair[0] in floor and pair[1] in floor and floor[pair[0]] < floor[pair[1]])
    return up, unplaced


def main():
    args = sys.argv[1:]
    draw = args[:1] == ["--picture"]
    if draw:
        args = args[1:]
    if len(args) != 1:
        raise SystemExit(__doc__)
    defined = {}
    graph = call_graph(args[0], defined)
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
    up, unplaced = arrows_up(room_arrows(graph, defined))
    for room in unplaced:
        status = 1
        print("room %s stands on no floor: FLOORS in scripts/structure-check.py places it" % room)
    for (lower, higher), files in up:
        print("arrow back up: %s -> %s" % (lower, higher))
        for pair in sorted(files):
            print("  " + pair)
    if len(up) > MAX_ARROWS_UP:
        status = 1
        print("arrows back up: %d, %d at most: move the code where it belongs" %
              (len(up), MAX_ARROWS_UP))
    print("structure-check: %d files in %d folders, %s; arrows back up: %d (%d at most)" % (
        len(graph), len(folders),
        "no loop, no forbidden include, the picture is true" if status == 0 else "see above",
        len(up), MAX_ARROWS_UP))
    return status


if __name__ == "__main__":
    sys.exit(main())
