#!/bin/sh
# is-gone.sh PIDFILE: succeeds when the process whose pid PIDFILE holds has
# ended: no such process, or a zombie (ended, not yet reaped by the init
# process that adopted it, which in a container may never reap).
pid=$(cat "$1") || exit 1
[ -r "/proc/$pid/status" ] || exit 0
grep -q '^State:[[:space:]]*Z' "/proc/$pid/status"
