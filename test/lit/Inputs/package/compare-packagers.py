#!/usr/bin/env python3
"""Packages random images with random keys through the upstream packagers
(clang-offload-packager 16 and 19, llvm-offload-binary 22) and through
`offload-link package --release=N`, and fails unless the outputs are equal
byte for byte and the exit statuses agree.

usage: compare-packagers.py OFFLOAD-LINK WORKDIR SEED TRIALS
The keys decide the order of the string entries (the packager's hash maps),
so they vary in number and length; repeated keys are joined with ','."""
import os
import random
import string
import subprocess
import sys

tool, workdir, seed, trials = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
upstream = {
    "16": "/usr/lib/llvm-16/bin/clang-offload-packager",
    "19": "/usr/lib/llvm-19/bin/clang-offload-packager",
    "22": "/usr/lib/llvm-22/bin/llvm-offload-binary",
}
os.chdir(workdir)
with open("img.o", "wb") as f:
    f.write(b"ABCDEFGHIJ")
with open("b.cubin", "wb") as f:
    f.write(b"XYZ")
with open("c.bc", "wb") as f:
    f.write(b"BC\xc0\xde" + b"x" * 20)   # bitcode by its magic in 19 and 22

rng = random.Random(seed)


def word(alphabet, low, high):
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(low, high)))


compared = 0
failures = 0
for trial in range(trials):
    images = []
    for _ in range(rng.randint(1, 3)):
        keys = ["file=" + rng.choice(["img.o", "b.cubin", "c.bc", "img.o,file=b.cubin"]),
                "triple=" + rng.choice(["amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda",
                                        "x86_64-unknown-linux-gnu"])]
        for _ in range(rng.randint(0, 14)):
            key = word(string.ascii_lowercase + "_-+", 1, rng.choice([3, 8, 20, 70]))
            keys.append(key + "=" + word(string.ascii_letters + "+-_", 0, 12))
        if rng.random() < 0.6:
            keys.append("kind=" + rng.choice(["openmp", "cuda", "hip", "sycl", "bogus"]))
        if rng.random() < 0.5:
            keys.append("arch=" + rng.choice(["gfx90a", "sm_80", ""]))
        if rng.random() < 0.3:
            keys.append("feature=+xnack")
            keys.append("feature=-sramecc")
        rng.shuffle(keys)
        images.append("--image=" + ",".join(keys))
    for release, packager in upstream.items():
        # 16 reads "file=a,file=b" as one file named "a,b": both fail alike,
        # but the message differs.
        if release == "16" and any("file=img.o,file=" in i for i in images):
            continue
        theirs = subprocess.run([packager, "-o", "theirs.out"] + images, capture_output=True)
        ours = subprocess.run([tool, "package", "--release=" + release, "-o", "ours.out"] + images,
                              capture_output=True)
        compared += 1
        if theirs.returncode != ours.returncode:
            print("release %s: exit %d, ours %d: %s" % (release, theirs.returncode,
                                                        ours.returncode, images))
            failures += 1
        elif theirs.returncode == 0:
            with open("theirs.out", "rb") as a, open("ours.out", "rb") as b:
                if a.read() != b.read():
                    print("release %s: bytes differ: %s" % (release, images))
                    failures += 1
print("compared %d packages, %d differ" % (compared, failures))
sys.exit(1 if failures else 0)
