#!/usr/bin/env python3
"""Takes bench/scale.py's links to a bigger machine that has no compiler.

  bench/scale_pack.py pack DIR [--steps 100,1000,3000] [--archs gfx942] [--kinds openmp]
  bench/scale_pack.py replay DIR [--lib-dir DIRS] [--variants partitioned,full] [--full-up-to 100]
                      [--machine "16-core machine"] [--results F] [--stats-dir D]
  bench/scale_pack.py report RESULTS.json...

pack (on the build machine, with clang) generates and compiles each step as
scale.py does, then writes into DIR one tarball per step (its objects, the
object of the unit whose kernel the relink edits and a host-edited main.o,
both compiled here, the device libraries it names, and the link's arguments
with every path made relative to the pack), and tools.tar.xz (offload-link,
its LLVM plugin and ld.lld).  replay (on the other machine: python3, and
CUDA's ptxas and nvlink for sm_XX steps) unpacks them and times what
scale.py times: the cold link, the relink after the kernel edit, the relink
after the host-only edit, each variant in turn, nothing else running.

What differs from scale.py on purpose: the host link is a stand-in that only
writes the output (the other machine lacks this one's crt files and host
libraries; GNU ld's share is measured by scale.py), so the comparable number
is the device stage (--stats=json's "Link device images"), recorded beside
the wall time, and the stats of each cold link go to --stats-dir, for
bench/estimate_cores.py.  report prints the replays' records of one or more
machines as one Markdown table.  --lib-dir names where libLLVM and what it loads
are found when the machine has none (a folder of those libraries).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import estimate_cores  # noqa: E402
import run  # noqa: E402
import scale  # noqa: E402

PACK = "@PACK@"       # the unpacked step, in a packed argument
CUDA = "@CUDA@"       # the machine's CUDA
DEVICE_LIBRARIES = ("omptarget.devicertl",)
# Host-link options whose value is the next argument (dropped with it when
# the value is a path of this machine).
VALUE_OPTIONS = ("-dynamic-linker", "-m", "-o")
HOST_LD = """#!/bin/sh
# The host link's stand-in: writes the output, links nothing.
while [ $# -gt 0 ]; do
	case $1 in -o) out=$2; shift ;; -o*) out=${1#-o} ;; esac
	shift
done
[ -n "$out" ] && : > "$out"
"""


def library_path(name, dirs):
    for d in dirs:
        path = os.path.join(d, "lib%s.a" % name)
        if os.path.exists(path):
            return path
    sys.exit("scale_pack.py: no lib%s.a in %s" % (name, " ".join(dirs)))


def packed_arguments(wrapper_args, objdir, stage):
    """The link's arguments with the pack's paths, the host's libraries and
    start files left out, the device libraries copied into stage."""
    dirs = [a[2:] for a in wrapper_args if a.startswith("-L")]
    out, skip_next = [], False
    for i, a in enumerate(wrapper_args):
        if skip_next:
            skip_next = False
            continue
        if a in VALUE_OPTIONS and i + 1 < len(wrapper_args):
            value = wrapper_args[i + 1]
            skip_next = True
            if a == "-o":
                out += ["-o", PACK + "/app"]
            elif not value.startswith("/"):
                out += [a, value]
            continue
        if a.startswith("--linker-path="):
            out.append("--linker-path=" + PACK + "/host-ld")
        elif a.startswith("--cuda-path="):
            out.append("--cuda-path=" + CUDA)
        elif a.startswith("-L"):
            continue
        elif a.startswith("-l"):
            if a[2:] in DEVICE_LIBRARIES:
                path = library_path(a[2:], dirs)
                shutil.copy(path, os.path.join(stage, os.path.basename(path)))
                out.append(PACK + "/" + os.path.basename(path))
        elif a.startswith(objdir + "/"):
            out.append(PACK + "/" + os.path.basename(a))
        elif a.startswith("/"):
            continue                  # crt files and the like: the host link's
        else:
            out.append(a)
    return out


def pack_step(args, kind, units, dest):
    objdir, objects, driver, tail, edit, host_edit = scale.program(args, kind, units)
    wrapper = [c for c in run.driver_commands(driver + objects + tail + ["-o", objdir + "/app"])
               if os.path.basename(c[0]) == "clang-linker-wrapper"][-1]
    name = "%s-%d-%s" % (kind, units, "-".join(args.archs))
    with tempfile.TemporaryDirectory() as stage:
        argv = packed_arguments(wrapper[1:], objdir, stage)
        for obj in objects:
            shutil.copy(obj, stage)
        # The edited objects, compiled here; the originals restored byte for byte.
        kernel_source, old, new, kernel_compile = edit
        host_source, host_compile = host_edit
        for sub, source, compile_cmd in (("edit-kernel", kernel_source, kernel_compile),
                                         ("edit-host", host_source, host_compile)):
            obj = compile_cmd[compile_cmd.index("-o") + 1]
            with open(source) as f:
                text = f.read()
            if sub == "edit-kernel" and old not in text:
                sys.exit("scale_pack.py: %s has no %r to edit" % (source, old))
            edited = text.replace(old, new, 1) if sub == "edit-kernel" else \
                text + "\nint ol_scale_host_edit = 1;\n"
            saved = obj + ".saved"
            shutil.copy(obj, saved)
            try:
                with open(source, "w") as f:
                    f.write(edited)
                subprocess.run(compile_cmd, check=True, cwd=objdir)
                os.makedirs(os.path.join(stage, sub))
                shutil.copy(obj, os.path.join(stage, sub))
            finally:
                with open(source, "w") as f:
                    f.write(text)
                os.replace(saved, obj)
        with open(os.path.join(stage, "host-ld"), "w") as f:
            f.write(HOST_LD)
        os.chmod(os.path.join(stage, "host-ld"), 0o755)
        with open(os.path.join(stage, "step.json"), "w") as f:
            json.dump({"kind": kind, "units": units, "archs": args.archs, "argv": argv}, f)
        with tarfile.open(os.path.join(dest, name + ".tar.xz"), "w:xz") as tar:
            tar.add(stage, arcname=name)
    print("scale_pack.py: %s packed" % name, flush=True)


def pack(args):
    os.makedirs(args.dir, exist_ok=True)
    build = os.path.abspath(args.build)
    lld = shutil.which("ld.lld-22") or "/usr/lib/llvm-22/bin/ld.lld"
    with tarfile.open(os.path.join(args.dir, "tools.tar.xz"), "w:xz") as tar:
        tar.add(os.path.join(build, "bin", "offload-link"), arcname="tools/bin/offload-link")
        tar.add(os.path.realpath(lld), arcname="tools/bin/ld.lld")
        tar.add(os.path.join(build, "lib", "offload-link", "offload-link-llvm.so"),
                arcname="tools/lib/offload-link/offload-link-llvm.so")
    for units in [int(s) for s in args.steps.split(",")]:
        for kind in args.kinds.split(","):
            pack_step(args, kind, units, args.dir)


def read_stats(stats_text):
    """The --stats=json line of a link's messages, or None."""
    for line in reversed(stats_text.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return None


def cuda_path():
    for d in ("/usr/local/cuda", "/usr/local/cuda-13.0"):
        if os.path.exists(os.path.join(d, "bin", "ptxas")):
            return d
    ptxas = shutil.which("ptxas")
    return os.path.dirname(os.path.dirname(ptxas)) if ptxas else "/usr/local/cuda"


def replay(args):
    work = tempfile.mkdtemp(prefix="scale-replay-")
    with tarfile.open(os.path.join(args.dir, "tools.tar.xz")) as tar:
        tar.extractall(work)
    tool = os.path.join(work, "tools", "bin", "offload-link")
    if args.lib_dir:
        os.environ["LD_LIBRARY_PATH"] = args.lib_dir + (
            ":" + os.environ["LD_LIBRARY_PATH"] if os.environ.get("LD_LIBRARY_PATH") else "")
    records = scale.load(args.results)
    if args.stats_dir:
        os.makedirs(args.stats_dir, exist_ok=True)
    steps = sorted((f for f in os.listdir(args.dir) if f.endswith(".tar.xz") and f != "tools.tar.xz"),
                   key=lambda f: (f.split("-")[0], int(f.split("-")[1])))
    for packed in steps:
        with tarfile.open(os.path.join(args.dir, packed)) as tar:
            tar.extractall(work)
        name = packed[:-len(".tar.xz")]
        stepdir = os.path.join(work, name)
        with open(os.path.join(stepdir, "step.json")) as f:
            step = json.load(f)
        argv = [a.replace(PACK, stepdir).replace(CUDA, cuda_path()) for a in step["argv"]]
        for variant in args.variants:
            if variant == "full" and step["units"] > args.full_up_to:
                continue
            cache = os.path.join(work, "cache")
            shutil.rmtree(cache, ignore_errors=True)
            extra = ["--device-lto=full", "--no-cache"] if variant == "full" else \
                ["--cache-dir=" + cache]
            cmd = [tool] + extra + ["--stats=json"] + argv
            print("%s, %s: cold ..." % (name, variant), flush=True)
            wall, cpu, rss, why = scale.measure(cmd, stepdir, args.timeout)
            with open(os.path.join(stepdir, "link.err"), errors="replace") as f:
                stats_text = f.read()
            stats = read_stats(stats_text)
            device_ms = estimate_cores.device_stage_ms(stats) if stats else 0
            if args.stats_dir and stats:
                with open(os.path.join(args.stats_dir, "%s.%s.json" % (name, variant)), "w") as f:
                    f.write(json.dumps(stats) + "\n")
            rec = {"machine": args.machine, "kind": step["kind"], "units": step["units"],
                   "variant": variant, "archs": step["archs"], "cold_s": wall, "cpu_s": cpu,
                   "peak_mib": rss, "why": why, "device_stage_s": (device_ms or 0) / 1e3,
                   "host_link": "stand-in"}
            if variant == "partitioned" and not why:
                for sub, key in (("edit-kernel", "relink_kernel_s"), ("edit-host", "relink_host_s")):
                    (edited,) = os.listdir(os.path.join(stepdir, sub))
                    original = os.path.join(stepdir, edited)
                    shutil.copy(original, original + ".orig")
                    shutil.copy(os.path.join(stepdir, sub, edited), original)
                    rec[key] = scale.measure(cmd, stepdir, args.timeout)[0]
                    os.replace(original + ".orig", original)
            print("  %.1f s (device stage %.1f s), %.1f s CPU, %.0f MiB%s%s" % (
                wall, rec["device_stage_s"], cpu, rss,
                "".join(", %s %.1f s" % (k, rec[k]) for k in ("relink_kernel_s", "relink_host_s")
                        if k in rec),
                (", " + why[:300]) if why else ""), flush=True)
            records = [r for r in records if scale.key_of(r) != scale.key_of(rec)] + [rec]
            with open(args.results, "w") as f:
                json.dump(records, f, indent=1)
        shutil.rmtree(stepdir)
    shutil.rmtree(work)


def report(paths):
    records = [r for p in paths for r in scale.load(p)]
    print("| units | kind | variant | machine | cold | of which the device stage | CPU | peak memory "
          "| relink, one kernel | relink, host only |")
    print("|---:|---|---|---|---:|---:|---:|---:|---:|---:|")
    for r in sorted(records, key=lambda r: (scale.kind_of(r), r["units"],
                                            scale.VARIANTS.index(r["variant"]), r["machine"])):
        cold = "%.1f s" % r["cold_s"] if not r["why"] else "failed"
        print("| %d | %s | %s | %s | %s | %.1f s | %.1f s | %.0f MiB | %s | %s |" % (
            r["units"], scale.kind_of(r), r["variant"], r["machine"], cold, r["device_stage_s"],
            r["cpu_s"], r["peak_mib"],
            ("%.1f s" % r["relink_kernel_s"]) if "relink_kernel_s" in r else "",
            ("%.1f s" % r["relink_host_s"]) if "relink_host_s" in r else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("pack", "replay", "report"))
    ap.add_argument("dir", nargs="+", help="the pack (pack, replay) or the results (report)")
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--work", default="/tmp/ol-bench-scale")
    ap.add_argument("--steps", default="100,1000,3000")
    ap.add_argument("--archs", default="gfx942")
    ap.add_argument("--kinds", default="openmp")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="compile jobs")
    ap.add_argument("--variants", default="partitioned")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--full-up-to", type=int, default=100,
                    help="full LTO only for steps of at most this many units (its time grows far "
                    "faster than the program's)")
    ap.add_argument("--machine", default="%d-core machine" % (os.cpu_count() or 1))
    ap.add_argument("--results", default="scale-replay.json")
    ap.add_argument("--stats-dir")
    ap.add_argument("--lib-dir")
    args = ap.parse_args()
    args.archs = args.archs.split(",")
    args.variants = args.variants.split(",")
    if args.command == "report":
        return report(args.dir)
    if len(args.dir) != 1:
        ap.error("pack and replay take one folder")
    args.dir = args.dir[0]
    if args.command == "pack":
        pack(args)
    else:
        replay(args)


if __name__ == "__main__":
    sys.exit(main())
