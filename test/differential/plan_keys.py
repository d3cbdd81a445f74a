#!/usr/bin/env python3
"""Plan keys against real programs (docs/design/partitioned-lto.md, "The plan
key"): for each program bench/hecbench_kernels.py compiled (its --work
directory: <suite>/<program>/obj/*.o and result.json), four links:

  1. its objects, cold, into a fresh cache (the plans are written);
  2. the objects and an extra unit, OFFLOAD_LINK_CHECK_PLANS=1: every
     partition is cut, and one whose plan the cache knew must have the
     product its plan named;
  3. the objects and another extra unit, with the cache: the partitions the
     plans know are not cut;
  4. the same without the cache;

and the registration objects (the images) of 3 and 4 must be byte for byte
the same.  A line per program in --out; the summary on stdout.

    test/differential/plan_keys.py --corpus build/hecbench-kernels [--flags=--device-lto=partitioned:1]
                                   [--step 2 --offset 0] [--tool build/bin/offload-link]
"""
import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile

RUNTIME = {"omp19": ["-L/usr/lib/llvm-19/lib", "-lomptarget.devicertl"],
           "omp22": ["-L/usr/lib/llvm-22/lib", "-lomptarget.devicertl"], "hip22": []}
EXTRA = {
    "omp": ("c", "#pragma omp declare target\nint ol_plan_extra(int x) { return x * %d + 1; }\n"
                 "#pragma omp end declare target\n"),
    "hip": ("hip", "#include <hip/hip_runtime.h>\n"
                   "__device__ int ol_plan_extra(int x) { return x * %d + 1; }\n"),
}
# Keeps the registration objects offload-link hands the host linker.
FAKE_LD = """#!/bin/sh
for a in "$@"; do case "$a" in *wrapper*.o) cp "$a" "$PLAN_OUT/$(basename "$a" | sed 's/-[A-Za-z0-9]*\\.o$/.o/')";; esac; done
exit 0
"""


def compile_extras(work, suite, device_libs):
    """Two extra units for the suite's targets, differing in one constant."""
    kind = "omp" if suite.startswith("omp") else "hip"
    ext, text = EXTRA[kind]
    out = []
    for k in (3, 5):
        src = os.path.join(work, "extra%d.%s" % (k, ext))
        with open(src, "w") as f:
            f.write(text % k)
        obj = src + ".o"
        if kind == "omp":
            llvm = suite[3:]
            cmd = ["clang-" + llvm, "-O3", "-w", "-fopenmp", "--offload-arch=sm_90,gfx942",
                   "-foffload-lto", "--cuda-path=/usr/local/cuda",
                   "--rocm-device-lib-path=" + device_libs % llvm]
        else:
            cmd = ["clang++-22", "-O3", "-w", "-x", "hip", "--offload-new-driver", "-fgpu-rdc",
                   "--offload-arch=gfx90a,gfx942", "-mcode-object-version=5", "--rocm-path=/usr",
                   "--rocm-device-lib-path=" + device_libs % "22", "-D__AMDGCN_WAVEFRONT_SIZE=64"]
        subprocess.run(cmd + ["-c", src, "-o", obj], check=True)
        out.append(obj)
    return out


def link(args, objs, suite, cache, outdir, fake_ld, check=False, stats=False):
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    cmd = [args.tool, "--host-triple=x86_64-unknown-linux-gnu", "--cuda-path=/usr/local/cuda",
           "--linker-path=" + fake_ld, "--opt-level=O3"]
    cmd += ["--cache-dir=" + cache] if cache else ["--no-cache"]
    cmd += (["--stats=json"] if stats else []) + args.flags.split()
    cmd += objs + RUNTIME[suite] + ["-o", "app"]
    env = dict(os.environ, PLAN_OUT=outdir)
    env.pop("OFFLOAD_LINK_DEVICE_LTO", None)
    env.pop("OFFLOAD_LINK_NO_CACHE", None)
    if check:
        env["OFFLOAD_LINK_CHECK_PLANS"] = "1"
    p = subprocess.run(cmd, cwd=outdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env, timeout=args.timeout)
    return p.returncode, p.stdout


