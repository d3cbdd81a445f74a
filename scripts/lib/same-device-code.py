#!/usr/bin/env python3
"""Whether programs linked different ways carry the same GPU machine code.

  scripts/lib/same-device-code.py REFERENCE OTHER...

Each argument is an executable (or its .xz) with the GPU images it embeds
(ELF images for NVIDIA, e_machine EM_CUDA, or AMD, EM_AMDGPU), the n-th
image of one compared with the n-th of the other.  Prints one line per
OTHER: "same code" when every code section (.text and .text.*) of its images
equals REFERENCE's byte for byte, else the sections that differ or are
missing; then the data sections that differ (symbol tables and the like,
which do not change what a kernel executes).  Exit status 1 when any code
differs, 2 on unreadable input.
"""
import hashlib
import lzma
import re
import struct
import sys

GPU_MACHINES = (190, 224)     # EM_CUDA, EM_AMDGPU
SHT_NOBITS = 8


def device_images(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".xz"):
        data = lzma.decompress(data)
    at = 0
    while True:
        at = data.find(b"\x7fELF\x02\x01", at + 1)
        if at < 0:
            return
        if struct.unpack_from("<H", data, at + 18)[0] not in GPU_MACHINES:
            continue
        shoff = struct.unpack_from("<Q", data, at + 0x28)[0]
        shentsize, shnum = struct.unpack_from("<HH", data, at + 0x3A)
        yield data[at:at + shoff + shentsize * shnum]


def sections(image):
    """{name: digest of its bytes} of one ELF image."""
    shoff = struct.unpack_from("<Q", image, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", image, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", image, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx][4]
    out = {}
    for name_off, kind, _, _, offset, size, _, _, _, _ in headers:
        end = image.index(b"\0", names + name_off)
        body = b"" if kind == SHT_NOBITS else image[offset:offset + size]
        out[image[names + name_off:end].decode()] = (size, hashlib.sha256(body).hexdigest())
    return out


def is_code(key):
    name = key.split(":", 1)[1]
    return name == ".text" or name.startswith(".text.")


def all_sections(path):
    out = {}
    for n, image in enumerate(device_images(path)):
        for name, digest in sections(image).items():
            out["%d:%s" % (n, name)] = digest
    if not out:
        raise ValueError("%s embeds no NVIDIA or AMD GPU image" % path)
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip())
    try:
        ref = all_sections(sys.argv[1])
        others = [(p, all_sections(p)) for p in sys.argv[2:]]
    except (OSError, lzma.LZMAError, struct.error, ValueError) as e:
        print("same-device-code.py: %s" % e, file=sys.stderr)
        return 2
    code = sorted(k for k in ref if is_code(k))
    status = 0
    for path, other in others:
        other_code = {k for k in other if is_code(k)}
        differ = [k for k in sorted(set(code) | other_code) if ref.get(k) != other.get(k)]
        data = [k for k in sorted(set(ref) | set(other))
                if k not in code and k not in other_code and ref.get(k) != other.get(k)]
        if differ:
            status = 1
            print("%s: code differs: %s" % (path, " ".join(differ)))
        else:
            # Per-kernel sections of one kind named once.
            kinds = sorted({re.sub(r"^\d+:(\.(rela\.)?nv\.info)\..*", r"\1.*", k).split(":", 1)[-1]
                            for k in data})
            print("%s: same code (%d code sections)%s" % (
                path, len(code), "; data differs: " + " ".join(kinds) if kinds else ""))
    return status


if __name__ == "__main__":
    sys.exit(main())
