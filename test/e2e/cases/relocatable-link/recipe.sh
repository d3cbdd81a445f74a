# clang: 19 22
# The Makefile pattern from README.md: a relocatable offload link (-r, 19 and
# later) run directly, then a host-only final link.  Both units' regions are
# in one image, registered once (registrations.txt).
compile kernels.c
compile more.c
show "$wrapper" --host-triple=x86_64-pc-linux-gnu --linker-path=/usr/bin/ld -r -o device-part.o kernels.o more.o
"$wrapper" --host-triple=x86_64-pc-linux-gnu --linker-path=/usr/bin/ld -r -o device-part.o kernels.o more.o ||
	fail "relocatable link failed"
show "$CLANG" -c "$SRC/main.c" -o main.o
"$CLANG" -c "$SRC/main.c" -o main.o || fail "compiling main.c"
show "$CLANG" -fopenmp main.o device-part.o "${runtime_ldflags[@]}" -lomptarget -o relocatable-link
"$CLANG" -fopenmp main.o device-part.o "${runtime_ldflags[@]}" -lomptarget -o relocatable-link ||
	fail "final link failed"
check relocatable-link