def partitions(text):
    """(partitions, of them not cut) from --stats=json."""
    n = not_cut = 0
    for line in text.splitlines():
        if not line.startswith("{"):
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        for image in record.get("device_images", []):
            parts = image.get("partitioned")
            if parts:
                n += parts.get("partitions", 0)
                not_cut += parts.get("not_cut", 0)
    return n, not_cut


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--tool", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "..", "..", "build", "bin", "offload-link"))
    ap.add_argument("--flags", default="--device-lto=partitioned:1")
    ap.add_argument("--step", type=int, default=1)
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--out", default="plan-keys.txt")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="ol-plan-keys-")
    fake_ld = os.path.join(work, "ld.sh")
    with open(fake_ld, "w") as f:
        f.write(FAKE_LD)
    os.chmod(fake_ld, 0o755)
    device_libs = os.path.join(args.corpus, "rocm-device-libs-%s")
    totals = {"programs": 0, "failed": 0, "mismatched": 0, "differ": 0, "partitions": 0,
              "not_cut": 0}
    with open(args.out, "a") as out:
        for suite in sorted(RUNTIME):
            sdir = os.path.join(args.corpus, suite)
            if not os.path.isdir(sdir):
                continue
            extras = compile_extras(work, suite, device_libs)
            for k, name in enumerate(sorted(os.listdir(sdir))):
                if k % args.step != args.offset:
                    continue
                pdir = os.path.join(sdir, name)
                try:
                    with open(os.path.join(pdir, "result.json")) as f:
                        if json.load(f).get("status") != "compared":
                            continue
                except (OSError, ValueError):
                    continue
                objs = sorted(os.path.join(pdir, "obj", o) for o in os.listdir(os.path.join(pdir, "obj")))
                cache = os.path.join(work, "cache")
                shutil.rmtree(cache, ignore_errors=True)
                rc = [link(args, objs, suite, cache, os.path.join(work, "a"), fake_ld)[0]]
                r, checked = link(args, objs + extras[:1], suite, cache, os.path.join(work, "b"),
                                  fake_ld, check=True)
                rc.append(r)
                r, planned = link(args, objs + extras[1:], suite, cache, os.path.join(work, "c"),
                                  fake_ld, stats=True)
                rc.append(r)
                rc.append(link(args, objs + extras[1:], suite, None, os.path.join(work, "d"),
                               fake_ld)[0])
                files = sorted(os.listdir(os.path.join(work, "d")))
                same = bool(files) and all(
                    filecmp.cmp(os.path.join(work, "c", f), os.path.join(work, "d", f), shallow=False)
                    for f in files if os.path.exists(os.path.join(work, "c", f))) and \
                    all(os.path.exists(os.path.join(work, "c", f)) for f in files)
                mismatch = "plan key names" in checked
                n, not_cut = partitions(planned)
                totals["programs"] += 1
                totals["failed"] += any(rc)
                totals["mismatched"] += mismatch
                totals["differ"] += not same and not any(rc)
                totals["partitions"] += n
                totals["not_cut"] += not_cut
                print("%s %s links %s partitions %d not_cut %d same %s mismatch %s"
                      % (suite, name, rc, n, not_cut, same, mismatch), file=out, flush=True)
    shutil.rmtree(work, ignore_errors=True)
    print("plan_keys: %(programs)d programs, %(failed)d with a failed link, %(mismatched)d with "
          "a plan that named another product, %(differ)d whose planned relink differs from a "
          "link without the cache; %(partitions)d partitions, %(not_cut)d not cut" % totals)
    return 1 if totals["failed"] or totals["mismatched"] or totals["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
