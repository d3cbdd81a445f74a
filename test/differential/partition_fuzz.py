#!/usr/bin/env python3
"""Differential fuzzer of partitioned device LTO (docs/design/partitioned-lto.md): random multi-unit OpenMP offloading programs, linked through
offload-link with full device LTO (the default, the reference) and with
--device-lto=partitioned:1, partitioned:2 and partitioned, run on
libomptarget 19's CPU device; every program must print the same and exit the
same way in every mode.

    partition_fuzz.py --quick                      the fixed seeds ctest runs
    partition_fuzz.py --seeds 0..499 --jobs 2      seeds 0 to 499, both included
    partition_fuzz.py --seed-start 1000 --count 2000
    partition_fuzz.py --emit DIR --seeds 42        write seed 42's sources and repro.sh
    partition_fuzz.py --target sm_90,gfx942 --count 2000 --jobs 1
                                                   GPU targets: linked, verified, kernels compared
    partition_fuzz.py --target sm_90 --stage-gpu DIR --seeds 0..39
                                                   programs for scripts/gpu-check.sh run

GPU targets (docs/usage.md, "The partitioned-LTO fuzzer"): nothing runs; a
finding is a failed link, a partition optimized whole or rejected by LLVM's
verifier, or a kernel whose mode or resource class is worse than full LTO's.
--gpu-features (on with GPU targets) adds team shared memory, a global
object's virtual calls, an alias of a static function and printf in kernels,
after the seed's base program, which stays as it was.

A program is 2 to 8 units, C, C++ or both, compiled with clang-19 -fopenmp
-fopenmp-targets=x86_64-unknown-linux-gnu -foffload-lto at one of -O0..-O3
(sometimes a different level per unit, sometimes -g), some units put into a
static archive.  Each feature it uses is defined in one unit and used by a
kernel of another: static and global tables of pointers (to strings, to
functions, to data, records of the three) read with constant and variable
indices, function pointers and their equality, device globals that one unit's
kernel writes and another's reads, static locals (also in inline functions
and templates), C++ templates, virtual calls, classes with out-of-line
constructors and destructors, global constructors, declare target indirect
calls, atomics, and kernels with reductions.  Device code is deterministic:
unsigned arithmetic, bounded indices, no races but atomics and reductions.
The program is a pure function of its seed (random.Random(seed)), so a finding
is reproduced from its seed alone.

A finding is a mode whose link fails where full LTO's succeeds, or whose
program's output or exit status differs from full LTO's: the program's
sources, a repro.sh and both outputs are kept under <work>/findings/seed-<N>
with one line in <work>/findings/README, and the exit status is 1.  A program
that does not build or run with full LTO is the generator's fault ("invalid",
also kept, also exit status 1).  The last line is the summary:
"N programs, M links, K differences".  Each program is also built for
the host alone (-O0, no offloading target: its target regions run on the
host), which says what it must print: where full LTO (the reference) prints
otherwise and every partitioned mode that differs from it prints the host's
lines (line by line: where a mode differs from full LTO it must print the
host's line), the device code is wrong before the partitions are made,
which is kept as FULL-LTO-WRONG and counted apart, not as a difference.
What it was: LLVM's Attributor folding table reads in the device LTO, which
offload-link now prevents (docs/design/table-guard.md);
what is left is clang 19's own compile of a unit under -g, whose
bitcode already calls the wrong entry of a function table (every mode, and
upstream's wrapper, print the same).  Each FULL-LTO-WRONG program is built
once more with -mllvm -openmp-opt-disable on every compile (the link
unchanged, full LTO): the finding says whether that build prints the host's
output (the compile got it wrong) or not (the link did), and the summary
counts both.  Exit status 77 (ctest's
SKIP_RETURN_CODE) when clang-19 or libomptarget 19 is not installed.
"""

import argparse
import os
import random
import re
import shlex
import shutil
import string
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET = "x86_64-unknown-linux-gnu"
OMP_LIBDIR = "/usr/lib/llvm-19/lib"
MODES = ["full", "partitioned:1", "partitioned:2", "partitioned"]
GPU_MODES = ["full", "partitioned", "partitioned:1"]
GPU_TRIPLES = {"sm": "nvptx64-nvidia-cuda", "gfx": "amdgcn-amd-amdhsa"}
CUDA = "/usr/local/cuda"
SKIP = 77
# The fixed seeds of --quick (ctest), about 25 s on two idle cores: C, C++ and
# mixed programs, -O0 to -O3, -g, archives, every feature, and the
# NAMES[2]={"zero","one"} table of the bug class commit 79e7cd3 fixed (seeds
# 1, 20, 108; linked by the commit before it, seeds 1, 20 and 57 differ).
# --describe --seeds N says what a seed's program holds.
QUICK_SEEDS = [1, 3, 20, 57, 84, 108]

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "alpha", "beta",
         "gamma", "delta", "kernel", "team", "warp", "lane", "block", "grid", "x", ""]


def u32(rng):
    return rng.randrange(1, 1 << 32)


def small(rng, lo=1, hi=97):
    return rng.randint(lo, hi)


def c_str(s):
    return '"%s"' % s


def indent(lines, tabs):
    return ["\t" * tabs + line if line else line for line in lines]


class Unit:
    def __init__(self, idx, lang):
        self.idx = idx
        self.lang = lang
        self.opt = 2
        self.debug = False
        self.dev = []       # inside #pragma omp declare target
        self.plain = []     # outside it (indirect functions, host functions)
        self.archived = False
        self.needs_touch = True

    @property
    def source(self):
        return "u%d.%s" % (self.idx, "cpp" if self.lang == "cxx" else "c")

    @property
    def obj(self):
        return "u%d.o" % self.idx


