#!/usr/bin/env python3
"""HeCBench's kernels under partitioned device LTO against full LTO.

  bench/hecbench_kernels.py HECBENCH [--suites omp19,hip22,omp22] [--only a,b]
                            [--limit N] [--jobs 1] [--work DIR] [--build BUILD]
                            [--redo] [--report-only] [--docs docs/performance.md]

HECBENCH is a checkout of HeCBench (github.com/zjin-lcf/HeCBench); its
programs are src/<name>-omp and src/<name>-hip.  Nothing of it is copied into
this repository.  Per program this script reads the Makefile (the compile
lines `make -n -B` prints, with the compiler replaced: their sources, -I, -D,
-U, -include and -std= words), compiles every source, links the device code
with offload-link twice -- --device-lto=full (upstream's one module) and
--device-lto=partitioned (the default) -- and compares every kernel with
bench/kernel_quality.py's readers:

  mode       the ExecMode of its kernel environment in the optimized IR
             (OpenMP; HIP kernels have none)
  registers  sm_90: nvlink -v; AMDGPU: .sgpr_count/.vgpr_count(/.agpr_count)
  stack      sm_90: nvlink -v; AMDGPU: .private_segment_fixed_size (+dyn)
  spills     sm_90: ptxas -v spill stores + loads (bytes); AMDGPU:
             .sgpr_spill_count + .vgpr_spill_count (registers spilled)
  shared     sm_90: nvlink's smem; AMDGPU: .group_segment_fixed_size (LDS)
  occupancy  AMDGPU: waves per SIMD from LLVM's kernel-resource-usage remark
             (LLVM 22's symbolic one evaluated with the metadata's counts);
             sm_90: resident warps per SM its registers allow (65536
             registers, 256 a warp's allocation unit, at most 64 warps)

A kernel is worse partitioned when its mode changes, its occupancy is lower,
or it has more spills, stack or shared memory than under full LTO (or is
missing from one side).  Registers alone are counted, not judged.

Suites:
  omp19  every *-omp program, clang++-19 -O3 -fopenmp
         --offload-arch=sm_90,gfx942 -foffload-lto, the device runtime
         -L/usr/lib/llvm-19/lib -lomptarget.devicertl on the link
  hip22  every *-hip program, clang++-22 -O3 -x hip --offload-new-driver
         -fgpu-rdc --offload-arch=gfx90a,gfx942 -mcode-object-version=5,
         HIP headers from libamdhip64-dev, device libraries from
         rocm-device-libs
  omp22  every *-omp program with clang++-22: needs clang 22's OpenMP device
         runtime (libomptarget.devicertl.a or lib/clang/22/lib/<triple>/),
         which Debian's 22 packages do not ship; without it the suite is
         counted as skipped, with the reason.

The device libraries: Debian's rocm-device-libs (ROCm 5.2) predate gfx942
and clang 22.  The script writes, into its work directory, a copy of the
bitcode directory (links) with oclc_isa_version_942.bc (the ISA version
constant, 9402, as oclc_isa_version_940.bc holds 9400), and for clang 22 an
ocml.bc that defines __oclc_daz_opt (0, as oclc_daz_opt_off.bc; clang 22 no
longer links that control library) and __atomic_work_item_fence (hip.bc's
one function, which clang 22 no longer links); clang 22's HIP compiles get
-D__AMDGCN_WAVEFRONT_SIZE=64 (the macro HIP 5.2's headers read, gone from
clang 22; gfx90a and gfx942 run 64-wide waves) and -mcode-object-version=5
(ROCm 5.2 has no oclc_abi_version_600.bc).  Missing packages are named, not
installed.

Work directory (default <build>/hecbench-kernels): <suite>/<program>/ holds
the objects, the two links (full/, partitioned/: logs, optimized IR,
images) and result.json; a program with a result.json is not redone
(--redo does), so an interrupted run goes on where it stopped.  Each run ends
with the report: every result so far aggregated into <work>/report.md (each
kernel's row) and, with --docs, the summary and the worse kernels written
between the markers

  <!-- hecbench-kernels:begin --> ... <!-- hecbench-kernels:end -->

of that file (the rest of it untouched; the markers must be there).
--report-only writes the report from what has finished.
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel_quality as kq  # noqa: E402

REPO = kq.REPO
ROCM_BITCODE = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
HIP_INCLUDE = "/usr/include/hip/hip_runtime.h"
SOURCE_EXT = (".c", ".cc", ".cpp", ".cxx", ".C", ".cu", ".hip")
BEGIN = "<!-- hecbench-kernels:begin -->"
END = "<!-- hecbench-kernels:end -->"
COMPILE_TIMEOUT = 900
LINK_TIMEOUT = 1200

SUITES = {
    "omp19": {"kind": "omp", "clang": "clang++-19", "llvm": 19,
              "archs": ["sm_90", "gfx942"],
              "runtime": ["-L/usr/lib/llvm-19/lib", "-lomptarget.devicertl"]},
    "hip22": {"kind": "hip", "clang": "clang++-22", "llvm": 22,
              "archs": ["gfx90a", "gfx942"], "runtime": []},
    "omp22": {"kind": "omp", "clang": "clang++-22", "llvm": 22,
              "archs": ["sm_90", "gfx942"],
              "runtime": ["-L/usr/lib/llvm-22/lib", "-lomptarget.devicertl"]},
}


# --- what is needed -------------------------------------------------------

def missing(suite):
    """Why a suite cannot run here, or None."""
    s = SUITES[suite]
    tool = shutil.which(s["clang"])
    if not tool:
        return "no %s" % s["clang"]
    if any(a.startswith("gfx") for a in s["archs"]) and not os.path.isdir(ROCM_BITCODE):
        return "no ROCm device libraries (%s: apt-get install rocm-device-libs)" % ROCM_BITCODE
    if any(a.startswith("sm_") for a in s["archs"]) and not os.access(
            os.path.join(kq.CUDA, "bin", "nvlink"), os.X_OK):
        return "no %s/bin/nvlink (the CUDA toolkit)" % kq.CUDA
    if s["kind"] == "hip" and not os.path.exists(HIP_INCLUDE):
        return "no %s (apt-get install libamdhip64-dev)" % HIP_INCLUDE
    if s["kind"] == "omp":
        lib = "/usr/lib/llvm-%d/lib" % s["llvm"]
        per_target = [os.path.join(lib, "clang", str(s["llvm"]), "lib", t)
                      for t in ("nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa")]
        if not os.path.exists(os.path.join(lib, "libomptarget.devicertl.a")) and \
                not all(os.path.isdir(d) for d in per_target):
            return ("no OpenMP device runtime for clang %d (neither %s/libomptarget.devicertl.a "
                    "nor %s: Debian's %d packages do not ship it)"
                    % (s["llvm"], lib, " / ".join(per_target), s["llvm"]))
    return None


def llvm_tool(name, version):
    return "/usr/lib/llvm-%d/bin/%s" % (version, name)


def device_libs(work, llvm):
    """A ROCm device-library directory clang <llvm> accepts for gfx90a and
    gfx942 (see the docstring); made once in work."""
    where = os.path.join(work, "rocm-device-libs-%d" % llvm)
    stamp = os.path.join(where, "done")
    if os.path.exists(stamp):
        return where
    shutil.rmtree(where, ignore_errors=True)
    os.makedirs(where)
    for f in os.listdir(ROCM_BITCODE):
        if f.endswith(".bc"):
            os.symlink(os.path.join(ROCM_BITCODE, f), os.path.join(where, f))
    dis, asm = llvm_tool("llvm-dis", 19), llvm_tool("llvm-as", 19)

    def disassemble(src):
        return subprocess.run([dis, src, "-o", "-"], stdout=subprocess.PIPE, text=True,
                              check=True).stdout

    def rewrite(src, dest, old, new, append=""):
        text = disassemble(src)
        if old not in text:
            sys.exit("hecbench_kernels: %s has no %r" % (src, old))
        if os.path.lexists(dest):
            os.remove(dest)
        subprocess.run([asm, "-o", dest], input=text.replace(old, new) + append, text=True,
                       check=True)

    if not os.path.exists(os.path.join(ROCM_BITCODE, "oclc_isa_version_942.bc")):
        rewrite(os.path.join(ROCM_BITCODE, "oclc_isa_version_940.bc"),
                os.path.join(where, "oclc_isa_version_942.bc"), "i32 9400", "i32 9402")
    if llvm >= 22:
        # hip.bc's one function (HIP 5.2's __threadfence calls it), which
        # clang 22 no longer links; llvm-link would drop it (linkonce_odr,
        # unreferenced), so its text goes into ocml's.
        hip = disassemble(os.path.join(ROCM_BITCODE, "hip.bc"))
        m = re.search(r"^(define [^\n]*@__atomic_work_item_fence\(.*?^\}\n)", hip, re.M | re.S)
        attrs = re.search(r"^attributes #0 = (\{.*\})$", hip, re.M)
        if not m or not attrs or "#0 {" not in m.group(1):
            sys.exit("hecbench_kernels: %s/hip.bc is not as expected" % ROCM_BITCODE)
        append = ("\n" + m.group(1).replace("#0 {", "#9000 {") + "\nattributes #9000 = "
                  + attrs.group(1) + "\n")
        rewrite(os.path.join(ROCM_BITCODE, "ocml.bc"), os.path.join(where, "ocml.bc"),
                "@__oclc_daz_opt = external local_unnamed_addr addrspace(4) constant i8, align 1",
                "@__oclc_daz_opt = linkonce_odr protected local_unnamed_addr addrspace(4) "
                "constant i8 0, align 1", append)
    open(stamp, "w").close()
    return where


# --- a program's sources ----------------------------------------------------

def make_compiles(directory):
    """[(source, [flags])] from the compile lines of `make -n -B` with the
    compiler named KQCC, or raises RuntimeError."""
    proc = subprocess.run(["make", "-n", "-B", "CC=KQCC", "CXX=KQCC", "NVCC=KQCC",
                           "HIPCC=KQCC"], cwd=directory, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=60)
    if proc.returncode != 0:
        raise RuntimeError("make -n failed: " + proc.stdout[-500:])
    out, seen = [], set()
    for line in re.sub(r"\\\n", " ", proc.stdout).splitlines():
        line = line.strip()
        if not line.startswith("KQCC"):
            continue
        try:
            words = shlex.split(line)[1:]
        except ValueError:
            continue
        flags, sources, i = [], [], 0
        while i < len(words):
            w = words[i]
            if w in ("-I", "-D", "-U", "-include", "-isystem", "-iquote") and i + 1 < len(words):
                flags += [w, words[i + 1]]
                i += 2
                continue
            if w == "-o":
                i += 2
                continue
            if re.match(r"^(-I|-D|-U|-isystem|-iquote).", w):
                flags.append(w)
            elif re.match(r"^--?std=", w):
                flags.append("-std=" + w.split("=", 1)[1])
            elif w.endswith(SOURCE_EXT) and not w.startswith("-") and \
                    os.path.isfile(os.path.join(directory, w)):
                sources.append(w)
            i += 1
        for src in sources:
            if src not in seen:
                seen.add(src)
                out.append((src, flags))
    if not out:
        raise RuntimeError("no compile line in make -n's output")
    return out


def compile_flags(suite, work):
    s = SUITES[suite]
    common = ["-O3", "-w"]
    if s["kind"] == "omp":
        return common + ["-fopenmp", "--offload-arch=" + ",".join(s["archs"]), "-foffload-lto",
                         "--cuda-path=" + kq.CUDA,
                         "--rocm-device-lib-path=" + device_libs(work, s["llvm"])]
    return common + ["-x", "hip", "--offload-new-driver", "-fgpu-rdc",
                     "--offload-arch=" + ",".join(s["archs"]), "-mcode-object-version=5",
                     "--rocm-path=/usr", "--rocm-device-lib-path=" + device_libs(work, s["llvm"]),
                     "-D__AMDGCN_WAVEFRONT_SIZE=64"]


# --- one program ----------------------------------------------------------

def nvptx_warps(regs):
    """Resident warps per SM on sm_90 as its registers allow."""
    if not regs:
        return None
    per_warp = -(-regs[0] * 32 // 256) * 256
    return min(64, 65536 // per_warp) if per_warp else 64


def entry_json(e):
    if e is None:
        return None
    return {"mode": list(e["mode"]) if e["mode"] else None,
            "regs": list(e["regs"]) if e["regs"] else None,
            "stack": e["stack"], "dyn": e["dyn"], "shared": e["shared"],
            "spills": e.get("spills"), "occupancy": e["occupancy"]}


def tail(path, n=1500):
    try:
        with open(path, errors="replace") as f:
            return f.read()[-n:]
    except OSError:
        return ""


def run_program(suite, name, hec, work, tool):
    """Compiles and links one program; writes and returns its result."""
    s = SUITES[suite]
    src_dir = os.path.join(hec, "src", "%s-%s" % (name, s["kind"]))
    pdir = os.path.join(work, suite, name)
    os.makedirs(pdir, exist_ok=True)
    result = {"program": name, "suite": suite, "kernels": [], "date":
              datetime.date.today().isoformat()}
    start = time.time()

    def finish(status, why=""):
        result["status"] = status
        result["why"] = why
        result["seconds"] = round(time.time() - start, 1)
        with open(os.path.join(pdir, "result.json.tmp"), "w") as out:
            json.dump(result, out, indent=1)
        os.replace(os.path.join(pdir, "result.json.tmp"), os.path.join(pdir, "result.json"))
        return result

    if not os.path.isfile(os.path.join(src_dir, "Makefile")):
        return finish("skipped", "no Makefile")
    try:
        compiles = make_compiles(src_dir)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        return finish("skipped", "Makefile: %s" % e)
    objdir = os.path.join(pdir, "obj")
    shutil.rmtree(objdir, ignore_errors=True)
    os.makedirs(objdir)
    objects = []
    t0 = time.time()
    for src, flags in compiles:
        obj = os.path.join(objdir, re.sub(r"[^\w.-]+", "_", os.path.splitext(src)[0]) + ".o")
        cmd = [s["clang"]] + compile_flags(suite, work) + flags + ["-c", src, "-o", obj]
        try:
            proc = subprocess.run(cmd, cwd=src_dir, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=COMPILE_TIMEOUT)
            ok, log = proc.returncode == 0, proc.stdout
        except subprocess.TimeoutExpired:
            ok, log = False, "timed out after %d s" % COMPILE_TIMEOUT
        if not ok:
            with open(os.path.join(pdir, "compile.log"), "w") as out:
                out.write(" ".join(shlex.quote(c) for c in cmd) + "\n" + log)
            errors = [l for l in log.splitlines() if "error" in l]
            return finish("compile-failed", "%s: %s" % (src, (errors or [log.strip()[-200:]])[0]))
        objects.append(obj)
    result["compile_seconds"] = round(time.time() - t0, 1)
    flags = ["--opt-level=O3"]
    sides = {}
    for mode in ("full", "partitioned"):
        where = os.path.join(pdir, mode)
        t0 = time.time()
        log = kq.link(None, tool, name, objects, flags, mode, where, runtime=s["runtime"],
                      fatal=False, timeout=LINK_TIMEOUT)
        result["%s_seconds" % mode] = round(time.time() - t0, 1)
        if log is None:
            lines = [l for l in tail(os.path.join(where, "link.log"), 20000).splitlines()
                     if "error" in l]
            return finish("link-failed", "%s: %s" % (mode, (lines or ["see link.log"])[0]))
        m = re.findall(r"partitioned LTO of \d+ bitcode modules? for \S+ (\S+) at -O\d: "
                       r"(\d+) partitions?", log)
        if mode == "partitioned":
            result["partitions"] = {arch: int(n) for arch, n in m}
            result["whole"] = [l for l in log.splitlines()
                               if re.search(r"whole|one module",
                                            l)][:5]
        sides[mode] = kq.collect(where, log, s["archs"])
        # What the comparison needs stays (logs, optimized IR, images).
        for f in os.listdir(where):
            if f.endswith((".postlink.bc", ".o", ".s", ".cubin")) or ".wrapper." in f:
                os.remove(os.path.join(where, f))
    full, part = sides["full"], sides["partitioned"]
    for arch, kernel in sorted(set(full) | set(part),
                               key=lambda k: (s["archs"].index(k[0]), k[1])):
        a, b = full.get((arch, kernel)), part.get((arch, kernel))
        for e in (a, b):
            if e is not None and arch.startswith("sm_"):
                e["occupancy"] = nvptx_warps(e["regs"])
        result["kernels"].append({"arch": arch, "kernel": kernel,
                                  "full": entry_json(a), "partitioned": entry_json(b)})
    return finish("compared" if result["kernels"] else "no-kernels")


# --- the comparison -------------------------------------------------------

COLUMNS = ("mode", "occupancy", "spills", "stack", "shared", "missing")


def worse(k):
    """The columns in which the partitioned kernel is worse, and the
    registers' direction ("+"/"-"/"")."""
    a, b = k["full"], k["partitioned"]
    if a is None or b is None:
        return ["missing"], ""
    out = []
    if a["mode"] != b["mode"]:
        out.append("mode")
    if a["occupancy"] is not None and b["occupancy"] is not None and \
            b["occupancy"] < a["occupancy"]:
        out.append("occupancy")
    if (b["spills"] or 0) > (a["spills"] or 0):
        out.append("spills")
    if (b["stack"] or 0) > (a["stack"] or 0) or (b["dyn"] and not a["dyn"]):
        out.append("stack")
    if (b["shared"] or 0) > (a["shared"] or 0):
        out.append("shared")
    regs = ""
    if a["regs"] and b["regs"] and a["regs"] != b["regs"]:
        regs = "+" if any(y > x for x, y in zip(a["regs"], b["regs"])) else "-"
    return out, regs


