#!/usr/bin/env python3
"""help-overlap.py: does offload-link's help share a sentence with upstream's?

    scripts/help-overlap.py [--max-words N] OFFLOAD_LINK UPSTREAM_WRAPPER...

Runs OFFLOAD_LINK with --help and --help-hidden (also as each release,
--offload-abi=16/19/22, whose records differ), and each UPSTREAM_WRAPPER (an
installed clang-linker-wrapper) with --help and --help-hidden, and looks for
runs of words both print: more than N (6) words in a row fails.

The option names and their placeholders ("--linker-path=<path>") are the
interface offload-link must share, so they are not compared: the name column
is left out, and a spelling or placeholder inside a description ends a run
rather than taking part in one.  Words are compared lowercase, punctuation
around them dropped.  A run never spans two options' descriptions.

Prints, per upstream wrapper, the longest run found, and each run over the
limit with the option it is in on both sides; exits 1 if there is one.
"""
import argparse
import re
import subprocess
import sys


def help_text(program, args):
    run = subprocess.run([program] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, check=False)
    return run.stdout


def segments(text):
    """The text's pieces of prose: (where, words) for the overview (one per
    paragraph), each option's description and each command's summary."""
    lines = text.splitlines()
    # The description column: where the text of a continuation line starts
    # (llvm::opt puts a long name on a line of its own, its text below).
    column = None
    in_options = False
    for line in lines:
        if line.startswith("OPTIONS:"):
            in_options = True
        elif in_options and line.strip() and not line.startswith("  -") and line.startswith("   "):
            column = len(line) - len(line.lstrip(" "))
            break
    out = []
    where, words = "overview", []
    section = "overview"

    def flush():
        if words:
            out.append((where, list(words)))
        words.clear()

    for line in lines:
        if re.match(r"^[A-Z]+:", line):
            flush()
            section = line.split(":")[0].lower()
            where = section
            rest = line.split(":", 1)[1]
            words.extend(tokens(rest))
            continue
        if section == "overview" and not line.strip():
            flush()
            continue
        if section == "options" and line.startswith("  -"):
            flush()
            # A name longer than the column has the line to itself.
            described = column and len(line) > column and line[column - 1] == " "
            where = line[2:column].strip() if described else line[2:].strip()
            if described:
                words.extend(tokens(line[column:]))
            continue
        if section == "commands" and line.startswith("  ") and not line.startswith("   "):
            flush()
            where = "command " + line.strip()
            continue
        words.extend(tokens(line))
    flush()
    return out


# A spelling ("--help", "-mllvm", "/out:") or a placeholder ("<dir>") ends a run.
BREAK = None


def tokens(text):
    # Placeholders may hold spaces: "<options to passed to the linker>".
    text = re.sub(r"<[^<>]*>", " \0 ", text)
    out = []
    for raw in text.split():
        word = raw.strip(".,;:()[]'\"`")
        if raw == "\0" or word.startswith("-") or re.match(r"^/[a-z]+:?$", word) or "=" in word:
            out.append(BREAK)
        elif word:
            out.append(word.lower())
    return out


def runs(words):
    """The maximal runs of words between breaks."""
    run = []
    for w in words + [BREAK]:
        if w is BREAK:
            if run:
                yield run
            run = []
        else:
            run.append(w)


def longest_shared(ours, theirs):
    """The longest run of words in both (a list), by dynamic programming."""
    best = (0, 0)
    prev = [0] * (len(theirs) + 1)
    for i in range(1, len(ours) + 1):
        cur = [0] * (len(theirs) + 1)
        for j in range(1, len(theirs) + 1):
            if ours[i - 1] == theirs[j - 1]:
                cur[j] = prev[j - 1] + 1
                if cur[j] > best[0]:
                    best = (cur[j], i)
        prev = cur
    return ours[best[1] - best[0]:best[1]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-words", type=int, default=6)
    ap.add_argument("offload_link")
    ap.add_argument("upstream", nargs="+")
    a = ap.parse_args()

    ours = []
    for args in (["--help"], ["--help-hidden"], ["--offload-abi=16", "--help-hidden"],
                 ["--offload-abi=19", "--help-hidden"], ["--offload-abi=22", "--help-hidden"]):
        ours += segments(help_text(a.offload_link, args))
    failed = False
    for upstream in a.upstream:
        theirs = segments(help_text(upstream, ["--help"])) + \
            segments(help_text(upstream, ["--help-hidden"]))
        if len(theirs) < 10:
            print("%s: its help has no options to compare (%d pieces)" % (upstream, len(theirs)))
            failed = True
            continue
        longest, found = [], {}
        for our_where, our_words in ours:
            for our_run in runs(our_words):
                for their_where, their_words in theirs:
                    for their_run in runs(their_words):
                        shared = longest_shared(our_run, their_run)
                        if len(shared) > len(longest):
                            longest = shared
                        if len(shared) > a.max_words:
                            found[" ".join(shared)] = (our_where, their_where)
        print("%s: %d pieces of ours against %d of its; longest shared run: %d words (%s)"
              % (upstream, len(ours), len(theirs), len(longest), " ".join(longest)))
        for run, (our_where, their_where) in sorted(found.items()):
            print("  over %d words: \"%s\" (ours: %s; upstream: %s)"
                  % (a.max_words, run, our_where, their_where))
            failed = True
    print("FAIL: shared runs of more than %d words" % a.max_words if failed
          else "OK: no shared run of more than %d words" % a.max_words)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
