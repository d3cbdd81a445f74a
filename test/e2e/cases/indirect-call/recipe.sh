# clang: 19 22
# clang 16 rejects the indirect clause.
compile ops.c
compile main.c
link -o indirect-call main.o ops.o
check indirect-call