class Program:
    """One random program: generate() fills units, header and main's steps."""

    def __init__(self, seed, gpu_features=False, gpu_compile=False):
        self.seed = seed
        self.gpu_features = gpu_features
        self.rng = random.Random(seed)
        rng = self.rng
        n = rng.choice([2, 2, 3, 3, 4, 4, 5, 6, 7, 8])
        self.shape = rng.choices(["c", "cxx", "mixed"], weights=[3, 4, 3])[0]
        units = []
        for i in range(n):
            if self.shape == "mixed":
                lang = rng.choice(["c", "cxx"])
            else:
                lang = self.shape
            units.append(Unit(i, lang))
        if self.shape == "mixed" and len({u.lang for u in units}) == 1:
            units[rng.randrange(n)].lang = "c" if units[0].lang == "cxx" else "cxx"
        self.units = units
        self.opt = rng.choices([0, 1, 2, 3], weights=[2, 2, 5, 3])[0]
        self.debug = rng.random() < 0.3
        mixed_levels = rng.random() < 0.15
        for u in units:
            u.opt = rng.choice([0, 1, 2, 3]) if mixed_levels else self.opt
            u.debug = self.debug if rng.random() < 0.95 else not self.debug
        self.link_opt = self.opt if rng.random() < 0.75 else None
        if n > 2 and rng.random() < 0.35:
            for u in units[1:]:
                u.archived = rng.random() < 0.6
            if not any(u.archived for u in units):
                units[-1].archived = True
        self.hdr_types = []
        self.hdr_c_dev = []
        self.hdr_c_plain = []
        self.hdr_cxx_dev = []
        self.steps = []          # (label, function name)
        self.features = []       # one word a snippet, for the description
        self.pure = []           # (expression of i, needs C++): side-effect free uses
        self.nsteps = 0
        self.printf = False      # a kernel prints (gpu features)
        self.generate()
        if gpu_features:
            # After the base program, from the same generator: the base
            # program of a seed is the same with or without them.
            self.generate_gpu()
        if gpu_compile:
            # GPU targets: every unit at -O2 (-g as drawn); clang 19's
            # device code generators reject what some -O0 units make.
            for u in units:
                u.opt = 2
            self.opt = 2
            self.link_opt = None

    # --- helpers ---------------------------------------------------------------

    def cxx_units(self):
        return [u for u in self.units if u.lang == "cxx"]

    def pick(self, pool=None, exclude=()):
        pool = [u for u in (pool if pool is not None else self.units) if u not in exclude]
        return self.rng.choice(pool) if pool else None

    def users(self, d, count, pool=None):
        """count units (repeats allowed) to use what d defines, other than d
        where there is another (a use in d itself now and then)."""
        pool = pool if pool is not None else self.units
        others = [u for u in pool if u is not d]
        out = []
        for _ in range(count):
            if not others or self.rng.random() < 0.1:
                out.append(d)
            else:
                out.append(self.rng.choice(others))
        return out

    def step(self, unit, label, code_fn):
        """Add a host function to unit that main calls and prints."""
        name = "fz_step%d" % self.nsteps
        self.nsteps += 1
        self.hdr_c_plain.append("unsigned %s(void);" % name)
        unit.plain.append("\n".join(code_fn(name)))
        self.steps.append((label, name))
        return name

    def serial(self, unit, label, body, x=None):
        """A kernel of one thread: body updates h; x is the host's value."""
        rng = self.rng
        h0 = u32(rng)
        x = small(rng, 1, 1000) if x is None else x

        def code(name):
            return (["unsigned %s(void)" % name, "{",
                     "\tunsigned h = %du, x = %du;" % (h0, x),
                     "#pragma omp target map(tofrom: h)",
                     "\t{"] + indent(body, 2) +
                    ["\t\th = fz_mix(h, x);", "\t}", "\treturn h;", "}"])
        return self.step(unit, label, code)

    def parallel(self, unit, label, exprs, n=None):
        """A loop kernel with a reduction over the side-effect free exprs of i."""
        rng = self.rng
        n = n or rng.choice([8, 31, 64, 100, 257])
        construct = rng.choices(["target teams distribute parallel for", "target parallel for",
                                 "target teams distribute",
                                 "target teams distribute parallel for simd"],
                                weights=[6, 2, 2, 1])[0]
        op = rng.choice(["+", "^", "max", "*"])
        s0 = u32(rng) if op != "max" else 0
        x = small(rng, 1, 1000)
        parts = []
        for e in exprs:
            parts.append(e.replace("@i", "i").replace("@x", "x"))
        value = " + ".join("(%s)" % p for p in parts) if parts else "i"
        if op == "+":
            update = ["s += %s;" % value]
        elif op == "^":
            update = ["s ^= (%s) * 2654435761u + i;" % value]
        elif op == "*":
            update = ["s *= (%s) | 1u;" % value]
        else:
            update = ["unsigned t = %s;" % value, "s = t > s ? t : s;"]

        def code(name):
            return (["unsigned %s(void)" % name, "{",
                     "\tunsigned s = %du, x = %du;" % (s0, x),
                     "#pragma omp %s reduction(%s: s) map(tofrom: s)" % (construct, op),
                     "\tfor (unsigned i = 0; i < %du; i++) {" % n] + indent(update, 2) +
                    ["\t}", "\treturn s;", "}"])
        return self.step(unit, label, code)

    def use_pure(self, unit, label, exprs):
        """Use side-effect free expressions in a serial or a parallel kernel."""
        if self.rng.random() < 0.5:
            body = ["for (unsigned i = 0; i < %du; i++)" % self.rng.choice([2, 3, 5, 9])]
            body += ["\th = fz_mix(h, %s);" % e.replace("@i", "i").replace("@x", "x")
                     for e in exprs[:1]]
            body += ["h = fz_mix(h, %s);" % e.replace("@i", "(x + %du)" % j).replace("@x", "x")
                     for j, e in enumerate(exprs[1:])]
            return self.serial(unit, label, body)
        return self.parallel(unit, label, exprs)

    # --- the program -------------------------------------------------------------

    FEATURES = [("strtab", 6, False), ("fntab", 3, False), ("datatab", 3, False),
                ("fnptr", 3, False), ("devglobal", 3, False), ("staticlocal", 2, False),
                ("atomic", 2, False), ("reduce", 2, False), ("indirect", 2, False),
                ("template", 3, True), ("virtual", 3, True), ("ctor", 2, True),
                ("gctor", 2, False)]

    def generate(self):
        rng = self.rng
        count = rng.randint(2, 5)
        ncxx = len(self.cxx_units())
        avail = []
        for name, weight, needs_two_cxx in self.FEATURES:
            if needs_two_cxx and ncxx < 2:
                continue
            if name == "gctor" and ncxx < 1:
                continue
            avail.append((name, weight))
        for k in range(count):
            if k == 0 and rng.random() < 0.5:
                name = "strtab"
            else:
                name = rng.choices([a[0] for a in avail], weights=[a[1] for a in avail])[0]
            self.tag = ""
            getattr(self, "feat_" + name)(k)
            self.features.append(name + self.tag)
        # Mixing: a reduction kernel over what the snippets made pure.
        if self.pure and rng.random() < 0.5:
            user = self.pick()
            exprs = [e for e, cxx in self.pure if not cxx or user.lang == "cxx"]
            if exprs:
                self.parallel(user, "mix", rng.sample(exprs, min(3, len(exprs))))
        for u in self.units:
            u.needs_touch = not u.archived or rng.random() < 0.7

    # Static and global tables of pointers to strings; the pattern of
    # `static const char *const NAMES[2]={"zero","one"}; name_of(i)` in one
    # unit and name_of(0), name_of(1) in another's kernel comes often.
    def feat_strtab(self, k):
        rng, p = self.rng, "s%d_" % k
        d = self.pick()
        exact = rng.random() < 0.4
        if exact:
            words, storage, modulo = ["zero", "one"], "static", False
            self.tag = "(NAMES[2])"
        else:
            words = [rng.choice(WORDS) for _ in range(rng.randint(2, 5))]
            storage = rng.choice(["static", "static", "static_local", "global_const",
                                  "global_mut", "static_mut"])
            modulo = rng.random() < 0.4
        n = len(words)
        init = "{%s}" % ", ".join(c_str(w) for w in words)
        idx = "i %% %du" % n if modulo else "i"
        itype = "int" if exact else "unsigned"
        self.hdr_c_dev += ["const char *%sname_of(%s i);" % (p, itype),
                           "const char *%sfirst(void);" % p,
                           "extern const char *%slast;" % p]
        if storage == "static_local":
            d.dev += ["const char *%sname_of(%s i)" % (p, itype), "{",
                      "\tstatic const char *const names[%d] = %s;" % (n, init),
                      "\treturn names[%s];" % idx, "}",
                      "const char *%sfirst(void) { return %sname_of(0); }" % (p, p)]
        else:
            decl = {"static": "static const char *const %snames[%d]",
                    "static_mut": "static const char *%snames[%d]",
                    "global_const": "const char *const %snames[%d]",
                    "global_mut": "const char *%snames[%d]"}[storage] % (p, n)
            if storage.startswith("global"):
                self.hdr_c_dev.append("extern %s;" % decl)
            d.dev += ["%s = %s;" % (decl, init),
                      "const char *%sname_of(%s i) { return %snames[%s]; }" % (p, itype, p, idx),
                      "const char *%sfirst(void) { return %snames[0]; }" % (p, p)]
        if rng.random() < 0.3:
            alt = [rng.choice(words) for _ in range(2)]
            self.hdr_c_dev.append("const char *%salt_of(unsigned i);" % p)
            d.dev += ["static const char *const %salt[2] = {%s};" % (p, ", ".join(map(c_str, alt))),
                      "const char *%salt_of(unsigned i) { return %salt[i & 1u]; }" % (p, p)]
            self.pure.append(("fz_str(%salt_of(@i))" % p, False))
        owner = self.pick()
        owner.dev.append("const char *%slast = 0;" % p)
        self.pure.append(("fz_str(%sname_of((@i) %% %du))" % (p, n), False))
        # Constant indices, as the known bug has them.
        body = ["h = fz_mix(h, fz_str(%sname_of(%d)));" % (p, i) for i in range(n)]
        if exact:
            body = ["h = fz_mix(h, fz_str(%sname_of(0)));" % p,
                    "h = fz_mix(h, fz_str(%sname_of(1)));" % p]
        body += ["h = fz_mix(h, %sfirst() == %sname_of(0));" % (p, p),
                 "h = fz_mix(h, fz_len(%sname_of(%d)));" % (p, n - 1)]
        for u in self.users(d, rng.randint(1, 2)):
            self.serial(u, p + "const", body)
        # Variable indices.
        for u in self.users(d, rng.randint(0, 2)):
            kind = rng.random()
            if kind < 0.5:
                self.serial(u, p + "var", [
                    "for (unsigned j = 0; j < %du; j++)" % n,
                    "\th = fz_mix(h, fz_str(%sname_of((x + j) %% %du)));" % (p, n),
                    "h = fz_mix(h, %sname_of(x %% %du) == %sname_of(x %% %du));" % (p, n, p, n)])
            else:
                self.parallel(u, p + "par", ["fz_str(%sname_of(@i %% %du))" % (p, n)])
        if storage.startswith("global"):
            u = self.users(d, 1)[0]
            self.serial(u, p + "direct", [
                "h = fz_mix(h, fz_str(%snames[1]));" % p,
                "h = fz_mix(h, fz_str(%snames[x %% %du]));" % (p, n),
                "h = fz_mix(h, %snames[x %% %du] == %sname_of(x %% %du));" % (p, n, p, n)])
            if storage == "global_mut" and rng.random() < 0.5:
                w = self.users(d, 1)[0]
                self.serial(w, p + "swap", ["const char *t = %snames[0];" % p,
                                            "%snames[0] = %snames[%d];" % (p, p, n - 1),
                                            "%snames[%d] = t;" % (p, n - 1)])
                self.serial(self.users(d, 1)[0], p + "after", body)
        # A pointer one kernel stores in a device global and another reads.
        if rng.random() < 0.5:
            w, r = self.users(d, 2)
            self.serial(w, p + "store", ["%slast = %sname_of(x %% %du);" % (p, p, n)], x=5)
            self.serial(r, p + "load", [
                "h = fz_mix(h, %slast == %sname_of(5u %% %du));" % (p, p, n),
                "h = fz_mix(h, fz_str(%slast));" % p])

    def fn_body(self, x="x"):
        rng = self.rng
        a, b = small(self.rng), small(self.rng)
        return rng.choice(["%s * %du + %du" % (x, a, b), "(%s ^ %du) + (%s >> 2)" % (x, a, x),
                           "%s * %s + %du" % (x, x, b), "(%s << 3) - %du" % (x, a),
                           "fz_mix(%s, %du)" % (x, a)])

    # Tables of function pointers.
    def feat_fntab(self, k):
        rng, p = self.rng, "s%d_" % k
        d = self.pick()
        m = rng.randint(2, 4)
        storage = rng.choice(["static", "static", "static_local", "global_const", "global_mut"])
        helper = None
        if rng.random() < 0.4:
            helper = self.pick(exclude=(d,))
            self.hdr_c_dev.append("unsigned %shelper(unsigned x);" % p)
            helper.dev.append("unsigned %shelper(unsigned x) { return %s; }" % (p, self.fn_body()))
        for j in range(m):
            body = self.fn_body()
            if helper is not None and j == m - 1:
                body = "%shelper(x) + %du" % (p, j)
            d.dev.append("static unsigned %sf%d(unsigned x) { return %s; }" % (p, j, body))
        init = "{%s}" % ", ".join("%sf%d" % (p, j) for j in range(m))
        self.hdr_c_dev += ["fz_fn %sget(unsigned i);" % p,
                           "unsigned %sapply(unsigned i, unsigned x);" % p,
                           "fz_fn %saddr1(void);" % p]
        if storage == "static_local":
            d.dev += ["fz_fn %sget(unsigned i)" % p, "{",
                      "\tstatic fz_fn const tab[%d] = %s;" % (m, init),
                      "\treturn tab[i];", "}",
                      "unsigned %sapply(unsigned i, unsigned x) { return %sget(i)(x); }" % (p, p)]
        else:
            decl = {"static": "static fz_fn const %stab[%d]",
                    "global_const": "fz_fn const %stab[%d]",
                    "global_mut": "fz_fn %stab[%d]"}[storage] % (p, m)
            if storage.startswith("global"):
                self.hdr_c_dev.append("extern %s;" % decl)
            d.dev += ["%s = %s;" % (decl, init),
                      "fz_fn %sget(unsigned i) { return %stab[i]; }" % (p, p),
                      "unsigned %sapply(unsigned i, unsigned x) { return %stab[i](x); }" % (p, p)]
        d.dev.append("fz_fn %saddr1(void) { return %sf1; }" % (p, p))
        self.pure.append(("%sapply((@i) %% %du, @i)" % (p, m), False))
        body = ["h = fz_mix(h, %sapply(0, x));" % p,
                "h = fz_mix(h, %sget(1)(x + 1u));" % p,
                "h = fz_mix(h, %sget(1) == %saddr1());" % (p, p),
                "h = fz_mix(h, %sget(0) != %sget(1));" % (p, p)]
        for u in self.users(d, rng.randint(1, 2)):
            self.serial(u, p + "const", body)
        for u in self.users(d, rng.randint(0, 2)):
            if rng.random() < 0.5:
                self.serial(u, p + "var", ["for (unsigned j = 0; j < %du; j++)" % m,
                                           "\th = fz_mix(h, %sapply((x + j) %% %du, j));" % (p, m)])
            else:
                self.parallel(u, p + "par", ["%sapply(@i %% %du, @i)" % (p, m)])
        if storage.startswith("global"):
            self.serial(self.users(d, 1)[0], p + "direct", [
                "h = fz_mix(h, %stab[x %% %du](3u));" % (p, m),
                "h = fz_mix(h, %stab[1] == %sget(1));" % (p, p),
                "h = fz_mix(h, %stab[1] == %saddr1());" % (p, p)])

    # Tables of pointers to data, and records of a string, a value, a
    # function and a row.
    def feat_datatab(self, k):
        rng, p = self.rng, "s%d_" % k
        d = self.pick()
        rows, cols = rng.randint(2, 3), rng.choice([3, 4, 8])
        for r in range(rows):
            d.dev.append("static const unsigned %sr%d[%d] = {%s};" % (
                p, r, cols, ", ".join("%du" % small(rng, 0, 9999) for _ in range(cols))))
        rinit = "{%s}" % ", ".join("%sr%d" % (p, r) for r in range(rows))
        glob = rng.random() < 0.3
        if glob:
            self.hdr_c_dev.append("extern const unsigned *const %srows[%d];" % (p, rows))
            d.dev.append("const unsigned *const %srows[%d] = %s;" % (p, rows, rinit))
        else:
            d.dev.append("static const unsigned *const %srows[%d] = %s;" % (p, rows, rinit))
        self.hdr_c_dev += ["unsigned %sat(unsigned r, unsigned c);" % p,
                           "const unsigned *%srow(unsigned r);" % p]
        d.dev += ["unsigned %sat(unsigned r, unsigned c) { return %srows[r][c]; }" % (p, p),
                  "const unsigned *%srow(unsigned r) { return %srows[r]; }" % (p, p)]
        self.pure.append(("%sat((@i) %% %du, (@i) %% %du)" % (p, rows, cols), False))
        body = ["h = fz_mix(h, %sat(0, 1) + %sat(%d, %d));" % (p, p, rows - 1, cols - 1),
                "h = fz_mix(h, %srow(1)[x %% %du]);" % (p, cols),
                "h = fz_mix(h, %srow(0) == %srow(0));" % (p, p),
                "h = fz_mix(h, %srow(0) != %srow(1));" % (p, p)]
        if glob:
            body += ["h = fz_mix(h, %srows[1] == %srow(1));" % (p, p),
                     "h = fz_mix(h, %srows[x %% %du][x %% %du]);" % (p, rows, cols)]
        for u in self.users(d, rng.randint(1, 2)):
            self.serial(u, p + "rows", body)
        if rng.random() < 0.6:
            # Records.
            nrec = rng.randint(2, 3)
            fns = []
            for j in range(nrec):
                d.dev.append("static unsigned %sg%d(unsigned x) { return %s; }" % (p, j, self.fn_body()))
                fns.append("%sg%d" % (p, j))
            recs = ", ".join("{%s, %du, %s, %sr%d}" % (c_str(rng.choice(WORDS)), small(rng), fns[j], p,
                                                        j % rows) for j in range(nrec))
            self.hdr_types.append("struct %srec { const char *name; unsigned v; fz_fn fn; "
                                  "const unsigned *data; };" % p)
            self.hdr_c_dev += ["unsigned %srec_eval(unsigned i, unsigned x);" % p,
                               "const char *%srec_name(unsigned i);" % p]
            d.dev += ["static const struct %srec %srecs[%d] = {%s};" % (p, p, nrec, recs),
                      "unsigned %srec_eval(unsigned i, unsigned x)" % p, "{",
                      "\tconst struct %srec *r = &%srecs[i];" % (p, p),
                      "\treturn fz_str(r->name) + r->v + r->fn(x) + r->data[x %% %du];" % cols, "}",
                      "const char *%srec_name(unsigned i) { return %srecs[i].name; }" % (p, p)]
            self.pure.append(("%srec_eval((@i) %% %du, @i)" % (p, nrec), False))
            for u in self.users(d, rng.randint(1, 2)):
                self.use_pure(u, p + "recs", ["%srec_eval((@i) %% %du, @i)" % (p, nrec),
                                              "fz_str(%srec_name(%d))" % (p, nrec - 1)])
        if rng.random() < 0.4:
            # Pointers to scalar constants.
            d.dev += ["static const unsigned %sk0 = %du, %sk1 = %du;" % (p, small(rng), p, small(rng)),
                      "static const unsigned *const %skp[2] = {&%sk0, &%sk1};" % (p, p, p),
                      "unsigned %skval(unsigned i) { return *%skp[i]; }" % (p, p)]
            self.hdr_c_dev.append("unsigned %skval(unsigned i);" % p)
            self.serial(self.users(d, 1)[0], p + "scalars", [
                "h = fz_mix(h, %skval(0));" % p, "h = fz_mix(h, %skval(1));" % p,
                "h = fz_mix(h, %skval(x & 1u));" % p])
        if rng.random() < 0.5:
            # Pointers to mutable data, written by one kernel, read by another's.
            d.dev += ["static unsigned %sm0 = %du, %sm1 = %du;" % (p, small(rng), p, small(rng)),
                      "static unsigned *const %smp[2] = {&%sm0, &%sm1};" % (p, p, p),
                      "void %sbump(unsigned i, unsigned v) { *%smp[i] = *%smp[i] * 3u + v; }"
                      % (p, p, p),
                      "unsigned %smget(unsigned i) { return *%smp[i]; }" % (p, p)]
            self.hdr_c_dev += ["void %sbump(unsigned i, unsigned v);" % p,
                               "unsigned %smget(unsigned i);" % p]
            w, r = self.users(d, 2)
            self.serial(w, p + "bump", ["%sbump(0, x);" % p, "%sbump(1, x + 1u);" % p])
            self.serial(r, p + "mget", ["h = fz_mix(h, %smget(0));" % p,
                                        "h = fz_mix(h, %smget(1));" % p])

    # Function pointers: equality across units, a global initialized with a
    # static function, one stored by a kernel and called by another's.
    def feat_fnptr(self, k):
        rng, p = self.rng, "s%d_" % k
        d = self.pick()
        e = self.pick(exclude=(d,))
        d.dev += ["static unsigned %sinc(unsigned x) { return x + %du; }" % (p, small(rng)),
                  "static unsigned %sdec(unsigned x) { return x - %du; }" % (p, small(rng)),
                  "fz_fn %spick(unsigned w) { return w ? %sdec : %sinc; }" % (p, p, p),
                  "fz_fn %sptr = %sinc;" % (p, p),
                  "unsigned %spub(unsigned x) { return %s; }" % (p, self.fn_body())]
        e.dev += ["fz_fn %spick_other(void) { return %spick(0); }" % (p, p),
                  "fz_fn %spub_addr(void) { return %spub; }" % (p, p)]
        self.pick().dev.append("fz_fn %sslot = 0;" % p)
        self.hdr_c_dev += ["fz_fn %spick(unsigned w);" % p, "extern fz_fn %sptr;" % p,
                           "unsigned %spub(unsigned x);" % p, "fz_fn %spick_other(void);" % p,
                           "fz_fn %spub_addr(void);" % p, "extern fz_fn %sslot;" % p]
        body = ["h = fz_mix(h, %spick(0) == %spick_other());" % (p, p),
                "h = fz_mix(h, %spick(0) == %sptr);" % (p, p),
                "h = fz_mix(h, %spick(0) != %spick(1));" % (p, p),
                "h = fz_mix(h, %spub_addr() == %spub);" % (p, p),
                "h = fz_mix(h, %spick(0)(x) + %sptr(x) + %spick(1)(x));" % (p, p, p)]
        for u in self.users(d, rng.randint(1, 2)):
            self.serial(u, p + "eq", body)
        self.pure.append(("%spick((@i) & 1u)(@i)" % p, False))
        if rng.random() < 0.6:
            w, r = self.users(d, 2)
            which = rng.randint(0, 1)
            self.serial(w, p + "store", ["%sslot = %spick(x & 1u);" % (p, p)], x=which)
            self.serial(r, p + "call", ["h = fz_mix(h, %sslot == %spick(%du));" % (p, p, which),
                                        "h = fz_mix(h, %sslot == %sptr);" % (p, p),
                                        "h = fz_mix(h, %sslot(9u));" % p])

    # Device globals one unit's kernel writes and another's reads.
    def feat_devglobal(self, k):
        rng, p = self.rng, "s%d_" % k
        d = self.pick()
        d.dev += ["unsigned %sg = %du;" % (p, u32(rng)),
                  "unsigned %sarr[8] = {%s};" % (p, ", ".join("%du" % small(rng) for _ in range(8))),
                  "static unsigned %scnt = %du;" % (p, small(rng)),
                  "unsigned %sbump(unsigned v) { %scnt = %scnt * 5u + v; return %scnt; }"
                  % (p, p, p, p)]
        self.hdr_c_dev += ["extern unsigned %sg;" % p, "extern unsigned %sarr[8];" % p,
                           "unsigned %sbump(unsigned v);" % p]
        write = ["%sg = %sg * 3u + x;" % (p, p), "%sarr[x %% 8u] += x;" % p,
                 "h = fz_mix(h, %sbump(x));" % p]
        read = ["h = fz_mix(h, %sg);" % p, "for (unsigned j = 0; j < 8u; j++)",
                "\th = fz_mix(h, %sarr[j]);" % p, "h = fz_mix(h, %sbump(1u));" % p]
        for _ in range(rng.randint(1, 2)):
            w, r = self.users(d, 2)
            self.serial(w, p + "write", write)
            if rng.random() < 0.4:
                par = self.users(d, 1)[0]
                x = small(rng)

                def code(name, x=x):
                    return ["unsigned %s(void)" % name, "{", "\tunsigned x = %du;" % x,
                            "#pragma omp target teams distribute parallel for",
                            "\tfor (unsigned i = 0; i < 8u; i++)",
                            "\t\t%sarr[i] = %sarr[i] * x + i;" % (p, p), "\treturn x;", "}"]
                self.step(par, p + "pwrite", code)
            self.serial(r, p + "read", read)
        if rng.random() < 0.5:
            r = self.users(d, 1)[0]

            def code(name):
                return ["unsigned %s(void)" % name, "{",
                        "#pragma omp target update from(%sg, %sarr)" % (p, p),
                        "\treturn %sg + %sarr[3];" % (p, p), "}"]
            self.step(r, p + "update", code)

    # Static locals, in a function and in an inline function.
    def feat_staticlocal(self, k):
        rng, p = self.rng, "s%d_" % k
        d = self.pick()
        d.dev += ["unsigned %snext(unsigned x)" % p, "{",
                  "\tstatic unsigned n = %du;" % u32(rng), "\tn = n * 7u + x;", "\treturn n;", "}",
                  "unsigned %slut(unsigned i)" % p, "{",
                  "\tstatic const unsigned t[8] = {%s};" % ", ".join(
                      "%du" % small(rng, 0, 9999) for _ in range(8)),
                  "\treturn t[i & 7u];", "}"]
        self.hdr_c_dev += ["unsigned %snext(unsigned x);" % p, "unsigned %slut(unsigned i);" % p]
        users = self.users(d, rng.randint(2, 3))
        inl = "static inline unsigned %sinl(unsigned x) { static unsigned n = %du; return n += x; }" % (
            p, small(rng))
        if all(u.lang == "cxx" for u in users) and rng.random() < 0.7:
            # One object shared by the units (C++ inline: a comdat).
            self.hdr_cxx_dev.append(inl.replace("static inline", "inline"))
        else:
            # C: one copy a unit.
            self.hdr_c_dev.append(inl)
        self.pure.append(("%slut(@i)" % p, False))
        for u in users:
            self.serial(u, p + "next", ["h = fz_mix(h, %snext(x));" % p,
                                        "h = fz_mix(h, %sinl(x));" % p,
                                        "h = fz_mix(h, %slut(x));" % p])
        self.parallel(self.users(d, 1)[0], p + "lut", ["%slut(@i)" % p])

    # Atomics on a device global from a loop kernel, read by another unit.
    def feat_atomic(self, k):
        rng, p = self.rng, "s%d_" % k
        d = self.pick()
        d.dev += ["unsigned %sacc = %du;" % (p, u32(rng)),
                  "static unsigned %sbits;" % p,
                  "void %sadd(unsigned v)" % p, "{", "#pragma omp atomic", "\t%sacc += v;" % p, "}",
                  "void %sorbits(unsigned v)" % p, "{", "#pragma omp atomic update",
                  "\t%sbits |= v;" % p, "}",
                  "unsigned %sget_bits(void)" % p, "{", "\tunsigned b;", "#pragma omp atomic read",
                  "\tb = %sbits;" % p, "\treturn b;", "}"]
        self.hdr_c_dev += ["extern unsigned %sacc;" % p, "void %sadd(unsigned v);" % p,
                           "void %sorbits(unsigned v);" % p, "unsigned %sget_bits(void);" % p]
        for _ in range(rng.randint(1, 2)):
            w, r = self.users(d, 2)
            n = rng.choice([16, 64, 100])
            x = small(rng)
            local = rng.random() < 0.4

            def code(name, n=n, x=x, local=local):
                lines = ["unsigned %s(void)" % name, "{", "\tunsigned x = %du, c = 0;" % x,
                         "#pragma omp target teams distribute parallel for map(tofrom: c)",
                         "\tfor (unsigned i = 0; i < %du; i++) {" % n,
                         "\t\t%sadd(i * x + 1u);" % p,
                         "\t\t%sorbits(1u << (i %% 32u));" % p]
                if local:
                    lines += ["#pragma omp atomic", "\t\tc += i ^ x;"]
                return lines + ["\t}", "\treturn c;", "}"]
            self.step(w, p + "atomic", code)
            self.serial(r, p + "read", ["h = fz_mix(h, %sacc);" % p,
                                        "h = fz_mix(h, %sget_bits());" % p])

    # Several reduction kernels over another unit's functions.
    def feat_reduce(self, k):
        rng, p = self.rng, "s%d_" % k
        d = self.pick()
        d.dev += ["static unsigned %sinner(unsigned i) { return %s; }" % (p, self.fn_body("i")),
                  "unsigned %sw(unsigned i) { return %sinner(i) ^ (i >> 3); }" % (p, p),
                  "unsigned %sv(unsigned i) { return %s; }" % (p, self.fn_body("i"))]
        self.hdr_c_dev += ["unsigned %sw(unsigned i);" % p, "unsigned %sv(unsigned i);" % p]
        self.pure.append(("%sw(@i)" % p, False))
        self.pure.append(("%sv(@i)" % p, False))
        u = self.users(d, 1)[0]
        for _ in range(rng.randint(2, 3)):
            self.parallel(u, p + "red", rng.sample(["%sw(@i)" % p, "%sv(@i)" % p, "@i * @x"],
                                                   rng.randint(1, 2)))

    # declare target indirect: host function pointers called in kernels.
    def feat_indirect(self, k):
        rng, p = self.rng, "s%d_" % k
        d = self.pick()
        m = rng.randint(1, 3)
        helper = None
        if rng.random() < 0.5:
            helper = self.pick(exclude=(d,))
            self.hdr_c_dev.append("unsigned %shelp(unsigned x);" % p)
            helper.dev.append("unsigned %shelp(unsigned x) { return %s; }" % (p, self.fn_body()))
        for j in range(m):
            self.hdr_c_plain += ["unsigned %sind%d(unsigned x);" % (p, j),
                                 "#pragma omp declare target indirect to(%sind%d)" % (p, j)]
            body = self.fn_body()
            if helper is not None and j == 0:
                body = "%shelp(x) + 1u" % p
            d.plain.append("unsigned %sind%d(unsigned x) { return %s; }" % (p, j, body))
        tab = "{%s}" % ", ".join("%sind%d" % (p, j) for j in range(m))
        for u in self.users(d, rng.randint(1, 3)):
            form = rng.choice(["serial", "parallel", "mapped"])
            x = small(rng)
            h0 = u32(rng)

            def code(name, form=form, x=x, h0=h0):
                lines = ["unsigned %s(void)" % name, "{",
                         "\tstatic fz_fn const tab[%d] = %s;" % (m, tab),
                         "\tunsigned h = %du, x = %du;" % (h0, x),
                         "\tfz_fn fp = tab[x %% %du];" % m]
                if form == "serial":
                    lines += ["#pragma omp target map(tofrom: h)", "\th = fz_mix(h, fp(x));"]
                elif form == "parallel":
                    lines += ["#pragma omp target teams distribute parallel for reduction(+: h) "
                              "map(tofrom: h)",
                              "\tfor (unsigned i = 0; i < 50u; i++)", "\t\th += fp(i);"]
                else:
                    lines += ["\tfz_fn fps[%d] = %s;" % (m, tab),
                              "#pragma omp target map(tofrom: h) map(to: fps)",
                              "\tfor (unsigned j = 0; j < %du; j++)" % m,
                              "\t\th = fz_mix(h, fps[j](x + j));"]
                return lines + ["\treturn h;", "}"]
            self.step(u, p + "indirect", code)

    # C++ templates: a static local in a template (one object for every
    # unit), explicit instantiation, a static table member of a class
    # template, a static data member written by kernels.
    def feat_template(self, k):
        rng, p = self.rng, "s%d_" % k
        cxx = self.cxx_units()
        d = self.pick(cxx)
        n = rng.randint(2, 4)
        words = [rng.choice(WORDS) for _ in range(n)]
        self.hdr_cxx_dev += [
            "template <typename T> T %stcount(T x) { static T n = (T)%du; n = n * (T)3 + x; return n; }"
            % (p, small(rng)),
            "template <typename T> T %stf(T x);" % p,
            "extern template unsigned %stf<unsigned>(unsigned);" % p,
            "template <typename T> struct %sNames {" % p,
            "\tstatic const char *const names[%d];" % n,
            "\tstatic unsigned pick(unsigned i) { return fz_str(names[i]); }",
            "\tstatic T total;",
            "\tstatic void add(T v) { total += v; }",
            "};",
            "template <typename T> const char *const %sNames<T>::names[%d] = {%s};"
            % (p, n, ", ".join(map(c_str, words))),
            "template <typename T> T %sNames<T>::total = (T)%du;" % (p, small(rng)),
            "template <unsigned K> unsigned %sscale(unsigned x) { return x * K + %sbase(); }" % (p, p)]
        self.hdr_c_dev.append("unsigned %sbase(void);" % p)
        self.hdr_c_dev.append("const char *%stname(unsigned i);" % p)
        d.dev += ["template <typename T> T %stf(T x) { return x * (T)%du + (T)1; }" % (p, small(rng)),
                  'extern "C" const char *%stname(unsigned i) { return %sNames<int>::names[i]; }' % (p, p),
                  "template unsigned %stf<unsigned>(unsigned);" % p]
        self.pick().dev.append("unsigned %sbase(void) { return %du; }" % (p, small(rng)))
        self.pure.append(("%sNames<int>::pick((@i) %% %du) + %sscale<%du>(@i) + %stf<unsigned>(@i)"
                          % (p, n, p, small(rng), p), True))
        for u in self.users(d, rng.randint(2, 3), cxx):
            self.serial(u, p + "tmpl", [
                "h = fz_mix(h, %stcount<unsigned>(x));" % p,
                "h = fz_mix(h, (unsigned)%stcount<unsigned short>((unsigned short)x));" % p,
                "h = fz_mix(h, %stf<unsigned>(x));" % p,
                "h = fz_mix(h, %sNames<int>::pick(x %% %du));" % (p, n),
                "h = fz_mix(h, %sNames<int>::pick(0));" % p,
                "h = fz_mix(h, %sNames<int>::names[x %% %du] == %stname(x %% %du));" % (p, n, p, n),
                "%sNames<unsigned>::add(x);" % p,
                "h = fz_mix(h, %sNames<unsigned>::total);" % p,
                "h = fz_mix(h, %sscale<3u>(x));" % p])
        self.use_pure(self.users(d, 1, cxx)[0], p + "ptmpl",
                      ["%sNames<int>::pick((@i) %% %du)" % (p, n), "%stf<unsigned>(@i)" % p])

    # Virtual calls on objects of classes with out-of-line constructors and
    # destructors, a virtual call in the defining unit on an object made in
    # another's kernel, and global objects (built by a global constructor).
    def feat_virtual(self, k):
        rng, p = self.rng, "s%d_" % k
        cxx = self.cxx_units()
        d = self.pick(cxx)
        self.hdr_cxx_dev += [
            "struct %sBase { unsigned v; %sBase(unsigned v); virtual ~%sBase(); "
            "virtual unsigned get(unsigned x) const; };" % (p, p, p),
            "struct %sD1 : %sBase { %sD1(unsigned v); ~%sD1(); unsigned get(unsigned x) const override; };"
            % (p, p, p, p),
            "struct %sD2 : %sD1 { %sD2(unsigned v); unsigned get(unsigned x) const override; };"
            % (p, p, p),
            "unsigned %svia(const %sBase &b, unsigned x);" % (p, p),
            "const %sBase *%sglobal_obj(unsigned i);" % (p, p),
            "extern unsigned %sdtors;" % p]
        a, b, c = small(rng), small(rng), small(rng)
        d.dev += ["unsigned %sdtors = 0;" % p,
                  "%sBase::%sBase(unsigned v) : v(v) {}" % (p, p),
                  "%sBase::~%sBase() { %sdtors += 1u; }" % (p, p, p),
                  "unsigned %sBase::get(unsigned x) const { return v * %du + x; }" % (p, a),
                  "%sD1::%sD1(unsigned v) : %sBase(v * 2u) {}" % (p, p, p),
                  "%sD1::~%sD1() { %sdtors += 10u; }" % (p, p, p),
                  "unsigned %sD1::get(unsigned x) const { return v * %du + x + 1u; }" % (p, b),
                  "%sD2::%sD2(unsigned v) : %sD1(v + 1u) {}" % (p, p, p),
                  "unsigned %sD2::get(unsigned x) const { return %sD1::get(x) ^ %du; }" % (p, p, c),
                  "unsigned %svia(const %sBase &b, unsigned x) { return b.get(x); }" % (p, p)]
        g = self.pick(cxx)
        g.dev += ["static %sD1 %sobj1(%du);" % (p, p, small(rng)),
                  "static %sD2 %sobj2(%du);" % (p, p, small(rng)),
                  "const %sBase *%sglobal_obj(unsigned i) { return i ? (const %sBase *)&%sobj2 : &%sobj1; }"
                  % (p, p, p, p, p)]
        for u in self.users(d, rng.randint(1, 3), cxx):
            self.serial(u, p + "virt", [
                "{",
                "\t%sD1 d1(x);" % p, "\t%sBase b0(x + 1u);" % p, "\t%sD2 d2(x + 2u);" % p,
                "\tconst %sBase *objs[3] = {&b0, &d1, &d2};" % p,
                "\tfor (unsigned j = 0; j < 3u; j++)",
                "\t\th = fz_mix(h, objs[(x + j) % 3u]->get(j));",
                "\th = fz_mix(h, %svia(d2, 3u) + %svia(b0, 4u));" % (p, p),
                "\th = fz_mix(h, %sglobal_obj(x & 1u)->get(5u));" % p,
                "\th = fz_mix(h, %sglobal_obj(0)->get(1u) + %sglobal_obj(1)->get(2u));" % (p, p),
                "}",
                "h = fz_mix(h, %sdtors);" % p])
        self.pure.append(("%sglobal_obj((@i) & 1u)->get(@i)" % p, True))

    # Classes with out-of-line constructors and destructors (not virtual).
    def feat_ctor(self, k):
        rng, p = self.rng, "s%d_" % k
        cxx = self.cxx_units()
        d = self.pick(cxx)
        self.hdr_cxx_dev += [
            "struct %sAcc { unsigned s; %sAcc(unsigned seed); ~%sAcc(); void add(unsigned v); "
            "unsigned get() const; };" % (p, p, p),
            "struct %sPair { %sAcc a, b; %sPair(unsigned x); unsigned sum() const; };" % (p, p, p),
            "extern unsigned %slast;" % p]
        d.dev += ["unsigned %slast = 0;" % p,
                  "%sAcc::%sAcc(unsigned seed) : s(seed * %du + 1u) {}" % (p, p, small(rng)),
                  "%sAcc::~%sAcc() { %slast = %slast * 3u + s; }" % (p, p, p, p),
                  "void %sAcc::add(unsigned v) { s = s * 31u + v; }" % p,
                  "unsigned %sAcc::get() const { return s; }" % p]
        e = self.pick(cxx)
        e.dev += ["%sPair::%sPair(unsigned x) : a(x), b(x + 1u) { a.add(b.get()); }" % (p, p),
                  "unsigned %sPair::sum() const { return a.get() + b.get(); }" % p]
        for u in self.users(d, rng.randint(1, 3), cxx):
            self.serial(u, p + "ctor", [
                "{",
                "\t%sAcc a(x);" % p,
                "\tfor (unsigned j = 0; j < 4u; j++)", "\t\ta.add(j);",
                "\th = fz_mix(h, a.get());",
                "\t%sPair pr(x);" % p,
                "\th = fz_mix(h, pr.sum());",
                "}",
                "h = fz_mix(h, %slast);" % p])

    # Global constructors: a C++ global whose constructor calls a function
    # of another unit (C or C++) and adds to a global of a third.
    def feat_gctor(self, k):
        rng, p = self.rng, "s%d_" % k
        cxx = self.cxx_units()
        d = self.pick(cxx)
        e = self.pick()
        f = self.pick()
        self.hdr_cxx_dev += ["struct %sInit { unsigned v; %sInit(unsigned k); };" % (p, p),
                             "extern %sInit %sobj;" % (p, p)]
        self.hdr_c_dev += ["unsigned %sobj_value(void);" % p, "extern unsigned %sboot;" % p,
                           "unsigned %sseed(unsigned k);" % p]
        d.dev += ["%sInit::%sInit(unsigned k) : v(%sseed(k)) { %sboot += k; }" % (p, p, p, p),
                  "%sInit %sobj(%du);" % (p, p, small(rng)),
                  'extern "C" unsigned %sobj_value(void) { return %sobj.v; }' % (p, p)]
        e.dev.append("unsigned %sseed(unsigned k) { return %s; }" % (p, self.fn_body("k")))
        f.dev.append("unsigned %sboot = %du;" % (p, small(rng)))
        for other in rng.sample(cxx, min(len(cxx), rng.randint(0, 2))):
            other.dev.append("static %sInit %sextra%d(%du);" % (p, p, other.idx, small(rng)))
        for u in self.users(d, rng.randint(1, 2)):
            body = ["h = fz_mix(h, %sobj_value());" % p, "h = fz_mix(h, %sboot);" % p]
            if u.lang == "cxx":
                body.append("h = fz_mix(h, %sobj.v);" % p)
            self.serial(u, p + "gctor", body)

    # --- what the GPU targets add (--gpu-features) ---------------------------------

    GPU_FEATURES = [("teamshared", 0), ("gobjvirt", 2), ("alias", 0), ("printf", 0)]

    def generate_gpu(self):
        rng = self.rng
        ncxx = len(self.cxx_units())
        names = [n for n, cxx in self.GPU_FEATURES if ncxx >= cxx]
        rng.shuffle(names)
        base = len(self.features)
        for j, name in enumerate(names[:rng.randint(1, 3)]):
            self.tag = ""
            getattr(self, "feat_" + name)(base + j)
            self.features.append(name + self.tag)

    def pure_for(self, unit):
        """A side-effect free expression of i the unit's language can use, or None."""
        exprs = [e for e, cxx in self.pure if not cxx or unit.lang == "cxx"]
        return self.rng.choice(exprs) if exprs else None

    # Team shared memory: a static local of a declare target function
    # allocated with omp_pteam_mem_alloc, filled and read by kernels of
    # several units (each kernel writes it before it reads it: shared memory
    # lives as long as the kernel), and a kernel's own team array filled by a
    # parallel loop.
    def feat_teamshared(self, k):
        rng, p = self.rng, "g%d_" % k
        d = self.pick()
        n = rng.choice([8, 16, 32, 64])
        d.dev += ["static unsigned *%stbuf(void)" % p, "{",
                  "\tstatic unsigned buf[%d];" % n,
                  # Not on AMDGPU: clang 19 gives the static a zero
                  # initializer, which LDS cannot have ("unsupported
                  # initializer for address space") once functions other
                  # than kernels use it; there it is a global.
                  "#if !defined(__AMDGCN__)",
                  "#pragma omp allocate(buf) allocator(omp_pteam_mem_alloc)",
                  "#endif",
                  "\treturn buf;", "}",
                  "void %stfill(unsigned x)" % p, "{", "\tunsigned *b = %stbuf();" % p,
                  "\tfor (unsigned i = 0; i < %du; i++)" % n,
                  "\t\tb[i] = %s;" % self.fn_body("(i * x)"), "}",
                  "unsigned %stsum(void)" % p, "{", "\tunsigned s = %du;" % small(rng),
                  "\tfor (unsigned i = 0; i < %du; i++)" % n,
                  "\t\ts = fz_mix(s, %stbuf()[i]);" % p, "\treturn s;", "}"]
        self.hdr_c_dev += ["void %stfill(unsigned x);" % p, "unsigned %stsum(void);" % p]
        for u in self.users(d, rng.randint(2, 3)):
            self.serial(u, p + "tshared", ["%stfill(x);" % p, "h = fz_mix(h, %stsum());" % p])
        u = self.users(d, 1)[0]
        m = rng.choice([16, 32, 64])
        expr = self.pure_for(u)
        value = expr.replace("@i", "i").replace("@x", "x") if expr else "i * x + 1u"
        h0, x = u32(rng), small(rng)

        def code(name):
            return ["unsigned %s(void)" % name, "{",
                    "\tunsigned h = %du, x = %du;" % (h0, x),
                    "#pragma omp target teams num_teams(1) map(tofrom: h)", "\t{",
                    "\t\tunsigned loc[%d];" % m,
                    "#pragma omp allocate(loc) allocator(omp_pteam_mem_alloc)",
                    "#pragma omp parallel for",
                    "\t\tfor (unsigned i = 0; i < %du; i++)" % m,
                    "\t\t\tloc[i] = %s;" % value,
                    "\t\tfor (unsigned i = 0; i < %du; i++)" % m,
                    "\t\t\th = fz_mix(h, loc[i]);",
                    "\t\t%stfill(h);" % p, "\t\th = fz_mix(h, %stsum());" % p,
                    "\t}", "\treturn h;", "}"]
        self.step(u, p + "tarray", code)

    # A global C++ object built by its (out-of-line) constructor, whose
    # virtual functions kernels of other units call; the derived class's
    # override, and so its vtable, in another unit than the constructor.
    def feat_gobjvirt(self, k):
        rng, p = self.rng, "g%d_" % k
        cxx = self.cxx_units()
        d = self.pick(cxx)
        e = self.pick(cxx, exclude=(d,))
        self.hdr_cxx_dev += [
            "struct %sShape { unsigned v; %sShape(unsigned k); virtual unsigned area(unsigned x) const; "
            "virtual unsigned id() const; };" % (p, p),
            "struct %sSquare : %sShape { unsigned w; %sSquare(unsigned k, unsigned w); "
            "unsigned area(unsigned x) const override; };" % (p, p, p),
            "extern %sSquare %sgobj;" % (p, p), "extern %sShape %sgbase;" % (p, p),
            "const %sShape *%sgptr(unsigned i);" % (p, p)]
        d.dev += ["%sShape::%sShape(unsigned k) : v(%s) {}" % (p, p, self.fn_body("k")),
                  "unsigned %sShape::area(unsigned x) const { return v * %du + x; }" % (p, small(rng)),
                  "unsigned %sShape::id() const { return %du; }" % (p, small(rng)),
                  "%sSquare::%sSquare(unsigned k, unsigned w) : %sShape(k + 1u), w(w * %du) {}"
                  % (p, p, p, small(rng)),
                  "%sSquare %sgobj(%du, %du);" % (p, p, small(rng), small(rng)),
                  "%sShape %sgbase(%du);" % (p, p, small(rng)),
                  "const %sShape *%sgptr(unsigned i) { return i ? (const %sShape *)&%sgobj : &%sgbase; }"
                  % (p, p, p, p, p)]
        e.dev.append("unsigned %sSquare::area(unsigned x) const { return (v + w) * %du ^ x; }"
                     % (p, small(rng)))
        for u in self.users(d, rng.randint(2, 3), cxx):
            self.serial(u, p + "gvirt", [
                "{",
                "\tconst %sShape &s = %sgobj;" % (p, p),
                "\th = fz_mix(h, s.area(x) + s.id());",
                "\th = fz_mix(h, %sgobj.w + %sgobj.v);" % (p, p),
                "\tfor (unsigned j = 0; j < 2u; j++)",
                "\t\th = fz_mix(h, %sgptr((x + j) & 1u)->area(j));" % p,
                "}"])
        self.pure.append(("%sgptr((@i) & 1u)->area(@i)" % p, True))

    # An external alias of a static function, called and compared by
    # kernels of other units.
    def feat_alias(self, k):
        rng, p = self.rng, "g%d_" % k
        d = self.pick()
        impl = p + "impl"
        target = impl if d.lang == "c" else "_ZL%d%sj" % (len(impl), impl)
        d.dev += ["static unsigned %s(unsigned x) { return %s; }" % (impl, self.fn_body()),
                  'unsigned %salias(unsigned x) __attribute__((alias("%s")));' % (p, target),
                  "unsigned %sdirect(unsigned x) { return %s(x) + 1u; }" % (p, impl),
                  "fz_fn %salias_addr(void) { return %salias; }" % (p, p)]
        self.hdr_c_dev += ["unsigned %salias(unsigned x);" % p, "unsigned %sdirect(unsigned x);" % p,
                           "fz_fn %salias_addr(void);" % p]
        for u in self.users(d, rng.randint(1, 3)):
            self.serial(u, p + "alias", [
                "h = fz_mix(h, %salias(x));" % p,
                "h = fz_mix(h, %salias(x) + 1u == %sdirect(x));" % (p, p),
                "h = fz_mix(h, %salias_addr() == %salias);" % (p, p),
                "h = fz_mix(h, %salias_addr()(x + 1u));" % p])
        self.pure.append(("%salias(@i)" % p, False))

    # printf in kernels of several units (one thread prints each line).
    def feat_printf(self, k):
        rng, p = self.rng, "g%d_" % k
        self.printf = True
        users = rng.sample(self.units, min(len(self.units), rng.randint(2, 3)))
        for j, u in enumerate(users):
            expr = self.pure_for(u)
            word = rng.choice(WORDS[:-1])
            if rng.random() < 0.6:
                value = expr.replace("@i", "x").replace("@x", "x") if expr else "x * 3u"
                self.serial(u, p + "print", [
                    'printf("%sk%d %s %%u %%u\\n", x, %s);' % (p, j, word, value),
                    "h = fz_mix(h, %s);" % value])
            else:
                n = rng.choice([8, 31, 64])
                at = rng.randrange(n)
                value = expr.replace("@i", "i").replace("@x", "x") if expr else "i * x"
                x = small(rng)

                def code(name, j=j, word=word, n=n, at=at, value=value, x=x):
                    return ["unsigned %s(void)" % name, "{", "\tunsigned s = 0, x = %du;" % x,
                            "#pragma omp target teams distribute parallel for reduction(+: s) "
                            "map(tofrom: s)",
                            "\tfor (unsigned i = 0; i < %du; i++) {" % n,
                            "\t\tunsigned v = %s;" % value, "\t\ts += v;",
                            "\t\tif (i == %du)" % at,
                            '\t\t\tprintf("%sp%d %s %%u %%u\\n", i, v);' % (p, j, word),
                            "\t}", "\treturn s;", "}"]
                self.step(u, p + "pprint", code)

    # --- the text --------------------------------------------------------------

    def header(self):
        out = ["/* partition_fuzz.py seed %d */" % self.seed,
               "#ifndef FZ_H", "#define FZ_H"]
        if self.gpu_features:
            out += ["#include <omp.h>", "#include <stdio.h>"]
        out += ["#ifdef __cplusplus", 'extern "C" {', "#endif",
               "#pragma omp declare target",
               "typedef unsigned (*fz_fn)(unsigned);"]
        out += self.hdr_types
        out += ["static inline unsigned fz_mix(unsigned h, unsigned v) "
                "{ return (h ^ v) * 16777619u + 40503u; }",
                "static inline unsigned fz_str(const char *s)",
                "{", "\tunsigned h = 5381u;", "\twhile (*s)",
                "\t\th = h * 33u + (unsigned char)*s++;", "\treturn h;", "}",
                "static inline unsigned fz_len(const char *s)",
                "{", "\tunsigned n = 0;", "\twhile (s[n])", "\t\tn++;", "\treturn n;", "}"]
        out += self.hdr_c_dev
        out += ["#pragma omp end declare target"]
        out += self.hdr_c_plain
        out += ["unsigned u%d_touch(void);" % u.idx for u in self.units]
        out += ["#ifdef __cplusplus", "}"]
        if self.hdr_cxx_dev:
            out += ["#pragma omp declare target"] + self.hdr_cxx_dev + ["#pragma omp end declare target"]
        out += ["#endif", "#endif"]
        return "\n".join(out) + "\n"

    def unit_text(self, u):
        out = ["/* partition_fuzz.py seed %d, unit %d */" % (self.seed, u.idx)]
        if u.idx == 0:
            out.append("#include <stdio.h>")
        out.append('#include "fz.h"')
        if u.idx == 0 and self.printf:
            # clang 19 calls the GPU C library's rpc_fprintf(stdout, ...)
            # for printf on AMDGPU; no such library here, and AMDGPU
            # programs are linked, never run: a stub that prints nothing.
            out += ["#if defined(__AMDGCN__)", "#ifdef __cplusplus", 'extern "C" {', "#endif",
                    "#pragma omp declare target", "FILE *stdout;",
                    "int rpc_fprintf(FILE *f, const char *fmt, void *args, unsigned long size)",
                    "{", "	(void)f;", "	(void)fmt;", "	(void)args;", "	return (int)size;", "}",
                    "#pragma omp end declare target", "#ifdef __cplusplus", "}", "#endif", "#endif"]
        if u.dev:
            out += ["#pragma omp declare target"] + u.dev + ["#pragma omp end declare target"]
        out += u.plain
        ext = 'extern "C" ' if u.lang == "cxx" else ""
        out.append("%sunsigned u%d_touch(void) { return %du; }" % (ext, u.idx, u.idx))
        if u.idx == 0:
            out += ["#pragma omp begin declare variant match(device = {kind(host)})",
                    "static inline int fz_initial(void) { return 1; }",
                    "#pragma omp end declare variant",
                    "#pragma omp begin declare variant match(device = {kind(nohost)})",
                    "static inline int fz_initial(void) { return 0; }",
                    "#pragma omp end declare variant",
                    "int main(void)", "{", "\tint initial = 1;", "\tunsigned t = 0;",
                    "#pragma omp target map(tofrom: initial)", "\tinitial = fz_initial();",
                    '\tprintf("on device: %d\\n", !initial);']
            # With the GPU features each line is flushed: the lines kernels
            # print come between main's, however the device writes them.
            flush = " fflush(stdout);" if self.gpu_features else ""
            if flush:
                out[-1] += flush
            for label, name in self.steps:
                out.append('\tprintf("%s %%u\\n", %s());%s' % (label, name, flush))
            for v in self.units:
                if v.needs_touch:
                    out.append("\tt += u%d_touch();" % v.idx)
            out += ['\tprintf("touch %u\\n", t);', "\treturn 0;", "}"]
        return "\n".join(out) + "\n"

    def describe(self):
        langs = "".join("c" if u.lang == "c" else "x" for u in self.units)
        opts = sorted({u.opt for u in self.units})
        arch = [u.idx for u in self.units if u.archived]
        return "seed %d: %d units (%s), -O%s%s%s, link %s%s, features %s" % (
            self.seed, len(self.units), langs, "/".join(map(str, opts)),
            " -g" if self.debug else "",
            "" if all(u.debug == self.debug for u in self.units) else " (-g mixed)",
            "-O%d" % self.link_opt if self.link_opt is not None else "without -O",
            ", archive of units %s" % ",".join(map(str, arch)) if arch else "",
            ",".join(self.features))

    def write(self, directory):
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "fz.h"), "w") as f:
            f.write(self.header())
        for u in self.units:
            with open(os.path.join(directory, u.source), "w") as f:
                f.write(self.unit_text(u))


