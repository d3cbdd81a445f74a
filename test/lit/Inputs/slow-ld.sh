#!/bin/sh
# slow-ld.sh: a host linker that creates its output (-o), records its pid in
# $SLOW_LD_PID and then takes a minute: a link to interrupt.
out=
prev=
for a; do
	[ "$prev" = -o ] && out=$a
	prev=$a
done
: > "$out"
echo $$ > "$SLOW_LD_PID"
exec sleep 60
