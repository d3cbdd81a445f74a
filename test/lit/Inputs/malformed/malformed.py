#!/usr/bin/env python3
"""The malformed-input suite's two tools (test/lit/malformed).

  malformed.py make CASE BASE OUT
      Writes OUT: the valid input BASE (a fat object made by clang during the
      test, an archive, an OffloadBinary) with the damage CASE names.  Every
      case is a small function below: one field changed, a cut, a table moved.

  malformed.py expect STATUS TMPDIR -- COMMAND...
      Runs COMMAND with TMPDIR set to an empty directory and "-o out"'s file
      already there holding known bytes; prints what COMMAND wrote to stderr
      (for FileCheck) and fails unless it exited with STATUS, left TMPDIR
      empty, and (when STATUS is not 0) left out as it was.  A command that
      runs past 60 s (a FIFO read that blocks) fails too.

Offsets are found by parsing BASE, never hard-coded: the same damage lands on
the same field whatever clang put where.
"""
import os
import shutil
import struct
import subprocess
import sys

# ---- ELF64 little-endian (the x86_64 objects clang writes) -----------------

E_PHOFF, E_SHOFF, E_MACHINE = 0x20, 0x28, 0x12
E_PHNUM, E_SHNUM, E_SHSTRNDX = 0x38, 0x3C, 0x3E
SH_SIZE = 64
SHT_NOBITS = 8


def u16(d, at):
    return struct.unpack_from("<H", d, at)[0]


def u32(d, at):
    return struct.unpack_from("<I", d, at)[0]


def u64(d, at):
    return struct.unpack_from("<Q", d, at)[0]


def put16(d, at, v):
    struct.pack_into("<H", d, at, v)


def put32(d, at, v):
    struct.pack_into("<I", d, at, v)


def put64(d, at, v):
    struct.pack_into("<Q", d, at, v)


def section_headers(d):
    """(header offset, name, type, offset, size) of every section."""
    shoff, shnum = u64(d, E_SHOFF), u16(d, E_SHNUM)
    strtab = u64(d, shoff + u16(d, E_SHSTRNDX) * SH_SIZE + 0x18)
    out = []
    for i in range(shnum):
        h = shoff + i * SH_SIZE
        name_at = strtab + u32(d, h)
        name = bytes(d[name_at:d.index(b"\0", name_at)]).decode()
        out.append((h, name, u32(d, h + 4), u64(d, h + 0x18), u64(d, h + 0x20)))
    return out


def section(d, name):
    for sec in section_headers(d):
        if sec[1] == name:
            return sec
    raise SystemExit("no section %s" % name)


def offloading(d):
    """Offset of the first OffloadBinary: the start of .llvm.offloading, or of
    the file for a raw binary."""
    if d[:4] == b"\x10\xff\x10\xad":
        return 0
    return section(d, ".llvm.offloading")[3]


# OffloadBinary version 1 fields (relative to the binary / to its entry).
OB_VERSION, OB_SIZE, OB_ENTRY_OFFSET, OB_ENTRY_SIZE = 4, 8, 16, 24
EN_IMAGE_KIND, EN_OFFLOAD_KIND, EN_STRING_OFFSET, EN_NUM_STRINGS = 0, 2, 8, 16
EN_IMAGE_OFFSET, EN_IMAGE_SIZE = 24, 32


def entry(d):
    b = offloading(d)
    return b, b + u64(d, b + OB_ENTRY_OFFSET)


def string_value(d, key):
    """Offset (in d) of the value of `key` in the first binary."""
    b, e = entry(d)
    strings = b + u64(d, e + EN_STRING_OFFSET)
    for i in range(u64(d, e + EN_NUM_STRINGS)):
        k = b + u64(d, strings + 16 * i)
        if bytes(d[k:d.index(b"\0", k)]) == key:
            return b + u64(d, strings + 16 * i + 8), strings + 16 * i
    raise SystemExit("no string %s" % key)


def overwrite_string(d, key, text):
    """Writes text over the value of key, NUL-padded to the old length."""
    at, _ = string_value(d, key)
    old = d.index(b"\0", at) - at
    assert len(text) <= old, "replacement longer than %s" % key
    d[at:at + old] = text + b"\0" * (old - len(text))


