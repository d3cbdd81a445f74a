#!/usr/bin/env python3
"""Kernels of partitioned device LTO against full LTO, kernel by kernel.

  bench/kernel_quality.py [--build build] [--work DIR] [--heavy-units 100]
                          [--archs sm_90,gfx942] [--partitions partitioned,partitioned:1]
                          [--programs heavy,e2e,gpu] [--output FILE]

For each program, compiles its sources with clang 19 (-O2 -fopenmp
--offload-arch=<archs> -foffload-lto -nogpulib), links the device code with
offload-link three times -- full LTO (--device-lto=full, named: partitioned
is the default since 0.2.0) and each of --partitions
(--device-lto=partitioned, partitions of 8 modules, 4 before
0.2.0's last change; partitioned:1, one
module each) -- with --save-temps --wrapper-verbose --no-cache, the host
link replaced by /bin/true and the device runtime from
-L/usr/lib/llvm-19/lib -lomptarget.devicertl, and compares every kernel:

  mode    from the kernel environment in the optimized device IR
          (<out>.<triple>.<arch>[.partN].postopt.bc, disassembled by the
          llvm-dis of the bitcode's producer): the first fields of
          ConfigurationEnvironmentTy {i8 UseGenericStateMachine,
          i8 MayUseNestedParallelism, i8 ExecMode, ...}, ExecMode as LLVM's
          OMPTgtExecModeFlags (OMPDeviceConstants.h): 1 generic, 2 SPMD,
          3 generic-SPMD (a generic kernel OpenMPOpt made SPMD), 0 bare and
          6 SPMD-no-loop (LLVM 22).  "+gsm": the generic state machine (no
          custom one); "+nested": may use nested parallelism.
  NVPTX   registers, stack and shared memory per kernel from nvlink -v (the
          linked image: what the loader gets), which offload-link prints
          under --wrapper-verbose.
  AMDGPU  .sgpr_count / .vgpr_count (/ .agpr_count when not 0),
          .private_segment_fixed_size (stack; "+dyn" with
          .uses_dynamic_stack) and .group_segment_fixed_size (LDS) from the
          code object metadata note of <out>.amdgcn.<arch>.img
          (llvm-readobj-22 --notes), and the occupancy (waves per SIMD)
          LLVM's AMDGPU code generator computes for the kernel from all of
          them, as its kernel-resource-usage remark says it (the links run
          with --pass-remarks-analysis=kernel-resource-usage).

With --baseline BUILD, the reference is full LTO linked by that build (a
build tree or an install prefix: its bin/offload-link) and "full" among
--partitions is this build's full LTO: what a change to the device LTO does
to the kernels, e.g. --baseline ../before --partitions full.

Verdict per kernel: "same" (mode, registers and stack equal), "within 5%"
(every register count and the stack within 5% of full LTO's), else
"DIFFERS" (a mode change, a kernel missing from one side, or a register
count or stack more than 5% away; from 0, any change).  Shared memory and
occupancy are shown and counted in the summary but do not decide the
verdict: the occupancy says whether a register difference costs waves.  Prints
the markdown table, a summary line and the table again with the kernels of
a program that got the same numbers in one row, writes them to --output, and exits
1 if any kernel DIFFERS.

Programs: heavy -- bench/run.py (h)'s program (gen.heavy_sources with
h_shared() called by min(50, units) units), compiled with -foffload-lto so
the NVPTX kernels are in the device LTO too (without it clang 19 compiles
them to cubins before the link and only the device runtime is LTO'd);
e2e -- the OpenMP cases of test/e2e/cases, one device link per link of
their recipes (cases that only reuse other cases' sources are left out);
gpu -- test/gpu/omp-main.c + omp-lib.c, and omp-timing (its three units).  No GPU is needed.
"""

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLANG = "clang-19"
CLANGXX = "clang++-19"
LLVM_AR = "/usr/lib/llvm-19/bin/llvm-ar"
READOBJ = "/usr/lib/llvm-22/bin/llvm-readobj"
BCANALYZER = "/usr/lib/llvm-22/bin/llvm-bcanalyzer"
CUDA = "/usr/local/cuda"
RUNTIME = ["-L/usr/lib/llvm-19/lib", "-lomptarget.devicertl"]
TOLERANCE = 0.05

