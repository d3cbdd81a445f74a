compile main.c
link -o plain main.o
check plain
