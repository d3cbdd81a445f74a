#!/bin/sh
# term-after.sh SECONDS COMMAND...: run COMMAND, send it SIGTERM after
# SECONDS, and exit with its status.
delay=$1
shift
"$@" &
pid=$!
sleep "$delay"
kill -TERM "$pid"
wait "$pid"
