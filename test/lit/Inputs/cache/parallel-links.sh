#!/bin/sh
# parallel-links.sh PROCS ROUNDS OUTDIR -- offload-link arguments (without -o):
# ROUNDS times, PROCS links at once into one cache, each writing
# OUTDIR/<round>-<proc>; fails if any link fails.
set -e
procs=$1 rounds=$2 out=$3
shift 4
round=0
while [ $round -lt "$rounds" ]; do
	pids=
	p=0
	while [ $p -lt "$procs" ]; do
		"$@" -o "$out/$round-$p" &
		pids="$pids $!"
		p=$((p + 1))
	done
	for pid in $pids; do
		wait "$pid"
	done
	round=$((round + 1))
done