# --- building and running -------------------------------------------------------------

class Tools:
    def __init__(self, args):
        self.clang = args.clang
        self.clangxx = args.clangxx
        self.wrapper_dir = args.wrapper_dir
        self.shim = args.shim
        self.ar = shutil.which("llvm-ar-19") or shutil.which("ar")


def compile_cmd(tools, prog, u, extra=()):
    cmd = [tools.clangxx if u.lang == "cxx" else tools.clang, "-fopenmp",
           "-fopenmp-targets=" + TARGET, "-foffload-lto", "-O%d" % u.opt]
    if u.debug:
        cmd.append("-g")
    return cmd + list(extra) + ["-c", u.source, "-o", u.obj]


def link_cmd(tools, prog, mode, out):
    cxx = any(u.lang == "cxx" for u in prog.units)
    cmd = [tools.clangxx if cxx else tools.clang, "-fopenmp", "-fopenmp-targets=" + TARGET]
    if prog.link_opt is not None:
        cmd.append("-O%d" % prog.link_opt)
    cmd += [u.obj for u in prog.units if not u.archived]
    if any(u.archived for u in prog.units):
        cmd.append("libfz.a")
    cmd += ["-o", out, "-B", tools.wrapper_dir, "-Wl,--no-cache"]
    # Full LTO by name too: the default may not stay full LTO.
    cmd.append("-Wl,--device-lto=" + mode)
    return cmd


