compile counter.c
compile main.c
link -o shared-global main.o counter.o
check shared-global
