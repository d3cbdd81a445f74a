#!/bin/sh
# signal-matrix.sh DIR TOOL HOST_OBJ OFFLOAD_OBJ: offload-link stopped by each
# signal a build system or a user sends (INT, TERM, HUP, KILL), sent to its
# pid alone and to its whole process group, while its host linker runs and
# while a device link runs (slow-ld.sh plays both).  After each: no output, no
# process left running, and no temp file (SIGKILL, which no handler sees, may
# leave temp files and the host link's private output beside the output,
# never the output).  Prints one line per
# case and exits 1 if any failed.
dir=$1 tool=$2 host_obj=$3 offload_obj=$4
here=$(cd "$(dirname "$0")" && pwd)
status=0
for stage in host device; do
	if [ $stage = host ]; then
		obj=$host_obj triple=x86_64-pc-linux-gnu
	else
		obj=$offload_obj triple=x86_64-unknown-linux-gnu
	fi
	for sig in INT TERM HUP KILL; do
		for target in pid group; do
			case_dir=$dir/$stage-$sig-$target
			mkdir -p "$case_dir/tmp" "$case_dir/out"
			# Its own session, so that its group is its pid; SIGINT is not
			# ignored there (a background job's would be).
			env TMPDIR="$case_dir/tmp" SLOW_LD_PID="$case_dir/ld.pid" OFFLOAD_LINK_NO_CACHE=1 \
				setsid "$tool" --host-triple=$triple --linker-path="$here/slow-ld.sh" \
				-o "$case_dir/out/app" "$obj" 2> "$case_dir/stderr" &
			pid=$!
			# Until the linker runs (it writes its pid first thing).
			tries=0
			while [ ! -s "$case_dir/ld.pid" ] && [ $tries -lt 200 ]; do
				sleep 0.05
				tries=$((tries + 1))
			done
			if [ $target = pid ]; then
				kill -s $sig $pid
			else
				/bin/kill -s $sig -- -$pid   # dash's kill takes no "--"
			fi
			wait $pid
			rc=$?
			sleep 0.3   # a parent-death signal is delivered asynchronously
			problems=
			[ -s "$case_dir/ld.pid" ] || problems="$problems linker-never-ran"
			[ $rc -ge 128 ] || problems="$problems exit-status-$rc"
			"$here/is-gone.sh" "$case_dir/ld.pid" || problems="$problems linker-still-running"
			[ -e "$case_dir/out/app" ] && problems="$problems output-left"
			# What SIGKILL leaves (no handler runs): temp files, and the
			# host link's private output beside the output.
			if [ $sig != KILL ]; then
				[ -n "$(ls -A "$case_dir/tmp")" ] && problems="$problems temp-left"
				[ -n "$(ls -A "$case_dir/out")" ] && problems="$problems private-output-left"
			fi
			if [ -n "$problems" ]; then
				echo "FAIL $stage $sig $target:$problems"
				status=1
			else
				echo "ok $stage $sig $target"
			fi
		done
	done
done
exit $status
