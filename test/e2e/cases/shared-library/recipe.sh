compile work.c -fPIC
link -shared -o libwork.so work.o
compile main.c
link -o shared-library main.o -L. -lwork -Wl,-rpath,"$PWD"
check shared-library