def host_compile_cmd(tools, prog, u):
    """The unit for the host alone (-O0, no offload target): its target
    regions run on the host, what the program must print whatever links its
    device code."""
    return [tools.clangxx if u.lang == "cxx" else tools.clang, "-fopenmp", "-O0", "-c", u.source,
            "-o", "host-" + u.obj]


def host_link_cmd(tools, prog):
    cxx = any(u.lang == "cxx" for u in prog.units)
    return ([tools.clangxx if cxx else tools.clang, "-fopenmp"] + ["host-" + u.obj for u in prog.units]
            + ["-o", "prog-host"])


def host_truth(text):
    """The host build's output as an offloading build prints it."""
    return text.replace("exit 0\non device: 0\n", "exit 0\non device: 1\n", 1)


def ar_cmd(tools, prog):
    return [tools.ar, "rcs", "libfz.a"] + [u.obj for u in prog.units if u.archived]


def exe_name(mode):
    return "prog-" + mode.replace(":", "-")


def build_env():
    env = dict(os.environ)
    env.pop("OFFLOAD_LINK_DEVICE_LTO", None)
    env["OFFLOAD_LINK_NO_CACHE"] = "1"
    env["LC_ALL"] = "C"
    return env


def short_tmpdir():
    """A directory whose name the tmpfile shim accepts (/tmp/XXXXXX)."""
    chars = string.ascii_letters + string.digits
    for _ in range(100):
        path = "/tmp/" + "".join(random.SystemRandom().choice(chars) for _ in range(6))
        try:
            os.mkdir(path, 0o700)
            return path
        except FileExistsError:
            continue
    raise RuntimeError("no free /tmp/XXXXXX name")