EXEC_MODES = {0: "bare", 1: "generic", 2: "SPMD", 3: "generic-SPMD", 6: "SPMD-no-loop"}

# The e2e cases as device links: (program, [(source, extra flags)], archives,
# extra link flags).  Sources are relative to test/e2e/cases; an archive is
# (name, [sources]) and goes after the objects, as in the recipes.
E2E = [
    ("cxx-ctor-dtor", [("cxx-ctor-dtor/main.cpp", [])], [], []),
    ("declare-target-link", [("declare-target-link/main.c", [])], [], []),
    ("host-lto", [("host-lto/main.c", []), ("host-lto/helper.c", [])], [], []),
    ("indirect-call", [("indirect-call/main.c", []), ("indirect-call/ops.c", [])], [], []),
    ("plain-target", [("plain-target/main.c", [])], [], []),
    ("relocatable-archive", [("relocatable-archive/main.c", []),
                             ("relocatable-archive/foo.c", [])], [], []),
    ("relocatable-link", [("relocatable-link/kernels.c", []),
                          ("relocatable-link/more.c", [])], [], []),
    ("shared-global", [("shared-global/main.c", []), ("shared-global/counter.c", [])], [], []),
    ("shared-library/libwork", [("shared-library/work.c", ["-fPIC"])], [], ["-shared"]),
    ("shared-library/main", [("shared-library/main.c", [])], [], []),
    ("shared-two-libraries/libone", [("shared-two-libraries/library.c", ["-fPIC", "-DNAME=one"])],
     [], ["-shared"]),
    ("shared-two-libraries/libtwo", [("shared-two-libraries/library.c", ["-fPIC", "-DNAME=two"])],
     [], ["-shared"]),
    ("shared-two-libraries/main", [("shared-two-libraries/main.c", [])], [], []),
    ("static-lib-after", [("static-lib-after/main.c", [])],
     [("libscale.a", ["static-lib-after/scale.c", "static-lib-after/unused.c"])], []),
]


def run(cmd, cwd=None, log=None):
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    if log:
        with open(log, "w") as out:
            out.write(proc.stdout)
    if proc.returncode != 0:
        sys.exit("kernel_quality: %s failed (exit %d):\n%s"
                 % (" ".join(cmd), proc.returncode, proc.stdout[-2000:]))
    return proc.stdout


def compile_flags(archs):
    return ["-O2", "-fopenmp", "--offload-arch=" + ",".join(archs), "-foffload-lto", "-nogpulib"]


def compile_all(jobs, cmds):
    gen._compile_all(jobs, cmds)


# --- the programs --------------------------------------------------------

def program_heavy(args, archs, workdir):
    """bench (h)'s program, compiled with -foffload-lto.  Returns the link inputs."""
    units = args.heavy_units
    src = os.path.join(workdir, "heavy-%d-%s" % (units, "-".join(archs)))
    stamp = os.path.join(src, "done")
    sources = gen.heavy_sources(src, units, shared_callers=min(50, units)) \
        if not os.path.exists(stamp) else None
    objects = [os.path.join(src, "main.o")] + [os.path.join(src, "heavy%03d.o" % u)
                                               for u in range(units)]
    if sources:
        print("compiling the heavy program (%d units, %s) ..." % (units, ",".join(archs)),
              flush=True)
        compile_all(args.jobs, [[CLANG] + compile_flags(archs) + ["-c", s, "-o", s[:-2] + ".o"]
                                for s in sources])
        open(stamp, "w").close()
    return objects


