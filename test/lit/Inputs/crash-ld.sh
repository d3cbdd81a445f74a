#!/bin/sh
# crash-ld.sh: a linker that creates its output (-o), then dies of SIGSEGV,
# as a tool with a bug does.
out=
prev=
for a; do
	[ "$prev" = -o ] && out=$a
	prev=$a
done
echo partial > "$out"
kill -SEGV $$
