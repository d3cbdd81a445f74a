compile main.c
link -o declare-target-link main.o
check declare-target-link