def run_env(tools, tmpdir):
    env = dict(os.environ)
    env["OMP_TARGET_OFFLOAD"] = "MANDATORY"
    env["LD_LIBRARY_PATH"] = OMP_LIBDIR + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH")
                                           else "")
    if tools.shim:
        # LD_PRELOAD splits its list at spaces, and the build tree's path may
        # have one: the shim goes by its name, found in its directory on
        # LD_LIBRARY_PATH.
        env["LD_PRELOAD"] = os.path.basename(tools.shim)
        env["LD_LIBRARY_PATH"] += ":" + os.path.dirname(tools.shim)
        env["OL_TMPFILE_DIR"] = tmpdir
    env.pop("OL_REGISTRATION_LOG", None)
    return env


def right_where_it_differs(out, ref, truth):
    """Does `out` print, on every line where it differs from `ref`, the
    line `truth` prints there?"""
    out_lines, ref_lines, truth_lines = out.split("\n"), ref.split("\n"), truth.split("\n")
    if not len(out_lines) == len(ref_lines) == len(truth_lines):
        return out == truth
    return all(o == r or o == t for o, r, t in zip(out_lines, ref_lines, truth_lines))


def run(cmd, cwd, env, timeout):
    try:
        r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        return "timeout", out, "timed out after %ds" % timeout


