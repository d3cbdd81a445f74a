# The same library named twice (CMake link lines do this): the device link
# must not see its members twice ("duplicate symbol", llvm-project #198017).
# Upstream 19 and 22 fail it (docs/compat.md, "End-to-end cases upstream
# fails"): their device link sees the members twice.
S=../static-lib-after
compile $S/scale.c
compile $S/unused.c
compile $S/main.c
archive libscale.a scale.o unused.o
link -o twice main.o libscale.a libscale.a
check twice
link -o twice-l main.o -L. -lscale -lscale
check twice-l
