"""What the differential tests share: running a wrapper, finding the host
linker's command in what it printed, making temporary names comparable, and
reading the differences docs/compat.md accepts.

A wrapper run with --dry-run (or --wrapper-verbose) prints each command it
would run as ' "<program>" arg arg ...' on stderr; the host linker's is the
one whose program is the --linker-path.  Two runs are the same when they end
alike (both succeed or both fail) and print the same host linker commands
once the random parts of temporary names are made equal.
"""

import os
import re
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

# The random part of a temporary name: upstream's createTemporaryFile writes
# "<prefix>-<6 hex>.<ext>", offload-link's mkstemp "<prefix>-<6 alnum>.<ext>".
_TEMP_SUFFIX = re.compile(r"-[0-9A-Za-z]{6}(?=\.[A-Za-z0-9]+(\s|$))")
# offload-link's host link writes a private output, renamed on success
# (docs/compat.md, "No output from a failed link").
_PRIVATE_OUTPUT = re.compile(r"\.tmp-[0-9A-Za-z]{6}(?=\s|$)")


class Run:
    """One wrapper run: its exit status and the host linker command."""

    def __init__(self, status, host_lines, stderr):
        self.status = status
        self.host_lines = host_lines
        self.stderr = stderr

    def same_as(self, other):
        return (self.status == 0) == (other.status == 0) and self.host_lines == other.host_lines

    def describe(self):
        lines = self.host_lines or ["(no host link)"]
        return "exit %d: %s" % (self.status, " | ".join(lines))


def normalize(line, temp_dirs):
    """The host command with the random parts of temporary names made equal."""
    # The directories first: their paths may have spaces (the build tree's),
    # and the words are split at spaces.
    for d in temp_dirs:
        line = line.replace(d, "$TMP/")
    words = []
    for word in line.split(" "):
        if word.startswith("$TMP/") or word.startswith('"$TMP/'):
            word = _TEMP_SUFFIX.sub("-XXXXXX", word)
        word = _PRIVATE_OUTPUT.sub("", word)
        words.append(word)
    return " ".join(words)


_DEVICE_IMAGE_OUTPUT = re.compile(r" -o \S+\.img( |$)")


def host_lines(stderr, linker_path, temp_dirs):
    """The host link: the last command run with the linker path, but for a
    CPU target's device link, which may run the same linker (both tools name
    a linked device image *.img)."""
    prefix = ' "%s" ' % linker_path
    out = []
    for line in stderr.splitlines():
        if line.startswith(prefix) or line == prefix.rstrip():
            # Normalized first: the image's directory may have a space.
            line = normalize(line.rstrip(), temp_dirs)
            if not _DEVICE_IMAGE_OUTPUT.search(line):
                out = [line]
    return out


def run_wrapper(argv, cwd, linker_path, env=None, timeout=120):
    """Runs one wrapper command in cwd with its own TMPDIR (cwd/tmp)."""
    tmp = os.path.join(cwd, "tmp")
    os.makedirs(tmp, exist_ok=True)
    run_env = dict(os.environ if env is None else env)
    run_env["TMPDIR"] = tmp
    run_env["LC_ALL"] = "C"
    try:
        p = subprocess.run(argv, cwd=cwd, env=run_env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
        err = p.stderr.decode("utf-8", "replace")
        status = p.returncode
    except subprocess.TimeoutExpired:
        err, status = "timed out after %d s" % timeout, 124
    # Save-temps names are relative to cwd; temporary ones live in tmp.
    return Run(status, host_lines(err, linker_path, [tmp + "/", cwd + "/"]), err)


def run_all(jobs, fn, items):
    """fn(item) for every item on `jobs` threads (each call runs processes)."""
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(fn, items))


# ---- docs/compat.md: the differences a test accepts -------------------------

class Accepted:
    """One row of an accepted-differences table: release, shape, option
    (each '*' or a comma-separated list) and the reason."""

    def __init__(self, release, shape, option, reason, line):
        self.release, self.shape, self.option = release, shape, option
        self.reason, self.line = reason, line
        self.used = 0

    def matches(self, release, shape, option):
        def cell(value, text):
            return text == "*" or value in [t.strip().strip("`") for t in text.split(",")]
        return cell(str(release), self.release) and cell(shape, self.shape) and \
            cell(option, self.option)


def read_accepted(compat_md, heading):
    """The table under `heading` in docs/compat.md: | release | shape | option | reason |."""
    rows, inside, found = [], False, False
    with open(compat_md, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.startswith("#"):
                inside = line.strip().lstrip("#").strip() == heading
                found |= inside
                continue
            if not inside or not line.startswith("|"):
                continue
            cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
            if len(cells) != 4 or cells[0] in ("release",) or set(cells[0]) <= set("-: "):
                continue
            if not cells[3]:
                raise SystemExit("%s:%d: an accepted difference needs its reason" % (compat_md, number))
            rows.append(Accepted(cells[0], cells[1], cells[2], cells[3], number))
    if not found:
        raise SystemExit("%s: no heading '%s'" % (compat_md, heading))
    return rows


def find_accepted(rows, release, shape, option):
    for row in rows:
        if row.matches(release, shape, option):
            row.used += 1
            return row
    return None


def report(title, cases, differences, rows, started):
    """Prints the summary; returns the exit status (1 on any undocumented
    difference, or on an accepted one that no case shows any more)."""
    undocumented = [d for d in differences if d[1] is None]
    stale = [r for r in rows if not r.used]
    for case, _, ours, theirs in undocumented:
        print("DIFFERENT %s\n  upstream:     %s\n  offload-link: %s" % (case, theirs.describe(),
                                                                       ours.describe()))
    for row in stale:
        print("STALE docs/compat.md:%d: %s %s %s: no case differs any more" % (
            row.line, row.release, row.shape, row.option))
    print("%s: %d cases, %d identical, %d documented differences, %d undocumented, "
          "%d stale entries; %.1f s" % (title, cases, cases - len(differences),
                                         len(differences) - len(undocumented), len(undocumented),
                                         len(stale), time.time() - started))
    return 1 if undocumented or stale else 0