# ---- cases: bytes -> bytes -------------------------------------------------

CASES = {}


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


# ELF headers and tables.
@case
def elf_cut_ehdr(d):
    return d[:40]


@case
def elf_cut_shdrs(d):
    return d[:u64(d, E_SHOFF) + 3 * SH_SIZE]


@case
def elf_shoff_past_end(d):
    put64(d, E_SHOFF, len(d) + 0x1000)
    return d


@case
def elf_shnum_past_end(d):
    put16(d, E_SHNUM, 0xfe00)
    return d


@case
def elf_shstrndx_bad(d):
    put16(d, E_SHSTRNDX, u16(d, E_SHNUM) + 5)
    return d


@case
def elf_phdrs_past_end(d):
    put64(d, E_PHOFF, len(d) + 0x1000)
    put16(d, E_PHNUM, 4)
    struct.pack_into("<H", d, 0x36, 56)   # e_phentsize
    return d


@case
def elf_bad_class(d):
    d[4] = 7
    return d


@case
def elf_other_machine(d):
    put16(d, E_MACHINE, 183)    # EM_AARCH64
    return d


@case
def elf_section_name_past_end(d):
    h = section(d, ".llvm.offloading")[0]
    put32(d, h, 0x7fffff00)
    return d


@case
def elf_offloading_offset_past_end(d):
    h = section(d, ".llvm.offloading")[0]
    put64(d, h + 0x18, len(d) + 0x100)
    return d


@case
def elf_offloading_size_past_end(d):
    h = section(d, ".llvm.offloading")[0]
    put64(d, h + 0x20, len(d))
    return d


@case
def elf_offloading_empty(d):
    h = section(d, ".llvm.offloading")[0]
    put64(d, h + 0x20, 0)
    return d


@case
def elf_offloading_nobits(d):
    h = section(d, ".llvm.offloading")[0]
    put32(d, h + 4, SHT_NOBITS)
    return d


def without_entries(d):
    """The object's offloading entries section renamed out of the way: an
    object whose program needs nothing from its images."""
    for h, name, _, _, _ in section_headers(d):
        if name == "omp_offloading_entries" or name == "llvm_offload_entries":
            strtab = u64(d, u64(d, E_SHOFF) + u16(d, E_SHSTRNDX) * SH_SIZE + 0x18)
            d[strtab + u32(d, h)] = ord(".")
    return d


@case
def elf_offloading_empty_no_entries(d):
    return elf_offloading_empty(without_entries(d))


@case
def elf_offloading_nobits_no_entries(d):
    return elf_offloading_nobits(without_entries(d))


# OffloadBinary fields (inside the object's section, or a raw binary).
@case
def ob_bad_magic(d):
    d[offloading(d)] = 0x11
    return d


@case
def ob_version_4(d):
    put32(d, offloading(d) + OB_VERSION, 4)
    return d


@case
def ob_version_0(d):
    put32(d, offloading(d) + OB_VERSION, 0)
    return d


@case
def ob_size_too_small(d):
    put64(d, offloading(d) + OB_SIZE, 16)
    return d


@case
def ob_size_past_end(d):
    put64(d, offloading(d) + OB_SIZE, 0x100000)
    return d


@case
def ob_cut_header(d):
    if offloading(d) == 0:
        return d[:40]
    h = section(d, ".llvm.offloading")[0]
    put64(d, h + 0x20, 40)
    return d


@case
def ob_entry_offset_past_end(d):
    b = offloading(d)
    put64(d, b + OB_ENTRY_OFFSET, u64(d, b + OB_SIZE))
    return d


@case
def ob_entry_size_past_end(d):
    put64(d, offloading(d) + OB_ENTRY_SIZE, 1 << 40)
    return d


@case
def ob_entry_overlaps_header(d):
    # The entry table laid over the header: its image kind is the magic's
    # first half (0xff10), which no release defines.
    put64(d, offloading(d) + OB_ENTRY_OFFSET, 0)
    return d


@case
def ob_image_offset_past_end(d):
    b, e = entry(d)
    put64(d, e + EN_IMAGE_OFFSET, u64(d, b + OB_SIZE) + 8)
    return d


