#!/usr/bin/env python3
"""The differential option matrix (issue 16): every option of
clang-linker-wrapper 16, 19 and 22, with a typical value, on every shape of
input line, run through upstream's wrapper and through offload-link with
--dry-run; the host linker commands must be the same (temporary names made
equal), or the difference must be listed, with its reason, in docs/compat.md
under "Differences the option matrix accepts".

The options come from include/offload/options.def (the records of each
release); an upstream option without a typical value below fails the run, so
a record added there is tested here.  offload-link is run as clang runs it:
without --offload-abi, so it decides the release from the inputs and the line.

    option_matrix.py --offload-link build/bin/offload-link [--jobs 2]
                     [--releases 16,19,22] [--work DIR] [--omp16-lib DIR]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wrapper_runs  # noqa: E402

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPTIONS_DEF = os.path.join(SOURCE_DIR, "include", "offload", "options.def")
COMPAT_MD = os.path.join(SOURCE_DIR, "docs", "compat.md")
HEADING = "Differences the option matrix accepts"

HOST_TRIPLE = "x86_64-unknown-linux-gnu"
CPU_TARGET = "x86_64-unknown-linux-gnu"
LD = "/usr/bin/ld"
LLD_LINK = "/usr/lib/llvm-22/bin/lld-link"

# offload-link's own records: not upstream's, so not compared.
OWN_OPTIONS = {"offload_abi", "cache_dir", "no_cache", "cache_max_size", "remote_storage",
               "stats", "stats_eq", "quiet", "device_lto", "remarks_file",
               "device_lto_distributor", "device_lto_distributor_arg",
               "device_lto_remote_compiler", "device_lto_distributor_fallback",
               "device_link_memory"}

# A typical value for every upstream record: the words the option adds to the
# line ({fx}: the release's fixture directory).  Spelled with the record's
# first prefix; a record's other spellings are the same record.
TYPICAL = {
    "help": ["--help"],
    "help_hidden": ["--help-hidden"],
    "linker_path": ["--linker-path=" + LD],
    "cuda_path": ["--cuda-path=/usr/local/cuda"],
    "host_triple": ["--host-triple=" + HOST_TRIPLE],
    "opt_level": ["--opt-level=O3"],
    "bitcode_library": ["--bitcode-library=openmp-%s-generic={fx}/extra.bc" % CPU_TARGET],
    "builtin_bitcode": ["--builtin-bitcode=%s={fx}/extra.bc" % CPU_TARGET],
    "device_linker": ["--device-linker=-L{fx}"],
    "device_compiler": ["--device-compiler=%s=-O1" % CPU_TARGET],
    "clang_backend": ["--clang-backend"],
    "dry_run": ["--dry-run"],
    "wrapper_verbose": ["--wrapper-verbose"],
    "embed_bitcode": ["--embed-bitcode"],
    "device_debug": ["--device-debug"],
    "ptxas_arg": ["--ptxas-arg=-v"],
    "pass_remarks": ["--pass-remarks=inline"],
    "pass_remarks_missed": ["--pass-remarks-missed=inline"],
    "pass_remarks_analysis": ["--pass-remarks-analysis=inline"],
    "print_wrapped_module": ["--print-wrapped-module"],
    "save_temps": ["--save-temps"],
    "compress": ["--compress"],
    "compression_level": ["--compression-level=3"],
    "wrapper_time_trace": ["--wrapper-time-trace=trace.json"],
    "wrapper_time_trace_granularity": ["--wrapper-time-trace-granularity=100"],
    "wrapper_jobs": ["--wrapper-jobs=2"],
    "wrapper_jobs_16_19": ["--wrapper-jobs=2"],
    "override_image": ["--override-image=openmp={fx}/image.so"],
    "should_extract": ["--should-extract=sm_90"],
    "emit_fatbin_only": ["--emit-fatbin-only"],
    "arch": ["--arch=sm_90"],
    "triple": ["--triple=nvptx64-nvidia-cuda"],
    "whole_program": ["--whole-program"],
    "linker_arg": ["--linker-arg=-v"],
    "compiler_arg": ["--compiler-arg=-v"],
    "mllvm": ["-mllvm", "-pass-remarks=inline"],
    "mllvm_16": ["-mllvm", "-pass-remarks=inline"],
    "offload_opt": ["--offload-opt=-pass-remarks=inline"],
    "offload_opt_19": ["--offload-opt=-pass-remarks=inline"],
    "offload_opt_16": ["--offload-opt=-pass-remarks=inline"],
    "sysroot": ["--sysroot=/"],
    "sysroot_16": ["--sysroot=/"],
    "o": ["-o", "other"],
    "output_eq": ["--output=other"],
    "output": ["--output", "other"],
    "library_path": ["-L{fx}"],
    "library_path_sep": ["--library-path", "{fx}"],
    "library_path_eq": ["--library-path={fx}"],
    "library": ["-lextra"],
    "library_sep": ["--library", "{fx}"],
    "library_eq": ["--library={fx}"],
    "rpath": ["--rpath", "/opt/lib"],
    "rpath_eq": ["--rpath=/opt/lib"],
    "dynamic_linker": ["--dynamic-linker", "/lib64/ld-linux-x86-64.so.2"],
    "dynamic_linker_eq": ["--dynamic-linker=/lib64/ld-linux-x86-64.so.2"],
    "as_needed": ["--as-needed"],
    "no_as_needed": ["--no-as-needed"],
    "v": ["--v"],
    "version": ["--version"],
    "version_22": ["--version"],
    "v_22": ["-v"],
    "whole_archive": ["--whole-archive"],
    "no_whole_archive": ["--no-whole-archive"],
    "relocatable": ["--relocatable"],
    "r": ["-r"],
    "out": ["/out:other"],
    "libpath": ["/libpath:{fx}"],
    "wholearchive": ["/wholearchive:{fx}/libextra.a"],
    "separator": ["--"],
    "separator_19_22": ["--"],
}

RELEASE_BIT = {16: 1, 19: 2, 22: 4}


def read_records():
    """(id, versions mask, wrapper-only) of every OPTION(...) record in options.def."""
    text = open(OPTIONS_DEF, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    records = []
    for m in re.finditer(r"^OPTION\((\w+),(.*?)\)\s*$", text, flags=re.S | re.M):
        versions = re.findall(r"V(16|19|22)", m.group(2).rsplit(",", 2)[-2])
        mask = sum(RELEASE_BIT[int(v)] for v in versions)
        flags = m.group(2).split(",")[3]
        records.append((m.group(1), mask, "WRAPPER_ONLY" in flags))
    if len(records) < 50:
        raise SystemExit("%s: read only %d records" % (OPTIONS_DEF, len(records)))
    return records


# ---- fixtures -------------------------------------------------------------------

def sh(argv, cwd):
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode:
        raise SystemExit("fixture command failed: %s\n%s" % (" ".join(argv),
                                                             p.stdout.decode(errors="replace")))


OMP_MAIN = ("int main(void) {\n  int x = 0;\n#pragma omp target map(tofrom: x)\n  x = 1;\n"
            "  return !x;\n}\n")
OMP_LIB = ("int lib_run(void) {\n  int x = 0;\n#pragma omp target map(tofrom: x)\n  x = 2;\n"
           "  return x;\n}\n")
CALLS_LIB = "int lib_run(void);\nint main(void) { return lib_run() != 2; }\n"
PLAIN_MAIN = "int main(void) { return 0; }\n"


def build_fixtures(release, fx):
    """The inputs of every shape for one release, in fx (made once)."""
    stamp = os.path.join(fx, "done")
    if os.path.exists(stamp):
        return
    shutil.rmtree(fx, ignore_errors=True)
    os.makedirs(fx)
    clang = "clang-%d" % release
    offload = ["-fopenmp", "-fopenmp-targets=" + CPU_TARGET]
    if release == 16:
        offload.append("--offload-new-driver")
    for name, text in (("omp.c", OMP_MAIN), ("lib.c", OMP_LIB), ("calls.c", CALLS_LIB),
                       ("plain.c", PLAIN_MAIN)):
        with open(os.path.join(fx, name), "w") as f:
            f.write(text)
    sh(["gcc", "-c", "plain.c", "-o", "gcc-host.o"], fx)
    sh([clang] + offload + ["-c", "omp.c", "-o", "omp.o"], fx)
    sh([clang] + offload + ["-fPIC", "-c", "omp.c", "-o", "omp-pic.o"], fx)
    sh([clang] + offload + ["-flto", "-c", "omp.c", "-o", "omp-lto.o"], fx)
    sh([clang] + offload + ["-c", "lib.c", "-o", "lib.o"], fx)
    sh(["ar", "rcs", "libdev.a", "lib.o"], fx)
    sh([clang, "-c", "calls.c", "-o", "calls.o"], fx)
    sh(["gcc", "-c", "plain.c", "-o", "extra.o"], fx)
    sh(["ar", "rcs", "libextra.a", "extra.o"], fx)
    sh([clang, "--target=" + CPU_TARGET, "-c", "-emit-llvm", "plain.c", "-o", "extra.bc"], fx)
    sh([clang, "-shared", "-fPIC", "-nostdlib", "plain.c", "-o", "image.so"], fx)
    if release >= 19:
        # A Windows host object with NVPTX device code (COFF, lld-link).
        sh([clang, "--target=x86_64-pc-windows-msvc", "-fopenmp",
            "-fopenmp-targets=nvptx64-nvidia-cuda", "-Xopenmp-target=nvptx64-nvidia-cuda",
            "-march=sm_80", "--offload-new-driver", "-nocudalib",
            "--cuda-path=/usr/local/cuda", "-c", "omp.c", "-o", "omp-coff.obj"], fx)
    open(stamp, "w").close()


def device_runtime(release, omp16_lib):
    """The words clang N writes for the OpenMP device runtime."""
    if release == 16:
        return ["-L" + omp16_lib, "-lomptarget.devicertl"]
    if release == 19:
        return ["-L/usr/lib/llvm-19/lib", "-lomptarget.devicertl"]
    return ["--device-linker=nvptx64-nvidia-cuda=-lompdevice"]


def shapes(release, fx, omp16_lib):
    """name -> (host triple, linker path, input words)."""
    out = {
        "no-device-code": (HOST_TRIPLE, LD, [fx + "/gcc-host.o"]),
        "device-code": (HOST_TRIPLE, LD, [fx + "/omp.o"]),
        "device-code-in-library": (HOST_TRIPLE, LD, [fx + "/calls.o", fx + "/libdev.a"]),
        "device-runtime-only": (HOST_TRIPLE, LD, [fx + "/gcc-host.o"] +
                                device_runtime(release, omp16_lib)),
        "relocatable": (HOST_TRIPLE, LD, ["-r", fx + "/omp.o"]),
        "shared": (HOST_TRIPLE, LD, ["-shared", fx + "/omp-pic.o"]),
        "host-lto": (HOST_TRIPLE, LD, [fx + "/omp-lto.o"]),
    }
    if release >= 19:
        out["coff"] = ("x86_64-pc-windows-msvc", LLD_LINK,
                       [fx + "/omp-coff.obj", "-dll", "-noentry"])
    return out


# ---- the matrix ---------------------------------------------------------------------

def cases(releases, records, work, omp16_lib):
    """The compared cases, and the foreign ones: an option only other
    releases' wrappers keep for themselves, on release N's line, which
    offload-link must not forward (upstream N would; no release's driver
    writes such a line, but a mixed build can)."""
    missing = [r[0] for r in records if r[0] not in OWN_OPTIONS and r[0] not in TYPICAL]
    if missing:
        raise SystemExit("option_matrix.py: no typical value for %s (add it to TYPICAL)"
                         % ", ".join(missing))
    compared, foreign = [], []
    for release in releases:
        fx = os.path.join(work, "fixtures-%d" % release)
        bit = RELEASE_BIT[release]
        known = {TYPICAL[r[0]][0].split("=")[0] for r in records
                 if r[0] in TYPICAL and r[1] & bit}
        for shape, (triple, linker, inputs) in shapes(release, fx, omp16_lib).items():
            for rid, mask, wrapper_only in records:
                if rid in OWN_OPTIONS:
                    continue
                words = [w.replace("{fx}", fx) for w in TYPICAL[rid]]
                case = (release, shape, rid, triple, linker, inputs, words)
                if mask & bit:
                    compared.append(case)
                elif wrapper_only and words[0].split("=")[0] not in known:
                    foreign.append(case)
    return compared, foreign


def line_for(release, triple, linker, inputs, words):
    """What clang N's driver would write, with the option after the inputs."""
    line = ["--dry-run", "--host-triple=" + triple, "--linker-path=" + linker]
    if release == 16:
        line.append("--")
    out = "/out:out.dll" if triple.endswith("msvc") else None
    line += inputs + ([out] if out else ["-o", "out"]) + words
    return line


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--offload-link", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--releases", default="16,19,22")
    ap.add_argument("--work", default=None, help="fixtures and runs (default: ./option-matrix)")
    ap.add_argument("--omp16-lib", default=None,
                    help="clang 16's OpenMP runtime directory (libomptarget.devicertl.a)")
    ap.add_argument("--only", default=None, help="run only cases whose 'release shape option' "
                    "contains this text")
    args = ap.parse_args()
    started = time.time()
    work = os.path.abspath(args.work or "option-matrix")
    releases = [int(r) for r in args.releases.split(",")]
    omp16_lib = args.omp16_lib or "/usr/lib/llvm-16/lib"
    records = read_records()
    for release in releases:
        upstream = "/usr/lib/llvm-%d/bin/clang-linker-wrapper" % release
        if not os.access(upstream, os.X_OK):
            raise SystemExit("option_matrix.py: %s is missing (package clang-tools-%d)"
                             % (upstream, release))
        build_fixtures(release, os.path.join(work, "fixtures-%d" % release))
    todo, foreign = cases(releases, records, work, omp16_lib)
    if args.only:
        todo = [c for c in todo if args.only in "%d %s %s" % c[:3]]
        foreign = [c for c in foreign if args.only in "%d %s %s" % c[:3]]
    runs_dir = os.path.join(work, "runs")
    shutil.rmtree(runs_dir, ignore_errors=True)

    env = dict(os.environ)
    env["OFFLOAD_LINK_NO_CACHE"] = "1"

    def one(case):
        release, shape, rid, triple, linker, inputs, words = case
        line = line_for(release, triple, linker, inputs, words)
        base = os.path.join(runs_dir, "%d" % release, shape, rid)
        results = []
        for who, program in (("upstream", "/usr/lib/llvm-%d/bin/clang-linker-wrapper" % release),
                             ("offload-link", args.offload_link)):
            cwd = os.path.join(base, who)
            os.makedirs(cwd)
            results.append(wrapper_runs.run_wrapper([program] + line, cwd, linker, env))
        return results

    def ours_only(case):
        release, shape, rid, triple, linker, inputs, words = case
        cwd = os.path.join(runs_dir, "%d" % release, shape, "foreign-" + rid)
        os.makedirs(cwd)
        return wrapper_runs.run_wrapper([args.offload_link] + line_for(release, triple, linker,
                                                                        inputs, words),
                                        cwd, linker, env)

    leaked = []
    for case, ours in zip(foreign, wrapper_runs.run_all(args.jobs, ours_only, foreign)):
        if any(w in line.split(" ") for line in ours.host_lines for w in case[6]):
            leaked.append(case)
            print("FORWARDED %d %s: %s reached the host linker: %s" % (
                case[0], case[1], " ".join(case[6]), ours.describe()))
    print("option matrix: %d lines with another release's wrapper option, %d forwarded"
          % (len(foreign), len(leaked)))

    results = wrapper_runs.run_all(args.jobs, one, todo)
    rows = wrapper_runs.read_accepted(COMPAT_MD, HEADING)
    differences = []
    for case, (theirs, ours) in zip(todo, results):
        if theirs.same_as(ours):
            continue
        release, shape, rid = case[:3]
        name = "%d %s %s: %s" % (release, shape, rid, " ".join(case[6]))
        differences.append((name, wrapper_runs.find_accepted(rows, release, shape, rid), ours,
                            theirs))
    # An entry no case of this run could show (--only, --releases) is not
    # judged stale.
    rows = [r for r in rows if r.used or any(r.matches(*case[:3]) for case in todo)]
    status = wrapper_runs.report("option matrix", len(todo), differences, rows, started)
    status = status or (1 if leaked else 0)
    if status == 0:
        shutil.rmtree(runs_dir, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
