# clang: 19 22
# An object made by upstream's relocatable link (clang-linker-wrapper 19 or 22), the
# library of relocatable-archive, named on the line of an offload link of a
# program with a target region of its own.  Upstream leaves the images it
# registered in .llvm.offloading.relocatable, which LLVM types
# SHT_LLVM_OFFLOADING (spec 6.1 item 5): its own wrapper extracts and links
# them again, and the program aborts.  The wrapper under test skips them and
# says so under -v.  Each region runs on the device once, each image is
# registered once with its own entries.
[ -x "$UPSTREAM_WRAPPER" ] || missing "$UPSTREAM_WRAPPER" "the Debian package clang-tools-$clang_version"
seed=$SRC/../relocatable-archive
# Upstream 22 links device bitcode through clang and ld, which this bare
# wrapper line cannot finish ("file format not recognized"): under
# --partitioned and --full-lto (device_lto set) its input is machine code,
# the program's own is bitcode.
if [ -n "${device_lto:-}" ] && [ "$clang_version" = 22 ]; then
	compile ../relocatable-archive/foo.c -fno-offload-lto
else
	compile ../relocatable-archive/foo.c
fi
show "$UPSTREAM_WRAPPER" --host-triple=x86_64-pc-linux-gnu --linker-path=/usr/bin/ld -r foo.o -o upstream-r.o
"$UPSTREAM_WRAPPER" --host-triple=x86_64-pc-linux-gnu --linker-path=/usr/bin/ld -r foo.o -o upstream-r.o ||
	fail "upstream's relocatable link failed"
compile ../relocatable-archive/main.c
link -o program main.o upstream-r.o
if [ "$upstream" -eq 0 ] && ! grep -q 'upstream-r.o: skipping .llvm.offloading.relocatable' "$(link_log)"; then
	fail "the link did not say that it skipped upstream-r.o's .llvm.offloading.relocatable"
fi
check program "$seed/expected.txt" "$seed/registrations.txt"