@case
def ob_image_size_past_end(d):
    _, e = entry(d)
    put64(d, e + EN_IMAGE_SIZE, 1 << 62)
    return d


@case
def ob_strings_past_end(d):
    _, e = entry(d)
    put64(d, e + EN_NUM_STRINGS, 1 << 40)
    return d


@case
def ob_string_offset_past_end(d):
    b, e = entry(d)
    put64(d, e + EN_STRING_OFFSET, u64(d, b + OB_SIZE) + 64)
    return d


@case
def ob_key_past_end(d):
    b, e = entry(d)
    strings = b + u64(d, e + EN_STRING_OFFSET)
    put64(d, strings, u64(d, b + OB_SIZE) + 1)
    return d


@case
def ob_value_unterminated(d):
    # The value points at the binary's last bytes, which end without a NUL.
    b, e = entry(d)
    size = u64(d, b + OB_SIZE)
    _, pair = string_value(d, b"triple")
    d[b + size - 4:b + size] = b"\xff" * 4
    put64(d, pair + 8, size - 4)
    return d


@case
def ob_no_triple(d):
    at, pair = string_value(d, b"triple")
    k = offloading(d) + u64(d, pair)
    d[k] = ord("T")     # key "Triple": no "triple" left
    return d


@case
def ob_unknown_offload_kind(d):
    _, e = entry(d)
    put16(d, e + EN_OFFLOAD_KIND, 0x77)
    return d


@case
def ob_unknown_image_kind(d):
    _, e = entry(d)
    put16(d, e + EN_IMAGE_KIND, 99)
    return d


@case
def ob_image_size_zero(d):
    _, e = entry(d)
    put64(d, e + EN_IMAGE_SIZE, 0)
    return d


@case
def ob_unknown_triple(d):
    overwrite_string(d, b"triple", b"foo64-acme-none")
    return d


@case
def ob_triple_control_chars(d):
    overwrite_string(d, b"triple", b"x86\x1b[31m\n\xff")
    return d


@case
def ob_bitcode_kind_not_bitcode(d):
    # Image kind "bc" over an ELF image.
    _, e = entry(d)
    put16(d, e + EN_IMAGE_KIND, 2)
    return d


@case
def ob_second_cut(d):
    # A second binary after the first, cut inside its header.
    b = offloading(d)
    size = u64(d, b + OB_SIZE)
    if b == 0:
        return d[:size] + d[:40]
    raise SystemExit("ob-second-cut wants a raw binary")


# Bitcode that is not: wrapper headers and magic.
@case
def bc_wrapper_cut(d):
    return bytearray(b"\xde\xc0\x17\x0b\x00\x00\x00\x00\x14\x00")


@case
def bc_wrapper_past_end(d):
    return bytearray(struct.pack("<IIIII", 0x0B17C0DE, 0, 20, 0x10000, 7)) + d[:64]


@case
def bc_wrapper_bad_magic(d):
    return bytearray(struct.pack("<IIIII", 0x0B17C0DE, 0, 20, len(d), 7)) + b"XC" + d[2:]


@case
def bc_magic_only(d):
    return bytearray(b"BC\xc0\xde")


# Archives (GNU or thin; BASE is the archive).
AR_HEADER = 60


def ar_headers(d):
    """(offset, name field, size) of every member header."""
    out, at = [], 8
    while at < len(d):
        size = int(bytes(d[at + 48:at + 58]).decode().strip())
        out.append((at, bytes(d[at:at + 16]), size))
        at += AR_HEADER + size
        at += at & 1 if d[:8] == b"!<arch>\n" else 0
        if d[:8] == b"!<thin>\n" and not d[out[-1][0]:out[-1][0] + 2] in (b"/ ", b"//"):
            at = out[-1][0] + AR_HEADER
    return out


def ar_member(d, index):
    """Header offset of the index-th member that is not a table."""
    return [h for h in ar_headers(d) if not h[1].startswith((b"/ ", b"// "))][index][0]


@case
def ar_cut_magic(d):
    return d[:8] + d[8:20]


@case
def ar_cut_member_header(d):
    return d[:ar_member(d, 1) + 30]


@case
def ar_cut_member(d):
    return d[:ar_member(d, 1) + AR_HEADER + 100]