def write_program(args, seed):
    """The seed's program, its sources written into a new <work>/seed-<N>:
    (program, directory, environment, details so far)."""
    prog = make_program(args, seed)
    directory = os.path.join(args.work, "seed-%d" % seed)
    if os.path.exists(directory):
        shutil.rmtree(directory)
    prog.write(directory)
    return prog, directory, build_env(), ["# " + prog.describe()]


def build_units(fuzzer, prog, directory, env, details, compile_of):
    """Compiles every unit (compile_of(unit) is its command) and archives
    those that go into the archive; on a failure the program is INVALID
    (recorded) and this returns False."""
    timeout = fuzzer.args.timeout
    for u in prog.units:
        rc, out, err = run(compile_of(u), directory, env, timeout)
        if rc != 0:
            details.append("compile %s: exit %s\n%s%s" % (u.source, rc, out, err))
            fuzzer.finish(prog, directory, "INVALID", "%s does not compile: %s"
                          % (u.source, one_line(err, 300)), "\n".join(details))
            return False
    if any(u.archived for u in prog.units):
        rc, out, err = run(ar_cmd(fuzzer.tools, prog), directory, env, timeout)
        if rc != 0:
            fuzzer.finish(prog, directory, "INVALID", "ar failed: " + one_line(err, 300), err)
            return False
    return True


def repro_script(tools, prog, modes):
    lines = ["#!/bin/sh", "# partition_fuzz.py seed %d: %s" % (prog.seed, prog.describe()),
             "# Builds every mode and runs it on libomptarget 19's CPU device.",
             "set -x", "cd \"$(dirname \"$0\")\"", "unset OFFLOAD_LINK_DEVICE_LTO"]
    for u in prog.units:
        lines.append(shlex.join(compile_cmd(tools, prog, u)))
    if any(u.archived for u in prog.units):
        lines.append("rm -f libfz.a && " + shlex.join(ar_cmd(tools, prog)))
    for mode in modes:
        lines.append(shlex.join(link_cmd(tools, prog, mode, exe_name(mode))))
    run_prefix = "OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=%s" % OMP_LIBDIR
    if tools.shim:
        # The CPU plugin's image files go to a directory removed afterwards.
        lines.append("tmp=$(mktemp -d /tmp/XXXXXX)")
        # The shim by its name, from its directory (see run_env).
        run_prefix = "OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=%s" % shlex.quote(
            OMP_LIBDIR + ":" + os.path.dirname(tools.shim))
        run_prefix += " OL_TMPFILE_DIR=$tmp LD_PRELOAD=%s" % shlex.quote(
            os.path.basename(tools.shim))
    for mode in modes:
        lines.append("%s ./%s; echo \"exit $?\"" % (run_prefix, exe_name(mode)))
    if tools.shim:
        lines.append("rm -rf \"$tmp\"")
    return "\n".join(lines) + "\n"


def copy_sources(src, dest):
    """A program's sources (fz.h, u<N>.c or .cpp) from src to dest."""
    for name in os.listdir(src):
        if name == "fz.h" or re.fullmatch(r"u\d+\.(c|cpp)", name):
            shutil.copy(os.path.join(src, name), dest)


def run_program(tools, exe, cwd, timeout):
    """./exe run on the CPU device: (its output as "exit N\n<stdout>", its stderr)."""
    tmpdir = short_tmpdir()
    try:
        rc, out, err = run(["./" + exe], cwd, run_env(tools, tmpdir), timeout)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return "exit %s\n%s" % (rc, out), err


def one_line(text, limit=600):
    text = text.strip().replace("\n", " | ")
    return text if len(text) <= limit else text[:limit] + " ..."


class Fuzzer:
    def __init__(self, args, tools):
        self.args = args
        self.tools = tools
        self.lock = threading.Lock()
        self.programs = 0
        self.links = 0
        self.differences = 0
        self.full_wrong = 0
        self.compile_wrong = 0
        self.invalid = 0
        self.reported = 0
        self.kernels = 0
        self.better = 0
        self.shared_notes = 0
        self.kinds = {}
        self.findings_dir = os.path.join(args.work, "findings")

    def log(self, msg):
        with self.lock:
            print(msg, flush=True)

    def record(self, prog, directory, kind, line, details):
        with self.lock:
            dest = os.path.join(self.findings_dir, "seed-%d" % prog.seed)
            os.makedirs(self.findings_dir, exist_ok=True)
            if os.path.exists(dest):
                shutil.rmtree(dest)
            os.makedirs(dest)
            copy_sources(directory, dest)
            with open(os.path.join(dest, "repro.sh"), "w") as f:
                f.write(gpu_repro_script(self.tools, prog, self.args.modes, self.args.gpu_archs)
                        if self.args.gpu_archs else repro_script(self.tools, prog, self.args.modes))
            os.chmod(os.path.join(dest, "repro.sh"), 0o755)
            with open(os.path.join(dest, "outputs.txt"), "w") as f:
                f.write(details)
            with open(os.path.join(self.findings_dir, "README"), "a") as f:
                f.write("%s %s: %s\n" % (kind, prog.describe(), line))
            print("%s: seed %d: %s (kept in %s)" % (kind, prog.seed, one_line(line, 300), dest),
                  flush=True)

    def one(self, seed):
        args, tools = self.args, self.tools
        if args.gpu_archs:
            gpu_one(self, seed)
            return
        prog, directory, env, details = write_program(args, seed)
        if not build_units(self, prog, directory, env, details,
                           lambda u: compile_cmd(tools, prog, u)):
            return
        truth = self.host_output(prog, directory, env)
        results = {}
        for mode in args.modes:
            exe = exe_name(mode)
            rc, out, err = run(link_cmd(tools, prog, mode, exe), directory, env, args.timeout)
            with self.lock:
                self.links += 1
            if rc != 0:
                results[mode] = ("link failed (exit %s)" % rc, err)
                continue
            # A partition the verifier rejected is linked whole: right, but
            # the splitter's mistake, which this fuzzer is here to find.
            if "offload-link's splitter" in err:
                results[mode] = ("split fell back to one partition", err)
                continue
            results[mode] = run_program(tools, exe, directory, args.run_timeout)
        for mode in args.modes:
            details.append("== %s: %s\n-- stderr:\n%s" % (mode, results[mode][0], results[mode][1]))
        details = "\n".join(details)
        ref_mode = args.modes[0]
        ref = results[ref_mode][0]
        if not ref.startswith("exit 0\non device: 1\n"):
            self.finish(prog, directory, "INVALID", "%s: %s %s" % (
                ref_mode, one_line(ref, 300), one_line(results[ref_mode][1], 300)), details)
            return
        diffs = []
        for mode in args.modes[1:]:
            if results[mode][0] != ref:
                diffs.append(mode)
        # The reference can be wrong: LLVM 19's full LTO miscompiles some of
        # these programs (upstream's too).  A mode that, on every line where
        # it differs from full LTO, prints what the program run on the host
        # prints, is right there (on the other lines it is as wrong as full
        # LTO, no more).
        if truth is not None and ref != truth:
            details += "\n== host (-O0, no offloading): %s" % truth
            wrong_alike = [m for m in diffs if not right_where_it_differs(results[m][0], ref, truth)]
            if not wrong_alike:
                blame = self.blame(prog, directory, env, truth)
                self.finish(prog, directory, "FULL-LTO-WRONG", "%s differs from the host build: %s /// "
                            "host: %s; %s; %s" % (ref_mode, *self.first_difference(ref, truth),
                                                  ", ".join(m for m in args.modes[1:]
                                                            if results[m][0] == truth) + " right",
                                                  blame),
                            details)
                return
            diffs = wrong_alike
        if diffs:
            line = "; ".join("%s differs: %s: %s /// %s: %s%s" % (
                mode, ref_mode, self.first_difference(ref, results[mode][0])[0], mode,
                self.first_difference(ref, results[mode][0])[1],
                (" (stderr: %s)" % one_line(results[mode][1], 300)) if results[mode][1].strip() else "")
                for mode in diffs)
            self.finish(prog, directory, "DIFFERENCE", line, details, count=len(diffs))
            return
        self.finish(prog, directory, None, None, details)

    @staticmethod
    def first_difference(a, b):
        la, lb = a.splitlines(), b.splitlines()
        for i in range(max(len(la), len(lb))):
            x = la[i] if i < len(la) else "(end)"
            y = lb[i] if i < len(lb) else "(end)"
            if x != y:
                if i == 0:
                    return x, y
                # The differing lines, then the whole outputs.
                return ("line %d '%s' (whole: %s)" % (i + 1, x, one_line(a, 400)),
                        "line %d '%s' (whole: %s)" % (i + 1, y, one_line(b, 400)))
        return one_line(a), one_line(b)

    def blame(self, prog, directory, env, truth):
        """Whose the wrong full-LTO output is: the program compiled with
        the compile's OpenMPOpt off and linked as before (full LTO, whose
        own OpenMPOpt still runs).  Right then: the compile's."""
        args, tools = self.args, self.tools
        where = os.path.join(directory, "compile-check")
        os.makedirs(where, exist_ok=True)
        copy_sources(directory, where)
        steps = [compile_cmd(tools, prog, u, ("-mllvm", "-openmp-opt-disable")) for u in prog.units]
        if any(u.archived for u in prog.units):
            steps.append(ar_cmd(tools, prog))
        steps.append(link_cmd(tools, prog, "full", "prog-full"))
        for cmd in steps:
            if run(cmd, where, env, args.timeout)[0] != 0:
                return "not built with the compile's OpenMPOpt off"
        if run_program(tools, "prog-full", where, args.run_timeout)[0] == truth:
            with self.lock:
                self.compile_wrong += 1
            return "the compile's: right when compiled with -mllvm -openmp-opt-disable"
        return "the link's: still wrong when compiled with -mllvm -openmp-opt-disable"

    def host_output(self, prog, directory, env):
        """The program built for the host alone, its output as an
        offloading build prints it; None when it cannot be built."""
        args, tools = self.args, self.tools
        for u in prog.units:
            if run(host_compile_cmd(tools, prog, u), directory, env, args.timeout)[0] != 0:
                return None
        if run(host_link_cmd(tools, prog), directory, env, args.timeout)[0] != 0:
            return None
        run_env_host = dict(os.environ)
        run_env_host["LD_LIBRARY_PATH"] = OMP_LIBDIR
        rc, out, _ = run(["./prog-host"], directory, run_env_host, args.run_timeout)
        return host_truth("exit %s\n%s" % (rc, out))

    def finish(self, prog, directory, kind, line, details, count=1):
        with self.lock:
            self.programs += 1
            if kind == "DIFFERENCE":
                self.differences += count
            elif kind == "INVALID":
                self.invalid += 1
            elif kind == "FULL-LTO-WRONG":
                self.full_wrong += 1
        if kind:
            self.record(prog, directory, kind, line, details)
        elif self.args.verbose:
            self.log("ok: " + prog.describe())
        if not self.args.keep:
            shutil.rmtree(directory, ignore_errors=True)

    def progress(self, seeds, start):
        if self.args.verbose:
            return
        with self.lock:
            if self.programs // 25 > self.reported // 25:
                self.reported = self.programs
                print("... %d/%d programs, %d links, %d differences, %d invalid (%.0f s)" % (
                    self.programs, len(seeds), self.links, self.differences, self.invalid,
                    time.time() - start), flush=True)


