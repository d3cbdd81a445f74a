# A program and two shared libraries, each with OpenMP target regions of its
# own, loaded together: three images, each registered once (by its own
# object's constructor) with only its own entries, and each region run on
# the device once.
for name in one two; do
	compile library.c -fPIC -DNAME=$name
	mv library.o $name.o
	link -shared -o lib$name.so $name.o
done
compile main.c
link -o shared-two-libraries main.o -L. -lone -ltwo -Wl,-rpath,"$PWD"
check shared-two-libraries
