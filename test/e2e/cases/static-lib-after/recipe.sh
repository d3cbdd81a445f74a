# The usual order: the library after the object that needs it.
compile scale.c
compile unused.c
compile main.c
archive libscale.a scale.o unused.o
link -o after main.o libscale.a
check after
# The same with -L/-l.
link -o after-l main.o -L. -lscale
check after-l
