# The library before the object that needs it.  GNU ld would not extract the
# member for the host either, so the host link uses lld, which does not care
# about order; device code must then be found as well (upstream 16-18 lost it:
# llvm-project PR #87532).
S=../static-lib-after
compile $S/scale.c
compile $S/unused.c
compile $S/main.c
archive libscale.a scale.o unused.o
link -fuse-ld=lld --ld-path="$LLD" -o before libscale.a main.o
check before
link -fuse-ld=lld --ld-path="$LLD" -o before-l -L. -lscale main.o
check before-l