def program_sources(args, archs, name, sources, archives, objdir):
    """Compiles sources (and archives) of one e2e-style program into objdir."""
    os.makedirs(objdir, exist_ok=True)
    cmds, inputs = [], []
    for src, flags in sources:
        path = os.path.join(REPO, src) if not os.path.isabs(src) else src
        obj = os.path.join(objdir, os.path.splitext(os.path.basename(src))[0] + ".o")
        driver = CLANGXX if src.endswith(".cpp") else CLANG
        cmds.append([driver] + compile_flags(archs) + flags + ["-c", path, "-o", obj])
        inputs.append(obj)
    for archive, members in archives:
        objs = []
        for src in members:
            obj = os.path.join(objdir, os.path.splitext(os.path.basename(src))[0] + ".o")
            cmds.append([CLANG] + compile_flags(archs) + ["-c", os.path.join(REPO, src),
                                                          "-o", obj])
            objs.append(obj)
        inputs.append((os.path.join(objdir, archive), objs))
    compile_all(args.jobs, cmds)
    out = []
    for item in inputs:
        if isinstance(item, tuple):
            if os.path.exists(item[0]):
                os.remove(item[0])
            run([LLVM_AR, "rcs", item[0]] + item[1])
            out.append(item[0])
        else:
            out.append(item)
    return out


def programs(args, archs, workdir):
    """[(program name, link inputs, extra link flags)]"""
    wanted = args.programs.split(",")
    out = []
    if "gpu" in wanted:
        objdir = os.path.join(workdir, "src", "gpu-omp")
        out.append(("test/gpu omp", program_sources(
            args, archs, "gpu", [("test/gpu/omp-main.c", []), ("test/gpu/omp-lib.c", [])], [],
            objdir), []))
        objdir = os.path.join(workdir, "src", "gpu-omp-timing")
        out.append(("test/gpu omp-timing", program_sources(
            args, archs, "gpu-timing", [("test/gpu/omp-timing-main.c", []),
                                        ("test/gpu/omp-timing-lib.c", []),
                                        ("test/gpu/omp-timing-ops.c", [])], [], objdir), []))
    if "e2e" in wanted:
        for name, sources, archives, flags in E2E:
            objdir = os.path.join(workdir, "src", "e2e", name.replace("/", "-"))
            out.append(("e2e " + name, program_sources(
                args, archs, name, [("test/e2e/cases/" + s, f) for s, f in sources],
                [(a, ["test/e2e/cases/" + m for m in ms]) for a, ms in archives], objdir), flags))
    if "heavy" in wanted:
        out.append(("heavy %d units" % args.heavy_units, program_heavy(args, archs, workdir), []))
    return out


# --- what one link gives -------------------------------------------------

def producer_major(bitcode):
    """The LLVM major version that wrote `bitcode` (its IDENTIFICATION block)."""
    proc = subprocess.Popen([BCANALYZER, "-dump", bitcode], stdout=subprocess.PIPE, text=True)
    major = None
    for line in proc.stdout:
        m = re.search(r"record string = 'LLVM(\d+)\.", line)
        if m:
            major = int(m.group(1))
            break
        if "MODULE_BLOCK" in line:
            break
    proc.kill()
    proc.wait()
    return major