# --- GPU targets: linked, verified and compared kernel by kernel, not run --------------

def kernel_quality():
    """bench/kernel_quality.py, whose readers of a link's kernels (modes,
    nvlink's and the AMDGPU code object's resources, occupancy) this uses."""
    sys.path.insert(0, os.path.join(SOURCE_DIR, "bench"))
    import kernel_quality as kq  # noqa: E402
    return kq


def gpu_compile_cmd(tools, prog, u, archs):
    cmd = [tools.clangxx if u.lang == "cxx" else tools.clang, "-O%d" % u.opt, "-fopenmp",
           "--offload-arch=" + ",".join(archs), "-foffload-lto", "-nogpulib"]
    if u.debug:
        cmd.append("-g")
    return cmd + ["-c", u.source, "-o", u.obj]


def gpu_link_inputs(prog):
    return ["../" + u.obj for u in prog.units if not u.archived] + (
        ["../libfz.a"] if any(u.archived for u in prog.units) else [])


def gpu_link_cmd(tools, prog, mode):
    """The device link alone (offload-link as clang-linker-wrapper, the host
    link /bin/true), with what bench/kernel_quality.py reads: --save-temps,
    --wrapper-verbose (nvlink -v) and AMDGPU's resource remarks."""
    cmd = [os.path.join(tools.wrapper_dir, "clang-linker-wrapper"),
           "--host-triple=x86_64-unknown-linux-gnu", "--cuda-path=" + CUDA,
           "--linker-path=/bin/true", "--save-temps", "--wrapper-verbose", "--no-cache",
           "--pass-remarks-analysis=kernel-resource-usage"]
    # Full LTO by name: the default may not stay full LTO.
    cmd.append("--device-lto=" + mode)
    return cmd + gpu_link_inputs(prog) + ["-L" + OMP_LIBDIR, "-lomptarget.devicertl", "-o", "app"]


def link_dir(mode):
    return "link-" + mode.replace(":", "-")


def gpu_repro_script(tools, prog, modes, archs):
    lines = ["#!/bin/sh", "# partition_fuzz.py seed %d --target %s: %s" % (prog.seed, ",".join(archs),
                                                                          prog.describe()),
             "# Compiles for the GPU targets and links the device code in every mode",
             "# (<mode dir>/link.log: nvlink -v, AMDGPU remarks; --save-temps files).",
             "set -x", "cd \"$(dirname \"$0\")\"", "unset OFFLOAD_LINK_DEVICE_LTO"]
    for u in prog.units:
        lines.append(shlex.join(gpu_compile_cmd(tools, prog, u, archs)))
    if any(u.archived for u in prog.units):
        lines.append("rm -f libfz.a && " + shlex.join(ar_cmd(tools, prog)))
    for mode in modes:
        lines.append("rm -rf %s && mkdir %s && (cd %s && %s > link.log 2>&1; echo \"%s: exit $?\")"
                     % ((link_dir(mode),) * 3 + (shlex.join(gpu_link_cmd(tools, prog, mode)), mode)))
    return "\n".join(lines) + "\n"


def amdgpu_remarks(kq, log, arch):
    """{kernel: {"spills": SGPR + VGPR spills, "scratch": bytes a lane}} from
    the kernel-resource-usage remarks of arch's device LTO."""
    out = {}
    for line in kq.arch_remarks(log, arch):
        m = re.match(r"(\S+): remark:\s+(SGPRs Spill|VGPRs Spill|ScratchSize \[bytes/lane\]): (\d+)",
                     line)
        if m:
            entry = out.setdefault(m.group(1), {"spills": 0, "scratch": 0})
            if m.group(2).startswith("Scratch"):
                entry["scratch"] = int(m.group(3))
            else:
                entry["spills"] += int(m.group(3))
    return out


def nvptx_warps(regs):
    """Warps a sm_90 SM can hold as the kernel's registers allow (65536
    registers, allocated 256 a warp at a time, at most 64 warps)."""
    if not regs:
        return None
    per_warp = -(-regs[0] * 32 // 256) * 256
    return min(64, 65536 // per_warp) if per_warp else 64


def kernel_class(kq, where, log, archs):
    """{(arch, kernel): {"mode", "spills", "stack", "occupancy", "shared", ...}}"""
    found = kq.collect(where, log, archs)
    for arch in archs:
        extra = (kq.ptxas_spills(log, arch) if arch.startswith("sm_")
                 else amdgpu_remarks(kq, log, arch))
        for (a, kernel), e in found.items():
            if a != arch:
                continue
            if arch.startswith("sm_"):
                e["spills"] = extra.get(kernel)
                e["occupancy"] = nvptx_warps(e["regs"])
            else:
                r = extra.get(kernel, {})
                e["spills"] = r.get("spills")
                e["scratch"] = r.get("scratch")
    return found


def compare_kernels(kq, full, part):
    """(worse, better, notes): what a partitioned link changed in a kernel's
    mode or resource class.  Worse: a kernel missing, another mode, spills or
    stack (AMDGPU: scratch, a dynamic stack) where full LTO has none, a lower
    occupancy (NVPTX: warps per SM the registers allow; AMDGPU: waves per SIMD
    as LLVM computes them)."""
    worse, better, notes = [], [], []
    for key in sorted(set(full) | set(part)):
        arch, kernel = key
        name = "%s %s" % (arch, kq.short_kernel(kernel))
        a, b = full.get(key), part.get(key)
        if (a is None or b is None) and re.search(r"device[.$](init|fini)$", kernel):
            # The kernel that runs global constructors: full LTO can
            # evaluate them at link time where partitions cannot see both
            # the constructor and what it reads (or the reverse).
            notes.append("%s: the constructor kernel only in %s" % (
                name, "full LTO" if b is None else "partitioned"))
            continue
        if a is None or b is None:
            worse.append("%s: only in %s" % (name, "full LTO" if b is None else "partitioned"))
            continue
        if a["mode"] != b["mode"]:
            worse.append("%s: mode %s, full LTO %s" % (name, kq.mode_text(b["mode"]),
                                                       kq.mode_text(a["mode"])))
        zero_class = [("spills", a.get("spills"), b.get("spills")), ("stack", a["stack"], b["stack"])]
        if not arch.startswith("sm_"):
            zero_class.append(("scratch", a.get("scratch"), b.get("scratch")))
            zero_class.append(("dynamic stack", int(a["dyn"]), int(b["dyn"])))
        for what, x, y in zero_class:
            if x is None or y is None or bool(x) == bool(y):
                continue
            (worse if y else better).append("%s: %s %s, full LTO %s" % (name, what, y, x))
        x, y = a["occupancy"], b["occupancy"]
        if x is not None and y is not None and x != y:
            (worse if y < x else better).append("%s: occupancy %s, full LTO %s" % (name, y, x))
        if a["shared"] != b["shared"]:
            notes.append("%s: shared memory %s, full LTO %s" % (name, b["shared"], a["shared"]))
    return worse, better, notes


def verify_bitcode(where, log, timeout):
    """LLVM's verifier on every partition's bitcode --save-temps left (before
    and after its optimization): [(file, message)] of those it rejects."""
    m = re.search(r"loaded LLVM (\d+)\.", log)
    opt = shutil.which("opt-%s" % (m.group(1) if m else "19")) or shutil.which("opt-19")
    bad = []
    for name in sorted(os.listdir(where)):
        if not re.search(r"\.part\d+\.(postlink|postopt)\.bc$", name):
            continue
        rc, out, err = run([opt, "-disable-output", "-passes=verify", name], where, None, timeout)
        if rc != 0:
            bad.append((name, one_line(err, 300)))
    return bad


def gpu_one(fuzzer, seed):
    args, tools = fuzzer.args, fuzzer.tools
    kq = kernel_quality()
    prog, directory, env, details = write_program(args, seed)
    if not build_units(fuzzer, prog, directory, env, details,
                       lambda u: gpu_compile_cmd(tools, prog, u, args.gpu_archs)):
        return
    classes, problems, better, notes = {}, [], [], []
    for mode in args.modes:
        where = os.path.join(directory, link_dir(mode))
        os.makedirs(where)
        rc, out, err = run(gpu_link_cmd(tools, prog, mode), where, env, args.timeout)
        log = out + err
        with open(os.path.join(where, "link.log"), "w") as f:
            f.write(log)
        with fuzzer.lock:
            fuzzer.links += 1
        details.append("== %s: exit %s\n%s" % (mode, rc, "\n".join(
            l for l in log.splitlines() if re.search(r"warning|error|LLVM ERROR", l))))
        if rc != 0:
            if mode == args.modes[0]:
                fuzzer.finish(prog, directory, "INVALID", "%s link failed (exit %s): %s" % (
                    mode, rc, one_line(log[-600:], 300)), "\n".join(details))
                return
            problems.append("%s: link failed (exit %s): %s" % (mode, rc, one_line(log[-600:], 200)))
            continue
        # A partition the verifier rejected is optimized whole: the link is
        # right, but it is the splitter's mistake, which this is here to find.
        for line in log.splitlines():
            if "offload-link's splitter" in line or "split again as one partition" in line:
                problems.append("%s: %s" % (mode, one_line(line, 300)))
        for name, why in verify_bitcode(where, log, args.timeout):
            problems.append("%s: %s fails LLVM's verifier: %s" % (mode, name, why))
        classes[mode] = kernel_class(kq, where, log, args.gpu_archs)
        if not classes[mode]:
            problems.append("%s: no kernel found in the link's files" % mode)
    ref = args.modes[0]
    for mode in args.modes[1:]:
        if mode not in classes or ref not in classes:
            continue
        w, b, n = compare_kernels(kq, classes[ref], classes[mode])
        problems += ["%s: %s" % (mode, x) for x in w]
        with fuzzer.lock:
            for x in w:
                kind = re.sub(r"^\S+ \S+: (mode|only in|spills|stack|scratch|dynamic stack|occupancy).*",
                              r"\1", x)
                if kind == "mode":
                    kind = x.split(": ", 1)[1]
                    kind = re.sub(r"^mode (\S+), full LTO (\S+)$", r"mode \2 -> \1", kind)
                fuzzer.kinds[mode + ": " + kind] = fuzzer.kinds.get(mode + ": " + kind, 0) + 1
        better += ["%s: %s" % (mode, x) for x in b]
        notes += ["%s: %s" % (mode, x) for x in n]
    with fuzzer.lock:
        fuzzer.kernels += sum(len(c) for c in classes.values())
        fuzzer.better += len(better)
        fuzzer.shared_notes += len(notes)
    if better or notes:
        details.append("== kernels partitioned LTO made better or whose shared memory differs:\n"
                       + "\n".join(better + notes))
        if args.verbose:
            fuzzer.log("seed %d: %s" % (seed, "; ".join(better + notes)))
    if problems:
        fuzzer.finish(prog, directory, "DIFFERENCE", "; ".join(problems), "\n".join(details),
                      count=len(problems))
        return
    fuzzer.finish(prog, directory, None, None, "\n".join(details))


# --- staging NVPTX programs for a GPU machine (scripts/gpu-check.sh run) -----------

# (linkage, offload-link's --device-lto=, or None for clang's own wrapper):
# upstream's linkage tells a program that fails alike both ways on the GPU
# from a fault of offload-link's own full LTO.
STAGE_LINKAGES = [("full", "full"), ("partdef", "partitioned"), ("upstream19", None)]


def stage_cc(tools, lang, arch):
    return [tools.clangxx if lang == "cxx" else tools.clang, "-fopenmp", "--offload-arch=" + arch,
            "--cuda-path=" + CUDA, "--libomptarget-nvptx-bc-path=" + OMP_LIBDIR, "-foffload-lto",
            "-Wno-unused-command-line-argument"]


def stage_one(fuzzer, seed, dest_root, arch):
    """Seed's program for arch, linked for real with full LTO (full),
    --device-lto=partitioned (partdef) and clang's own wrapper (upstream19)
    into dest_root/progs/fuzz-<seed>/<linkage>/ with RT (omp22) and EXPECTED
    (what the host-only build prints), the executable stripped and xz-packed."""
    args, tools = fuzzer.args, fuzzer.tools
    prog = make_program(args, seed)
    directory = os.path.join(args.work, "stage-%d" % seed)
    shutil.rmtree(directory, ignore_errors=True)
    prog.write(directory)
    env = build_env()
    cxx = any(u.lang == "cxx" for u in prog.units)
    for u in prog.units:
        cmd = stage_cc(tools, u.lang, arch) + ["-O%d" % u.opt] + (["-g"] if u.debug else []) + [
            "-c", u.source, "-o", u.obj]
        rc, out, err = run(cmd, directory, env, args.timeout)
        if rc != 0:
            return "seed %d: %s does not compile: %s" % (seed, u.source, one_line(err, 300))
    if any(u.archived for u in prog.units):
        run(ar_cmd(tools, prog), directory, env, args.timeout)
    truth = fuzzer.host_output(prog, directory, env)
    if truth is None or not truth.startswith("exit 0\non device: 1\n"):
        return "seed %d: the host-only build does not run: %s" % (seed, one_line(truth or "", 200))
    expected = truth.split("\n", 1)[1]
    name = "fuzz-%d" % seed
    for linkage, mode in STAGE_LINKAGES:
        dest = os.path.join(dest_root, "progs", name, linkage)
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        cmd = stage_cc(tools, "cxx" if cxx else "c", arch) + \
            [u.obj for u in prog.units if not u.archived] + \
            (["libfz.a"] if any(u.archived for u in prog.units) else []) + \
            ["-L" + OMP_LIBDIR, "-o", os.path.join(dest, name)]
        if mode:
            cmd += ["-B", tools.wrapper_dir, "-Wl,--no-cache", "-Wl,--device-lto=" + mode]
        rc, out, err = run(cmd, directory, env, args.timeout)
        if rc != 0:
            return "seed %d: the %s link failed: %s" % (seed, linkage, one_line(err, 300))
        for line in err.splitlines():
            if "offload-link's splitter" in line:
                return "seed %d: %s: %s" % (seed, linkage, one_line(line, 300))
        run(["strip", os.path.join(dest, name)], directory, env, args.timeout)
        run(["xz", "-9e", "-T1", os.path.join(dest, name)], directory, env, args.timeout)
        with open(os.path.join(dest, "RT"), "w") as f:
            f.write("omp22\n")
        with open(os.path.join(dest, "EXPECTED"), "w") as f:
            f.write(expected)
    if not args.keep:
        shutil.rmtree(directory, ignore_errors=True)
    return None


def stage_gpu(fuzzer, seeds):
    args = fuzzer.args
    arch = [a for a in args.gpu_archs if a.startswith("sm_")]
    if len(arch) != 1:
        print("partition_fuzz.py: --stage-gpu needs one sm_XX among --target", file=sys.stderr)
        return 2
    arch = arch[0]
    root = os.path.abspath(args.stage_gpu)
    os.makedirs(os.path.join(root, "progs"), exist_ok=True)
    failed = 0
    for seed in seeds:
        why = stage_one(fuzzer, seed, root, arch)
        if why:
            failed += 1
            print("stage: " + why, flush=True)
        else:
            print("staged fuzz-%d: %s" % (seed, make_program(args, seed).describe()), flush=True)
    # scripts/gpu-check.sh's libomptarget 22, when its stage has packed it.
    tarball = os.path.join(SOURCE_DIR, ".gpu-check-cache", "rt", "omp22.tar.xz")
    if os.path.exists(tarball):
        os.makedirs(os.path.join(root, "rt"), exist_ok=True)
        shutil.copy(tarball, os.path.join(root, "rt", "omp22.tar.xz"))
    else:
        print("stage: no %s: run scripts/gpu-check.sh stage once (it packs libomptarget 22), or "
              "copy its rt/ here" % tarball)
    with open(os.path.join(root, "STAGED"), "w") as f:
        f.write("arch %s\nstaged %s by partition_fuzz.py --stage-gpu (seeds %s)\n" % (
            arch, time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime()),
            "%d..%d" % (seeds[0], seeds[-1]) if seeds == list(range(seeds[0], seeds[-1] + 1))
            else ",".join(map(str, seeds))))
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)
    print("staged %d programs (%d failed) into %s: %.1f MiB" % (len(seeds) - failed, failed, root,
                                                               size / 1048576.0))
    return 1 if failed else 0