@case
def ar_bad_fmag(d):
    at = ar_member(d, 0)
    d[at + 58:at + 60] = b"X\n"
    return d


@case
def ar_bad_size(d):
    at = ar_member(d, 0)
    d[at + 48:at + 58] = b"12x4      "
    return d


@case
def ar_size_past_end(d):
    at = ar_member(d, 1)
    d[at + 48:at + 58] = b"9999999999"
    return d


@case
def ar_long_name_past_table(d):
    at = ar_member(d, 0)
    d[at:at + 16] = b"/9999           "
    return d


@case
def ar_long_name_table_past_end(d):
    for at, name, _ in ar_headers(d):
        if name.startswith(b"// "):
            d[at + 48:at + 58] = b"9999999999"
            return d
    raise SystemExit("no long-name table")


@case
def ar_symtab_past_end(d):
    at = ar_headers(d)[0][0]
    assert d[at:at + 2] == b"/ "
    d[at + 48:at + 58] = b"9999999999"
    return d


@case
def ar_symtab_count_past_end(d):
    at = ar_headers(d)[0][0]
    assert d[at:at + 2] == b"/ "
    struct.pack_into(">I", d, at + AR_HEADER, 0x10000000)
    return d


@case
def ar_symtab_offset_past_end(d):
    at = ar_headers(d)[0][0]
    assert d[at:at + 2] == b"/ "
    struct.pack_into(">I", d, at + AR_HEADER + 4, len(d) + 100)
    return d


@case
def ar_bsd_name_past_end(d):
    at = ar_member(d, 0)
    d[at:at + 16] = b"#1/99999        "
    return d


@case
def ar_member_bad_object(d):
    # The first member's section header table moved past its end.
    at = ar_member(d, 0) + AR_HEADER
    put64(d, at + E_SHOFF, 0x100000)
    return d


@case
def ar_member_control_name(d):
    at = ar_member(d, 0)
    d[at:at + 16] = b"k\x07\xfe.o/          "
    size = int(bytes(d[at + 48:at + 58]).decode().strip())
    # And its binary broken, so that the name is printed.
    body = d[at + AR_HEADER:at + AR_HEADER + size]
    sec = section(body, ".llvm.offloading")
    put32(d, at + AR_HEADER + sec[3] + OB_VERSION, 9)
    return d


@case
def thin_missing_member(d):
    assert d[:8] == b"!<thin>\n"
    at = ar_member(d, 0)
    d[at:at + 16] = b"gone.o/         "
    return d


# ---- the runner -------------------------------------------------------------

def make(name, base, out):
    with open(base, "rb") as f:
        data = bytearray(f.read())
    data = CASES[name](data)
    with open(out, "wb") as f:
        f.write(data)


KEEP = b"an output from before: a failed link leaves it as it was\n"


def expect(status, tmpdir, command):
    shutil.rmtree(tmpdir, ignore_errors=True)
    os.makedirs(tmpdir)
    out = None
    for i, word in enumerate(command):
        if word == "-o" and i + 1 < len(command):
            out = command[i + 1]
    if out:
        with open(out, "wb") as f:
            f.write(KEEP)
    env = dict(os.environ, TMPDIR=os.path.abspath(tmpdir))
    try:
        run = subprocess.run(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, timeout=60)
    except subprocess.TimeoutExpired:
        sys.exit("malformed.py: %s ran for more than 60 s" % command[0])
    sys.stdout.buffer.write(run.stderr)
    sys.stdout.flush()
    problems = []
    if run.returncode != status:
        problems.append("exit status %d, not %d" % (run.returncode, status))
    left = sorted(os.listdir(tmpdir))
    if left:
        problems.append("temp files left: %s" % " ".join(left))
    if out and status != 0:
        with open(out, "rb") as f:
            if f.read() != KEEP:
                problems.append("'%s' was changed" % out)
    if problems:
        sys.exit("malformed.py: " + "; ".join(problems))


def main(argv):
    if len(argv) == 4 and argv[0] == "make":
        make(argv[1], argv[2], argv[3])
    elif len(argv) > 4 and argv[0] == "expect" and argv[3] == "--":
        expect(int(argv[1]), argv[2], argv[4:])
    elif argv == ["list"]:
        print("\n".join(sorted(CASES)))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
