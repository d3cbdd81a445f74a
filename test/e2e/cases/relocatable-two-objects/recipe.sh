# Two objects made by relocatable links (-r) through the wrapper under test,
# named directly on the offload link of a program with a target region of
# its own (the program and library sources of shared-two-libraries).  Each
# object brackets its own entries (their sections' suffixes differ: the hash
# of each output), each region runs on the device once, and each image is
# registered once with its own entries.
# Upstream 19 and 22 fail it (docs/compat.md, "End-to-end cases upstream
# fails"): the program registers the -r objects' images twice and aborts.
two=$SRC/../shared-two-libraries
for name in one two; do
	compile ../shared-two-libraries/library.c -DNAME=$name
	mv library.o $name.o
	link --offload-link -r $name.o -o relocated-$name.o
done
compile ../shared-two-libraries/main.c
link -o program main.o relocated-one.o relocated-two.o
check program "$two/expected.txt" "$two/registrations.txt"
