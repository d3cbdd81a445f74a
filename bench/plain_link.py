#!/usr/bin/env python3
"""What offload-link adds to a host link that carries no offloading data.

  bench/plain_link.py [--objects 200] [--pairs 100] [--offload-link PATH]

Compiles OBJECTS small C files and a main with gcc, takes the link line gcc
gives its linker (collect2's, run as /usr/bin/ld), and times three commands
in turn, round after round, as whole processes (spawn to reaped):

  ld            /usr/bin/ld LINE
  offload-link  offload-link --linker-path=/usr/bin/ld -- LINE
  wrapper       a minimal wrapper: vfork, exec /usr/bin/ld LINE, wait

and prints each one's median and the median of its difference from ld
round by round (a pair shares the machine's state of the moment).  The
minimal wrapper does nothing but be a second process; what it costs any
wrapper pays, and offload-link's own share is the difference between the
two.  Run it on a quiet machine: another job beside it moves every number.
"""

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

WRAPPER_C = r"""
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc < 2)
		return 2;
	pid = vfork();
	if (pid == 0) {
		execv(argv[1], argv + 1);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
"""


def linker_line(work, objects):
    """collect2's arguments for `gcc -o app main.o o*.o` (gcc -### prints them)."""
    cmd = ["gcc", "-###", "-o", "app", "main.o"] + objects
    err = subprocess.run(cmd, cwd=work, capture_output=True, text=True, check=True).stderr
    for line in err.splitlines():
        words = shlex.split(line)
        if words and os.path.basename(words[0]) == "collect2":
            # collect2's own options go; the rest is the ld line.
            rest, skip = [], 0
            for w in words[1:]:
                if skip:
                    skip -= 1
                    continue
                if w == "-plugin" or w.startswith("-plugin-opt") or w.startswith("-fresolution"):
                    skip = 1 if w == "-plugin" else 0
                    continue
                rest.append(w)
            return rest
    sys.exit("plain_link.py: gcc -### printed no collect2 line")


def prepare(work, nobjects):
    objects = []
    for i in range(nobjects):
        src = os.path.join(work, f"o{i}.c")
        with open(src, "w") as f:
            f.write(f"int f{i}(int x) {{ return x * {i + 1} + {i}; }}\n")
        objects.append(f"o{i}.o")
    with open(os.path.join(work, "main.c"), "w") as f:
        f.write("int f0(int);\nint main(void) { return f0(0); }\n")
    sources = [f"o{i}.c" for i in range(nobjects)] + ["main.c"]
    subprocess.run(["gcc", "-O2", "-c"] + sources, cwd=work, check=True)
    with open(os.path.join(work, "wrapper.c"), "w") as f:
        f.write(WRAPPER_C)
    subprocess.run(["gcc", "-O2", "-o", "wrapper", "wrapper.c"], cwd=work, check=True)
    return linker_line(work, objects)


def run_once(argv, devnull):
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"plain_link.py: {argv[0]} failed")
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--objects", type=int, default=200)
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--offload-link", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin", "offload-link"))
    args = ap.parse_args()
    tool = os.path.abspath(args.offload_link)
    if not os.access(tool, os.X_OK):
        sys.exit(f"plain_link.py: no offload-link at {tool} (build first, or --offload-link)")

    work = tempfile.mkdtemp(prefix="ol-plain-link-")
    try:
        line = prepare(work, args.objects)
        commands = {
            "ld": ["/usr/bin/ld"] + line,
            "offload-link": [tool, "--linker-path=/usr/bin/ld", "--"] + line,
            "wrapper": [os.path.join(work, "wrapper"), "/usr/bin/ld"] + line,
        }
        os.chdir(work)
        devnull = os.open(os.devnull, os.O_WRONLY)
        times = {name: [] for name in commands}
        for round_no in range(args.pairs + 3):
            for name, argv in commands.items():
                t = run_once(argv, devnull)
                if round_no >= 3:     # three rounds warm the page cache
                    times[name].append(t)
        base = times["ld"]
        print(f"{args.objects} objects, {args.pairs} rounds; medians in ms")
        for name, ts in times.items():
            diff = statistics.median(a - b for a, b in zip(ts, base))
            print(f"  {name:13} {1e3 * statistics.median(ts):8.3f}   over ld {1e3 * diff:6.3f}")
    finally:
        os.chdir("/")
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
