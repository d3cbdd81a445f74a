#!/usr/bin/env python3
"""Kernel code of full against partitioned device LTO (bench/run.py (h)).

  compare_kernels.py --work DIR -- <offload-link command line>

Links the program twice with --save-temps, in DIR/full (--device-lto=full)
and DIR/partitioned (--device-lto=partitioned), and compares each AMDGPU kernel of the linked
images: its disassembly (identical or not), its register counts from the
code object metadata and its instruction count; and for NVPTX the PTX of
the device LTO.  Prints a table; asserts nothing.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

READOBJ = "/usr/lib/llvm-19/bin/llvm-readobj"
OBJDUMP = "/usr/lib/llvm-19/bin/llvm-objdump"


def link(work, name, command):
    where = os.path.join(work, name)
    shutil.rmtree(where, ignore_errors=True)
    os.makedirs(where)
    proc = subprocess.run(command, cwd=where, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        sys.exit("compare_kernels: the %s link failed: %s" % (name, proc.stderr[-500:]))
    return where


def kernel_metadata(image):
    """{kernel: (sgprs, vgprs)} from the AMDGPU metadata note."""
    text = subprocess.run([READOBJ, "--notes", image], stdout=subprocess.PIPE, text=True,
                          check=True).stdout
    kernels, current = {}, {}
    for line in text.splitlines():
        m = re.match(r"\s*-?\s*\.(name|sgpr_count|vgpr_count):\s*(\S+)", line)
        if not m:
            continue
        key, value = m.groups()
        if key == "name":
            current = {"name": value}
        else:
            current[key] = int(value)
        if {"name", "sgpr_count", "vgpr_count"} <= set(current):
            kernels[current["name"]] = (current["sgpr_count"], current["vgpr_count"])
            current = {}
    return kernels


def functions(image):
    """{symbol: [instruction text]} from the disassembly."""
    text = subprocess.run([OBJDUMP, "-d", "--no-show-raw-insn", "--no-leading-addr", image],
                          stdout=subprocess.PIPE, text=True, check=True).stdout
    out, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^<(.+)>:$", line.strip())
        if m:
            current = out.setdefault(m.group(1), [])
            continue
        if current is not None and line.strip() and not line.startswith("Disassembly"):
            # Branch targets name addresses, which move with the layout.
            current.append(re.sub(r"0x[0-9a-f]+|<[^>]*>", "", line.strip()))
    return out


def calls(code):
    return sum(1 for line in code if line.startswith("s_swappc_b64"))


def compare_amdgpu(full_dir, part_dir):
    rows = []
    for image in sorted(f for f in os.listdir(full_dir) if re.search(r"\.amdgcn\..*\.img$", f)):
        other = os.path.join(part_dir, image)
        if not os.path.exists(other):
            continue
        meta_full, meta_part = kernel_metadata(os.path.join(full_dir, image)), kernel_metadata(other)
        code_full, code_part = functions(os.path.join(full_dir, image)), functions(other)
        same, worst = 0, {"sgpr": (0, ""), "vgpr": (0, ""), "instructions": (0, "")}
        totals = [0, 0, 0, 0]  # instructions and calls, full then partitioned
        for kernel in sorted(meta_full):
            if kernel not in meta_part:
                continue
            a, b = code_full.get(kernel, []), code_part.get(kernel, [])
            same += a == b
            totals[0] += len(a)
            totals[1] += calls(a)
            totals[2] += len(b)
            totals[3] += calls(b)
            deltas = {"sgpr": meta_part[kernel][0] - meta_full[kernel][0],
                      "vgpr": meta_part[kernel][1] - meta_full[kernel][1],
                      "instructions": len(b) - len(a)}
            for what, delta in deltas.items():
                if abs(delta) > abs(worst[what][0]):
                    worst[what] = (delta, kernel)
        rows.append((image, len(meta_full), same, worst, totals))
    return rows


def ptx_entries(paths):
    """{kernel: its PTX} with what moves with the module's layout left out:
    comments, label numbers (the function's index) and .shared declarations
    (a copy used by one kernel is declared inside it)."""
    out = {}
    for path in paths:
        with open(path) as inp:
            text = inp.read()
        for m in re.finditer(r"\.entry\s+(\S+)\(.*?\n}\n", text, re.S):
            body = re.sub(r"//.*", "", m.group(0))
            body = re.sub(r"\$L__BB\d+_", "$L__BB_", body)
            out[m.group(1)] = [line for line in body.split("\n")
                               if line.strip() and not line.strip().startswith(".shared")]
    return out


def compare_ptx(full_dir, part_dir):
    rows = []
    for ptx in sorted(f for f in os.listdir(full_dir) if re.search(r"\.nvptx64-.*\.s$", f)):
        parts = sorted(os.path.join(part_dir, f) for f in os.listdir(part_dir)
                       if f.startswith(ptx[:-2] + ".part") and f.endswith(".s"))
        full = ptx_entries([os.path.join(full_dir, ptx)])
        part = ptx_entries(parts)
        same = sum(1 for k in full if part.get(k) == full[k])
        worst = max((abs(len(part.get(k, [])) - len(full[k])), k) for k in full) if full else (0, "")
        rows.append((ptx, len(parts), len(full), same, worst))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", required=True)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    tool, rest = args.command[0], args.command[1:]
    full = link(args.work, "full", [tool, "--save-temps", "--no-cache", "--device-lto=full"] + rest)
    part = link(args.work, "partitioned",
                [tool, "--save-temps", "--no-cache", "--device-lto=partitioned"] + rest)
    print("\n## (h) kernel code, partitioned against full LTO\n")
    print("| image | kernels | identical code | largest SGPR change | largest VGPR change "
          "| largest instruction-count change | instructions (calls), full -> partitioned |")
    print("|---|---:|---:|---|---|---|---|")
    for image, n, same, worst, totals in compare_amdgpu(full, part):
        cells = ["%+d (%s)" % worst[w] if worst[w][1] else "0"
                 for w in ("sgpr", "vgpr", "instructions")]
        print("| %s | %d | %d | %s | %d (%d) -> %d (%d) |"
              % ((image, n, same, " | ".join(cells)) + tuple(totals)))
    for ptx, nparts, n, same, worst in compare_ptx(full, part):
        print("| %s (PTX of %d partition%s) | %d | %d | - | - | %s | - |"
              % (ptx, nparts, "" if nparts == 1 else "s", n, same,
                 "%d lines (%s)" % worst if worst[0] else "0"))


if __name__ == "__main__":
    main()
