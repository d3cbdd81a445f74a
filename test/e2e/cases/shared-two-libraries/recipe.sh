# A program and two shared libraries, each with OpenMP target regions of its
# own, loaded together: three images, each registered once (by its own
# object's constructor) with only its own entries, and each region run on
# the device once.
compile one.c -fPIC
link -shared -o libone.so one.o
compile two.c -fPIC
link -shared -o libtwo.so two.o
compile main.c
link -o shared-two-libraries main.o -L. -lone -ltwo -Wl,-rpath,"$PWD"
check shared-two-libraries