def llvm_dis(bitcode):
    major = producer_major(bitcode)
    for v in ([major] if major else []) + [22]:
        tool = "/usr/lib/llvm-%d/bin/llvm-dis" % v
        if not os.access(tool, os.X_OK):
            continue
        proc = subprocess.run([tool, bitcode, "-o", "-"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        if proc.returncode == 0:
            return proc.stdout
    sys.exit("kernel_quality: no llvm-dis reads %s" % bitcode)


ENV_RE = re.compile(r'^@"?([^"\s]+)_kernel_environment"? = ([^{]*?)\{\s*(?:%[\w.]+\s*)?\{\s*'
                    r'i8 (-?\d+), i8 (-?\d+), i8 (-?\d+)', re.M)


def kernel_modes(outdir, out, triple, arch):
    """{kernel: (UseGenericStateMachine, MayUseNestedParallelism, ExecMode)}
    from the optimized IR of this image, its partitions' first."""
    prefix = "%s.%s.%s." % (out, triple, arch)
    files = sorted(f for f in os.listdir(outdir)
                   if f.startswith(prefix) and f.endswith(".postopt.bc"))
    parts = [f for f in files if re.match(re.escape(prefix) + r"part\d+\.postopt\.bc$", f)]
    modes = {}
    for f in parts or files:
        for m in ENV_RE.finditer(llvm_dis(os.path.join(outdir, f))):
            if "available_externally" in m.group(2) or "external " in m.group(2):
                continue
            modes[m.group(1)] = tuple(int(m.group(i)) for i in (3, 4, 5))
    return modes


def mode_text(mode):
    if mode is None:
        return "-"
    gsm, nested, exec_mode = mode
    text = EXEC_MODES.get(exec_mode, "mode %d" % exec_mode)
    if gsm:
        text += "+gsm"
    if nested:
        text += "+nested"
    return text


def nvlink_resources(log, arch):
    """{kernel: {"regs": (n,), "stack": n, "shared": n}} from nvlink -v's
    function properties in the link's log, for the nvlink run of arch."""
    out, current, in_arch = {}, None, False
    for line in log.splitlines():
        m = re.search(r"nvlink\S*\"? .*-arch (sm_\d+a?)", line)
        if m:
            in_arch = m.group(1) == arch
            continue
        if not in_arch:
            continue
        m = re.match(r"nvlink info\s*: Function properties for '([^']+)':", line)
        if m:
            current = m.group(1)
            continue
        m = re.match(r"nvlink info\s*: used (\d+) registers, used \d+ barriers, (\d+) stack, "
                     r"(\d+) bytes smem", line)
        if m and current:
            out[current] = {"regs": (int(m.group(1)),), "stack": int(m.group(2)),
                            "shared": int(m.group(3)), "dyn": False}
            current = None
    return out


def amdgpu_resources(image):
    """{kernel: {...}} from the code object metadata note."""
    text = subprocess.run([READOBJ, "--notes", image], stdout=subprocess.PIPE, text=True,
                          check=True).stdout
    kernels, current = [], None
    for line in text.splitlines():
        if re.match(r"^  - \.", line):
            current = {}
            kernels.append(current)
            line = "    " + line[4:]
        elif not line.startswith("    ") or line.startswith("     "):
            if re.match(r"^\S", line):
                current = None
            continue
        m = re.match(r"^    \.(\w+):\s*(\S+)", line)
        if m and current is not None:
            current[m.group(1)] = m.group(2)
    out = {}
    for k in kernels:
        if "name" not in k or "sgpr_count" not in k:
            continue
        regs = (int(k["sgpr_count"]), int(k["vgpr_count"]))
        if int(k.get("agpr_count", "0")):
            regs += (int(k["agpr_count"]),)
        out[k["name"]] = {"regs": regs, "stack": int(k.get("private_segment_fixed_size", 0)),
                          "shared": int(k.get("group_segment_fixed_size", 0)),
                          "dyn": k.get("uses_dynamic_stack") == "true",
                          "spills": int(k.get("sgpr_spill_count", 0))
                          + int(k.get("vgpr_spill_count", 0))}
    return out


def ptxas_spills(log, arch):
    """{function: spill stores + spill loads in bytes} from ptxas -v in the
    link's log (every ptxas run for arch: one per partition)."""
    out, current, in_arch = {}, None, False
    for line in log.splitlines():
        m = re.search(r"ptxas\S*\"? .*--gpu-name (sm_\d+a?)", line)
        if m:
            in_arch = m.group(1) == arch
            continue
        if not in_arch:
            continue
        m = re.match(r"ptxas info\s*: Function properties for (\S+)", line)
        if m:
            current = m.group(1)
            continue
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and current:
            out[current] = out.get(current, 0) + int(m.group(1)) + int(m.group(2))
            current = None
    return out


def amdgpu_occupancy_eval(text, entry):
    """The waves per SIMD of a kernel-resource-usage remark's occupancy: a
    number, or (LLVM 22, whose resource counts are expressions until the
    object is written) occupancy(MaxWaves, Granule, TotalVGPRs, Generation,
    InitOccupancy, <sgprs>, <vgprs>) evaluated as LLVM's AMDGPUMCExpr does,
    with the counts of the code object metadata (entry["regs"])."""
    if text is None:
        return None
    if re.match(r"^\d+$", text):
        return int(text)
    m = re.match(r"occupancy\((\d+), (\d+), (\d+), (\d+), (\d+),", text)
    if not m or not entry or not entry.get("regs"):
        return None
    max_waves, granule, total, generation, occupancy = (int(g) for g in m.groups())
    # .vgpr_count counts the AGPRs too where they share the register file
    # (gfx90a and later: checked against clang 19's numeric remarks).
    sgprs, vgprs = entry["regs"][0], entry["regs"][1]
    if generation < 9:  # AMDGPUSubtarget::GFX10 (9): SGPRs no longer limit
        if generation >= 7:  # VOLCANIC_ISLANDS
            waves = 10 if sgprs <= 80 else 9 if sgprs <= 88 else 8 if sgprs <= 100 else 7
        else:
            waves = 10 if sgprs <= 48 else 9 if sgprs <= 56 else 8 if sgprs <= 64 else \
                7 if sgprs <= 72 else 6 if sgprs <= 80 else 5
        occupancy = min(occupancy, waves)
    vgprs = -(-max(1, vgprs) // granule) * granule
    return min(occupancy, max(total // vgprs, 1), max_waves)


def arch_remarks(log, arch):
    """The lines of the remarks the device LTO of arch printed (under "the
    device LTO for <triple> <arch> made N remarks:")."""
    in_arch = False
    for line in log.splitlines():
        m = re.search(r"note: the device LTO for \S+ (\S+) made \d+ remarks?:", line)
        if m:
            in_arch = m.group(1) == arch
        elif in_arch:
            yield line


def amdgpu_occupancy(log, arch):
    """{kernel: waves per SIMD} from arch's kernel-resource-usage remarks."""
    out = {}
    for line in arch_remarks(log, arch):
        m = re.match(r"(\S+): remark:\s+Occupancy \[waves/SIMD\]: (\d+|occupancy\(.*\)) "
                     r"\[-Rpass", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def link(args, tool, name, inputs, flags, mode, where, runtime=None, fatal=True, timeout=None):
    """Links inputs' device code in `where` with --device-lto=<mode> (None or
    "full": full LTO, named on the command line since partitioned LTO is the
    default).  Returns the log; on a failure exits, or with fatal=False
    returns None (the log is in <where>/link.log)."""
    shutil.rmtree(where, ignore_errors=True)
    os.makedirs(where)
    cmd = [tool, "--host-triple=x86_64-unknown-linux-gnu", "--cuda-path=" + CUDA,
           "--linker-path=/bin/true", "--save-temps", "--wrapper-verbose", "--no-cache",
           "--pass-remarks-analysis=kernel-resource-usage", "--device-lto=" + (mode or "full")]
    cmd += flags + inputs + (RUNTIME if runtime is None else runtime) + ["-o", "app"]
    env = dict(os.environ)
    env.pop("OFFLOAD_LINK_DEVICE_LTO", None)
    try:
        proc = subprocess.run(cmd, cwd=where, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, env=env, timeout=timeout)
        output, code = proc.stdout, proc.returncode
    except subprocess.TimeoutExpired as e:
        output = (e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes)
                  else e.stdout or "") + "\n(timed out after %d s)\n" % timeout
        code = -1
    with open(os.path.join(where, "link.log"), "w") as out:
        out.write(output)
    if code != 0:
        if not fatal:
            return None
        sys.exit("kernel_quality: %s: the %s link failed (exit %d), see %s/link.log:\n%s"
                 % (name, mode or "full LTO", code, where, output[-1500:]))
    return output


TRIPLES = {"sm": "nvptx64-nvidia-cuda", "gfx": "amdgcn-amd-amdhsa"}


def collect(where, log, archs):
    """{(arch, kernel): {"mode":, "regs":, "stack":, "shared":, "dyn":, "spills":,
    "occupancy":}}"""
    out = {}
    for arch in archs:
        triple = TRIPLES["sm" if arch.startswith("sm_") else "gfx"]
        if arch.startswith("sm_"):
            res, occupancy = nvlink_resources(log, arch), {}
            for kernel, spills in ptxas_spills(log, arch).items():
                if kernel in res:
                    res[kernel]["spills"] = spills
        else:
            image = os.path.join(where, "app.amdgcn.%s.img" % arch)
            res = amdgpu_resources(image) if os.path.exists(image) else {}
            occupancy = amdgpu_occupancy(log, arch)
        modes = kernel_modes(where, "app", triple, arch)
        for kernel in set(res) | set(modes):
            entry = dict(res.get(kernel, {"regs": None, "stack": None, "shared": None,
                                          "dyn": False}))
            entry.setdefault("spills", None)
            entry["mode"] = modes.get(kernel)
            entry["occupancy"] = amdgpu_occupancy_eval(occupancy.get(kernel), entry)
            out[(arch, kernel)] = entry
    return out


# --- the comparison ------------------------------------------------------

def close(a, b):
    """0: equal, 1: within the tolerance, 2: beyond it."""
    if a == b:
        return 0
    if a is None or b is None:
        return 2
    return 1 if abs(b - a) <= TOLERANCE * a else 2


def verdict(full, part):
    if full is None or part is None:
        return "DIFFERS", "missing from %s" % ("full LTO" if full is None else "partitioned")
    why = []
    if full["mode"] != part["mode"]:
        why.append("mode")
    worst = 0
    if full["regs"] is None or part["regs"] is None or len(full["regs"]) != len(part["regs"]):
        worst = 0 if full["regs"] == part["regs"] else 2
        if worst:
            why.append("registers")
    else:
        w = max(close(a, b) for a, b in zip(full["regs"], part["regs"]))
        if w == 2:
            why.append("registers")
        worst = max(worst, w)
    w = close(full["stack"], part["stack"])
    if full["dyn"] != part["dyn"]:
        w = 2
    if w == 2:
        why.append("stack")
    worst = max(worst, w)
    if why:
        return "DIFFERS", ", ".join(why)
    return ("same" if worst == 0 else "within 5%"), ""


def regs_text(e):
    if e is None or e["regs"] is None:
        return "-"
    return "/".join(str(r) for r in e["regs"])


def stack_text(e):
    if e is None or e["stack"] is None:
        return "-"
    return "%d%s" % (e["stack"], "+dyn" if e["dyn"] else "")


def shared_text(e):
    return "-" if e is None or e["shared"] is None else str(e["shared"])


def occupancy_text(e):
    return "-" if e is None or e["occupancy"] is None else str(e["occupancy"])


def short_kernel(name):
    m = re.match(r"__omp_offloading_[0-9a-f]+_[0-9a-f]+_(.+)$", name)
    return m.group(1) if m else name


def tool_of(build):
    tool = os.path.join(os.path.abspath(build), "bin", "offload-link")
    if not os.access(tool, os.X_OK):
        sys.exit("kernel_quality: no %s (build first)" % tool)
    return tool


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(REPO, "build"))
    parser.add_argument("--work", help="where objects and links go "
                        "(default: <build>/kernel-quality)")
    parser.add_argument("--archs", default="sm_90,gfx942")
    parser.add_argument("--partitions", default="partitioned,partitioned:1",
                        help="the --device-lto= values to compare with full LTO")
    parser.add_argument("--programs", default="gpu,e2e,heavy")
    parser.add_argument("--heavy-units", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2, help="parallel compiles")
    parser.add_argument("--output", help="markdown file (default: <work>/kernel-quality.md)")
    parser.add_argument("--baseline", help="a build whose full LTO is the reference "
                        "(\"full\" among --partitions: this build's)")
    args = parser.parse_args()

    tool = tool_of(args.build)
    reference_tool = tool_of(args.baseline) if args.baseline else tool
    work = os.path.abspath(args.work or os.path.join(args.build, "kernel-quality"))
    os.makedirs(work, exist_ok=True)
    archs = args.archs.split(",")
    modes = args.partitions.split(",")
    if any(a.startswith("sm_") for a in archs) and not os.access(
            os.path.join(CUDA, "bin", "nvlink"), os.X_OK):
        sys.exit("kernel_quality: no %s/bin/nvlink" % CUDA)

    rows, counts = [], {"kernels": 0, "same": 0, "within 5%": 0, "DIFFERS": 0, "shared": 0}
    occupancy = {"same": 0, "higher": 0, "lower": 0}
    per_program = []
    for name, inputs, flags in programs(args, archs, work):
        base = os.path.join(work, "links", re.sub(r"[^\w.-]+", "-", name))
        print("linking %s: full LTO" % name, flush=True)
        full_dir = os.path.join(base, "baseline-full" if args.baseline else "full")
        full = collect(full_dir, link(args, reference_tool, name, inputs, flags, None, full_dir),
                       archs)
        tally = {"kernels": 0, "same": 0, "within 5%": 0, "DIFFERS": 0}
        for mode in modes:
            print("linking %s: --device-lto=%s" % (name, mode), flush=True)
            part_dir = os.path.join(base, mode.replace(":", "-"))
            part = collect(part_dir, link(args, tool, name, inputs, flags,
                                          None if mode == "full" else mode, part_dir), archs)
            kernels = sorted(set(full) | set(part),
                             key=lambda k: (archs.index(k[0]), k[1]))
            shorts = [short_kernel(k) for _, k in kernels]
            for arch, kernel in kernels:
                a, b = full.get((arch, kernel)), part.get((arch, kernel))
                v, why = verdict(a, b)
                short = short_kernel(kernel)
                label = short if shorts.count(short) <= len(archs) else kernel
                shared_diff = (a and b and a["shared"] != b["shared"])
                rows.append((name, label, arch, mode,
                             "%s / %s" % (mode_text(a and a["mode"]), mode_text(b and b["mode"])),
                             "%s / %s" % (regs_text(a), regs_text(b)),
                             "%s / %s" % (stack_text(a), stack_text(b)),
                             "%s / %s" % (shared_text(a), shared_text(b)),
                             "%s / %s" % (occupancy_text(a), occupancy_text(b)),
                             v + (" (%s)" % why if why else "")))
                counts["kernels"] += 1
                counts[v] += 1
                counts["shared"] += bool(shared_diff)
                if a and b and a["occupancy"] is not None and b["occupancy"] is not None:
                    occupancy["same" if a["occupancy"] == b["occupancy"] else
                              "higher" if b["occupancy"] > a["occupancy"] else "lower"] += 1
                tally["kernels"] += 1
                tally[v] += 1
        per_program.append((name, tally))

    lines = ["| program | kernel | target | partitioned | mode full / part | regs full / part "
             "| stack full / part | shared full / part | occupancy full / part | verdict |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| " + " | ".join(r) + " |")
    summary = ("%d kernels (kernel x target x partitioned mode): %d same, %d within 5%% "
               "(%d same or within 5%%), %d differ; shared memory differs for %d; "
               "AMDGPU occupancy partitioned: %d the same, %d higher, %d lower"
               % (counts["kernels"], counts["same"], counts["within 5%"],
                  counts["same"] + counts["within 5%"], counts["DIFFERS"], counts["shared"],
                  occupancy["same"], occupancy["higher"], occupancy["lower"]))
    header = ("Registers: NVPTX as nvlink reports them; AMDGPU sgpr/vgpr(/agpr). Stack and "
              "shared memory in bytes. Occupancy: AMDGPU waves per SIMD as LLVM computes it "
              "(NVPTX: -). %s, %s, partitioned modes %s, %s."
              % (", ".join(archs), CLANG, ", ".join(modes), datetime.date.today().isoformat()))
    if args.baseline:
        header += (" Reference (\"full\" column): full LTO of %s; compared: %s's."
                   % (args.baseline, args.build))
    # The same table with the kernels of a program that got the same numbers
    # in one row (the heavy program's 100 kernels come in a few groups).
    groups = {}
    for r in rows:
        groups.setdefault((r[0],) + r[2:], []).append(r[1])
    grouped = ["| program | kernels | target | partitioned | mode full / part | regs full / part "
               "| stack full / part | shared full / part | occupancy full / part | verdict |",
               "|---|---|---|---|---|---|---|---|---|---|"]
    for key, names in groups.items():
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        grouped.append("| %s | %d: %s | %s |" % (key[0], len(names), shown, " | ".join(key[1:])))
    text = "\n".join([header, ""] + lines + ["", summary, "", "Grouped:", ""] + grouped
                      + [""])
    print("\n" + text)
    for name, t in per_program:
        print("  %s: %d kernels, %d same, %d within 5%%, %d differ"
              % (name, t["kernels"], t["same"], t["within 5%"], t["DIFFERS"]))
    output = args.output or os.path.join(work, "kernel-quality.md")
    with open(output, "w") as out:
        out.write(text)
    print("\nwritten to %s" % output)
    return 1 if counts["DIFFERS"] else 0


if __name__ == "__main__":
    sys.exit(main())