def better(k):
    a, b = k["full"], k["partitioned"]
    if a is None or b is None:
        return []
    out = []
    if a["occupancy"] is not None and b["occupancy"] is not None and \
            b["occupancy"] > a["occupancy"]:
        out.append("occupancy")
    if (b["spills"] or 0) < (a["spills"] or 0):
        out.append("spills")
    if (b["stack"] or 0) < (a["stack"] or 0):
        out.append("stack")
    if (b["shared"] or 0) < (a["shared"] or 0):
        out.append("shared")
    return out


def cell(k, fn):
    return "%s / %s" % (fn(k["full"]), fn(k["partitioned"]))


def f_mode(e):
    return "-" if e is None else kq.mode_text(tuple(e["mode"]) if e["mode"] else None)


def f_regs(e):
    return "-" if e is None or not e["regs"] else "/".join(str(r) for r in e["regs"])


def f_stack(e):
    return "-" if e is None or e["stack"] is None else "%d%s" % (e["stack"],
                                                                "+dyn" if e["dyn"] else "")


def f_num(key):
    return lambda e: "-" if e is None or e[key] is None else str(e[key])


def row(suite, r, k, verdict):
    return "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        suite, r["program"], kq.short_kernel(k["kernel"]), k["arch"], cell(k, f_mode),
        cell(k, f_regs), cell(k, f_stack), cell(k, f_num("spills")), cell(k, f_num("shared")),
        cell(k, f_num("occupancy")), verdict)


