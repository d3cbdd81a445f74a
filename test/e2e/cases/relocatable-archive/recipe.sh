# The seed's relocatable example (docs/design/host-linking.md, "Relocatable links"): foo.c
# linked ahead of time by "clang --offload-link -r" through the wrapper under
# test, archived, then used by (a) gcc with the OpenMP runtime, (b) clang
# with no offloading flag, (c) an offload link of a program with a target
# region of its own.  Each region runs on the device once, and each image is
# registered once with only its own entries (registrations*.txt).
# Upstream 22 fails it (docs/compat.md, "End-to-end cases upstream fails"):
# its -r object keeps the images where its own wrapper finds them again, and
# (c) registers them twice and aborts.
compile foo.c
link --offload-link -r foo.o -o merged.o
archive libfoo.a merged.o

# The OpenMP runtime by hand.  --no-as-needed: Debian's gcc links as needed,
# which drops libomp, and libomptarget 16 calls into it at start-up.
runtime=("${runtime_ldflags[@]}" -Wl,--no-as-needed -lomptarget -lomp)
show gcc "$SRC/app.c" -o with-gcc -L. -lfoo "${runtime[@]}"
gcc "$SRC/app.c" -o with-gcc -L. -lfoo "${runtime[@]}" || fail "gcc could not link the library"
check with-gcc "$SRC/expected-app.txt" "$SRC/registrations-app.txt"

show "$CLANG" "$SRC/app.c" -o with-clang -L. -lfoo "${runtime[@]}"
"$CLANG" "$SRC/app.c" -o with-clang -L. -lfoo "${runtime[@]}" ||
	fail "clang without offloading flags could not link the library"
check with-clang "$SRC/expected-app.txt" "$SRC/registrations-app.txt"

compile main.c
link -o with-offload main.o -L. -lfoo
check with-offload
