#!/bin/sh
# signal-after.sh SIGNAL SECONDS COMMAND...: run COMMAND, send its pid alone
# SIGNAL after SECONDS (as a build system's timeout does), and exit with its
# status.
sig=$1
delay=$2
shift 2
"$@" &
pid=$!
sleep "$delay"
kill -"$sig" "$pid"
wait "$pid"