HEADER = ("| suite | program | kernel | target | mode full / part | regs full / part "
          "| stack full / part | spills full / part | shared full / part "
          "| occupancy full / part | partitioned |\n|---|---|---|---|---|---|---|---|---|---|---|")


def report(args, work, suites, available):
    results = {}
    for suite in suites:
        d = os.path.join(work, suite)
        results[suite] = []
        if os.path.isdir(d):
            for name in sorted(os.listdir(d)):
                path = os.path.join(d, name, "result.json")
                if os.path.exists(path):
                    with open(path) as f:
                        results[suite].append(json.load(f))
    lines, all_rows, worse_rows = [], [], []
    summary = ["| suite | programs | tried | compiled | linked both ways | compared (kernels) "
               "| kernels (x targets) | worse: mode | occupancy | spills | stack | shared "
               "| missing | registers up / down | better: occupancy / spills / stack / shared "
               "| seconds per program (median, max) |",
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    skipped_why = {}
    totals = {}
    for suite in suites:
        rs = results[suite]
        total = len(programs_of(args.hecbench, suite))
        counts = dict.fromkeys(COLUMNS, 0)
        regs = {"+": 0, "-": 0}
        good = dict.fromkeys(("occupancy", "spills", "stack", "shared"), 0)
        kernels = 0
        for r in rs:
            for k in r["kernels"]:
                kernels += 1
                w, rg = worse(k)
                for c in w:
                    counts[c] += 1
                if rg:
                    regs[rg] += 1
                for c in better(k):
                    good[c] += 1
                verdict = ("WORSE (%s)" % ", ".join(w)) if w else "ok"
                all_rows.append(row(suite, r, k, verdict))
                if w:
                    worse_rows.append(row(suite, r, k, verdict))
        compiled = [r for r in rs if r["status"] not in ("skipped", "compile-failed")]
        linked = [r for r in rs if r["status"] in ("compared", "no-kernels")]
        compared = [r for r in rs if r["status"] == "compared"]
        secs = sorted(r["seconds"] for r in rs if r["status"] in ("compared", "no-kernels"))
        med = "%.0f s, %.0f s" % (secs[len(secs) // 2], secs[-1]) if secs else "-"
        if available.get(suite):
            summary.append("| %s | %d | 0 | - | - | - | - | - | - | - | - | - | - | - | - | "
                           "skipped: %s |" % (suite, total, available[suite]))
            continue
        summary.append("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d / %d "
                       "| %d / %d / %d / %d | %s |"
                       % (suite, total, len(rs), len(compiled), len(linked), len(compared),
                          kernels, counts["mode"], counts["occupancy"], counts["spills"],
                          counts["stack"], counts["shared"], counts["missing"], regs["+"],
                          regs["-"], good["occupancy"], good["spills"], good["stack"],
                          good["shared"], med))
        totals[suite] = (kernels, sum(1 for r in all_rows if r.startswith("| %s |" % suite)
                                      and "WORSE" in r))
        for r in rs:
            if r["status"] not in ("compared",):
                skipped_why.setdefault(suite, []).append("%s (%s: %s)" % (
                    r["program"], r["status"], r["why"][:160].replace("|", "/")))
    # Why programs were not compared, by kind of message, and how many
    # partitions the compared ones got.
    why_lines = []
    for suite in suites:
        kinds, parts = {}, {}
        for r in results[suite]:
            if r["status"] == "compared":
                # No "partitioned LTO of" note: the bitcode formed one
                # partition and was linked as one module.
                n = max((r.get("partitions") or {"-": 1}).values())
                n = "1 (one module)" if n == 1 else n
                parts[n] = parts.get(n, 0) + 1
                continue
            # A compile's message without its source; a link's with its mode.
            msg = re.sub(r"^[^:]*: ", "", r["why"], count=1) \
                if r["status"] == "compile-failed" else r["why"] or "no kernel in either image"
            msg = re.sub(r"^\S+:\d+:\d+: ", "", " ".join(msg.split()))
            if "file not found" not in msg:
                msg = re.sub(r"'[^']*'", "'...'", msg)
            msg = msg[:90]
            key = "%s: %s" % (r["status"], msg)
            kinds[key] = kinds.get(key, 0) + 1
        if parts:
            why_lines.append("- %s, partitions per compared program (the most of its targets): %s"
                             % (suite, ", ".join("%s: %d" % (k, v) for k, v in sorted(
                                 parts.items(), key=lambda kv: str(kv[0])))))
        if kinds:
            why_lines.append("- %s, not compared: %s" % (suite, "; ".join(
                "%d %s" % (v, k.replace("|", "/")) for k, v in sorted(
                    kinds.items(), key=lambda kv: -kv[1]))))
    note = ("HeCBench %s, %s; %s. Targets: omp19 sm_90 and gfx942, hip22 gfx90a "
            "and gfx942. Occupancy: AMDGPU waves per SIMD, sm_90 resident warps per SM its "
            "registers allow. Spills: sm_90 bytes (stores + loads), AMDGPU registers spilled."
            % (hec_commit(args.hecbench), datetime.date.today().isoformat(), tool_version(args)))
    lines = [note, ""] + summary + [""] + why_lines + [""]
    if worse_rows:
        lines += ["Kernels worse partitioned (%d):" % len(worse_rows), "", HEADER] + worse_rows
    else:
        lines += ["No kernel is worse partitioned in any column."]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(work, "report.md"), "w") as out:
        out.write(text + "\nEvery kernel:\n\n" + HEADER + "\n" + "\n".join(all_rows) + "\n\n"
                  + "Not compared:\n\n" + "\n".join(
                      "- %s: %s" % (s, "; ".join(w)) for s, w in skipped_why.items()) + "\n")
    print(text)
    print("every kernel's row: %s" % os.path.join(work, "report.md"))
    if args.docs:
        with open(args.docs) as f:
            doc = f.read()
        if BEGIN not in doc or END not in doc or doc.index(BEGIN) > doc.index(END):
            sys.exit("hecbench_kernels: %s has no %s ... %s section" % (args.docs, BEGIN, END))
        doc = doc[:doc.index(BEGIN) + len(BEGIN)] + "\n" + text + doc[doc.index(END):]
        with open(args.docs, "w") as f:
            f.write(doc)
        print("written between the markers of %s" % args.docs)


def hec_commit(hec):
    proc = subprocess.run(["git", "-C", hec, "rev-parse", "--short", "HEAD"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return proc.stdout.strip() or "(no git)"


def tool_version(args):
    return args.version_note


def programs_of(hec, suite):
    kind = SUITES[suite]["kind"]
    src = os.path.join(hec, "src")
    return sorted(d[:-len(kind) - 1] for d in os.listdir(src)
                  if d.endswith("-" + kind) and os.path.isdir(os.path.join(src, d)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("hecbench", help="a HeCBench checkout")
    parser.add_argument("--suites", default="omp19,hip22,omp22",
                        help="in this order (default omp19,hip22,omp22)")
    parser.add_argument("--only", help="program names (without -omp/-hip), comma-separated")
    parser.add_argument("--limit", type=int, help="at most N programs per suite this run")
    parser.add_argument("--jobs", type=int, default=1, help="programs at a time")
    parser.add_argument("--build", default=os.path.join(REPO, "build"),
                        help="a build tree or install prefix (its bin/offload-link)")
    parser.add_argument("--work", help="default: <build>/hecbench-kernels")
    parser.add_argument("--redo", action="store_true", help="redo programs with a result")
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--docs", help="a markdown file with the markers, e.g. "
                        "docs/performance.md")
    args = parser.parse_args()
    args.hecbench = os.path.abspath(args.hecbench)
    if not os.path.isdir(os.path.join(args.hecbench, "src")):
        sys.exit("hecbench_kernels: %s has no src/ (a HeCBench checkout)" % args.hecbench)
    tool = kq.tool_of(args.build)
    args.version_note = re.sub(r" \(.*", "", subprocess.run(
        [tool, "--version"], stdout=subprocess.PIPE, text=True).stdout.strip().splitlines()[0])
    work = os.path.abspath(args.work or os.path.join(args.build, "hecbench-kernels"))
    os.makedirs(work, exist_ok=True)
    suites = args.suites.split(",")
    for s in suites:
        if s not in SUITES:
            sys.exit("hecbench_kernels: no suite %s (%s)" % (s, ", ".join(SUITES)))
    available = {s: missing(s) for s in suites}
    for s, why in available.items():
        if why:
            print("%s: skipped: %s" % (s, why), flush=True)
    if not args.report_only:
        with open(os.path.join(work, "runner.pid"), "w") as f:
            f.write("%d\n" % os.getpid())
        only = set(args.only.split(",")) if args.only else None
        for suite in suites:
            if available[suite]:
                continue
            names = [n for n in programs_of(args.hecbench, suite) if not only or n in only]
            todo = [n for n in names if args.redo or not os.path.exists(
                os.path.join(work, suite, n, "result.json"))]
            if args.limit is not None:
                todo = todo[:args.limit]
            print("%s: %d programs, %d to do this run" % (suite, len(names), len(todo)),
                  flush=True)
            device_libs(work, SUITES[suite]["llvm"])

            def one(n, suite=suite):
                # Another run of this script on the same work directory may
                # have done the program meanwhile, or be doing it.
                pdir = os.path.join(work, suite, n)
                if not args.redo and os.path.exists(os.path.join(pdir, "result.json")):
                    return
                os.makedirs(pdir, exist_ok=True)
                lock = os.path.join(pdir, "lock")
                try:
                    fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                except FileExistsError:
                    try:
                        with open(lock) as f:
                            os.kill(int(f.read().strip() or 0), 0)
                        print("%s %s: another run has it" % (suite, n), flush=True)
                        return
                    except (OSError, ValueError):  # a run that died left it
                        os.remove(lock)
                        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                os.write(fd, str(os.getpid()).encode())
                os.close(fd)
                try:
                    r = run_program(suite, n, args.hecbench, work, tool)
                except Exception as e:  # a program's failure is its result, not the run's
                    r = {"status": "error", "why": repr(e), "seconds": 0, "kernels": []}
                finally:
                    os.remove(lock)
                w = sum(1 for k in r["kernels"] if worse(k)[0])
                print("%s %s: %s%s, %d kernels, %d worse, %.0f s" % (
                    suite, n, r["status"], " (%s)" % r["why"][:120] if r["why"] else "",
                    len(r["kernels"]), w, r["seconds"]), flush=True)

            with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
                list(pool.map(one, todo))
    report(args, work, suites, available)
    return 0


if __name__ == "__main__":
    sys.exit(main())