def make_program(args, seed):
    return Program(seed, gpu_features=args.gpu_features, gpu_compile=bool(args.gpu_archs))


def parse_seeds(args):
    if args.quick:
        return list(QUICK_SEEDS)
    if args.seeds:
        seeds = []
        for part in args.seeds.split(","):
            m = re.fullmatch(r"\s*(\d+)\s*(?:\.\.\s*(\d+)\s*)?", part)
            if not m:
                raise SystemExit("partition_fuzz.py: --seeds: expected A..B or N[,..], got '%s'" % part)
            lo = int(m.group(1))
            hi = int(m.group(2)) if m.group(2) is not None else lo
            seeds += list(range(lo, hi + 1))
        return seeds
    start = args.seed_start if args.seed_start is not None else 0
    return list(range(start, start + (args.count if args.count is not None else 20)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", help="A..B (both included), or a comma-separated list of seeds and ranges")
    ap.add_argument("--seed-start", type=int, help="first seed (with --count; default 0)")
    ap.add_argument("--count", type=int, help="how many seeds from --seed-start (default 20)")
    ap.add_argument("--quick", action="store_true", help="the fixed seeds ctest runs: %s" % QUICK_SEEDS)
    ap.add_argument("--jobs", type=int, default=2, help="programs built at once (default 2)")
    ap.add_argument("--work", help="work directory (default: a new one under $TMPDIR); findings "
                    "go to <work>/findings")
    ap.add_argument("--keep", action="store_true", help="keep every program's directory")
    ap.add_argument("--modes", default=",".join(MODES),
                    help="modes, the reference first (default %s)" % ",".join(MODES))
    ap.add_argument("--clang", default="clang-19")
    ap.add_argument("--clangxx", default="clang++-19")
    ap.add_argument("--wrapper-dir", default=os.path.join(SOURCE_DIR, "build", "libexec", "offload-link"),
                    help="the -B directory holding offload-link as clang-linker-wrapper")
    ap.add_argument("--shim", help="the tests' preload module (ol-e2e-preload.so: keeps the CPU "
                    "plugin's image files out of /tmp); default: <build>/test/e2e's if there")
    ap.add_argument("--timeout", type=int, default=300, help="seconds a compile or link may take")
    ap.add_argument("--run-timeout", type=int, default=60, help="seconds a program may run")
    ap.add_argument("--emit", metavar="DIR", help="write the seeds' sources and repro.sh to "
                    "DIR/seed-<N> and stop")
    ap.add_argument("--describe", action="store_true", help="print what each seed's program holds and stop")
    ap.add_argument("--target", default="x86_64", help="x86_64 (default: built and run on the CPU "
                    "device), or GPU architectures, e.g. sm_90,gfx942: compiled for all of them at once, "
                    "linked (not run), each partition verified, each kernel's mode and resource class "
                    "compared with full LTO's")
    ap.add_argument("--gpu-features", action="store_true", help="add what GPU code has (team shared "
                    "memory, a global object's virtual calls, an alias, printf in kernels); on with "
                    "GPU targets; a seed's program without it is unchanged")
    ap.add_argument("--stage-gpu", metavar="DIR", help="with --target sm_XX: link each seed's program "
                    "for real (full LTO, partitioned, and clang's own wrapper) into "
                    "DIR/progs/fuzz-<seed>/{full,partdef,upstream19} for "
                    "scripts/gpu-check.sh run, and stop")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    targets = [t.strip() for t in args.target.split(",") if t.strip()]
    args.gpu_archs = [t for t in targets if t not in ("x86_64", TARGET)]
    if args.gpu_archs and len(args.gpu_archs) != len(targets):
        raise SystemExit("partition_fuzz.py: --target: x86_64 and GPU architectures are separate runs")
    for arch in args.gpu_archs:
        if not re.fullmatch(r"(sm_\d+a?|gfx\w+)", arch):
            raise SystemExit("partition_fuzz.py: --target: sm_XX or gfxNNN, not '%s'" % arch)
    if args.gpu_archs:
        args.gpu_features = True
        if args.modes == ",".join(MODES):
            args.modes = ",".join(GPU_MODES)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    seeds = parse_seeds(args)

    if args.describe:
        for seed in seeds:
            print(make_program(args, seed).describe())
        return 0

    for tool in (args.clang, args.clangxx):
        if not shutil.which(tool):
            print("partition_fuzz.py: skipped: %s is not installed" % tool)
            return SKIP
    if args.gpu_archs:
        for need in ([os.path.join(CUDA, "bin", "nvlink")] if any(a.startswith("sm_") for a in
                                                                 args.gpu_archs) else []) + \
                [os.path.join(OMP_LIBDIR, "libomptarget.devicertl.a")]:
            if not os.path.exists(need):
                print("partition_fuzz.py: skipped: no %s" % need)
                return SKIP
    if not os.path.exists(os.path.join(OMP_LIBDIR, "libomptarget.so")):
        print("partition_fuzz.py: skipped: libomptarget 19 (%s/libomptarget.so) is not installed"
              % OMP_LIBDIR)
        return SKIP
    args.clang = shutil.which(args.clang)
    args.clangxx = shutil.which(args.clangxx)
    args.wrapper_dir = os.path.abspath(args.wrapper_dir)
    if not os.access(os.path.join(args.wrapper_dir, "clang-linker-wrapper"), os.X_OK):
        print("partition_fuzz.py: no clang-linker-wrapper in %s (build offload-link, or pass "
              "--wrapper-dir)" % args.wrapper_dir, file=sys.stderr)
        return 2
    if not args.shim:
        candidate = os.path.join(os.path.dirname(os.path.dirname(args.wrapper_dir)), "test", "e2e",
                                 "ol-e2e-preload.so")
        if os.path.exists(candidate):
            args.shim = candidate
    if args.shim:
        args.shim = os.path.abspath(args.shim)
    tools = Tools(args)

    if args.emit:
        for seed in seeds:
            prog = make_program(args, seed)
            d = os.path.join(args.emit, "seed-%d" % seed)
            prog.write(d)
            with open(os.path.join(d, "repro.sh"), "w") as f:
                f.write(gpu_repro_script(tools, prog, args.modes, args.gpu_archs) if args.gpu_archs
                        else repro_script(tools, prog, args.modes))
            os.chmod(os.path.join(d, "repro.sh"), 0o755)
            print("%s: %s" % (d, prog.describe()))
        return 0

    if args.work:
        os.makedirs(args.work, exist_ok=True)
    else:
        args.work = tempfile.mkdtemp(prefix="partition-fuzz-")
    args.work = os.path.abspath(args.work)
    findings = os.path.join(args.work, "findings")
    if os.path.exists(findings):
        shutil.rmtree(findings)
    if not args.shim and not args.gpu_archs:
        print("partition_fuzz.py: note: no preload shim: the CPU plugin leaves /tmp/tmpfile_* "
              "files behind", file=sys.stderr)

    fuzzer = Fuzzer(args, tools)
    if args.stage_gpu:
        return stage_gpu(fuzzer, seeds)
    start = time.time()
    print("partition_fuzz.py: %d programs (seeds %s), target %s, modes %s, %d jobs, work %s" % (
        len(seeds), "%d..%d" % (seeds[0], seeds[-1]) if seeds == list(range(seeds[0], seeds[-1] + 1))
        else ",".join(map(str, seeds)), ",".join(targets) + (" with the GPU features" if
                                                             args.gpu_features else ""),
        ",".join(args.modes), args.jobs, args.work), flush=True)

    def task(seed):
        try:
            fuzzer.one(seed)
        except Exception as e:  # a bug of this script: say which seed
            fuzzer.log("ERROR: seed %d: %r" % (seed, e))
            with fuzzer.lock:
                fuzzer.invalid += 1
                fuzzer.programs += 1
        fuzzer.progress(seeds, start)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(task, seeds))
    if fuzzer.invalid:
        print("%d programs invalid with %s (a generator bug): see %s/README" % (
            fuzzer.invalid, args.modes[0], findings))
    if fuzzer.differences:
        print("findings: %s/README" % findings)
    print("partition_fuzz.py: %.0f s" % (time.time() - start))
    if args.gpu_archs:
        print("%d kernels compared (kernel x target x mode); partitioned LTO better in %d "
              "(fewer spills or stack, higher occupancy), shared memory different in %d"
              % (fuzzer.kernels, fuzzer.better, fuzzer.shared_notes))
        for kind, n in sorted(fuzzer.kinds.items()):
            print("  kernels worse: %s: %d" % (kind, n))
    print("%d programs, %d links, %d differences" % (fuzzer.programs, fuzzer.links,
                                                     fuzzer.differences)
          + ("; %d where full LTO (the reference) differs from the host build and no "
             "partitioned mode is wrong where it is right (FULL-LTO-WRONG), %d of them "
             "right when compiled with -mllvm -openmp-opt-disable"
             % (fuzzer.full_wrong, fuzzer.compile_wrong) if fuzzer.full_wrong else ""))
    return 1 if fuzzer.differences or fuzzer.invalid else 0


if __name__ == "__main__":
    sys.exit(main())
