#!/bin/sh
# LLVM's own DTLTO scripts as one distributor: validate.py checks the job
# file (its output kept in $DTLTO_VALIDATE_OUT), then local.py runs the jobs
# one after another.  $OL_LLVM_DTLTO_UTILS is the llvm/utils/dtlto directory
# of an LLVM source tree (21 or later).
python3 "$OL_LLVM_DTLTO_UTILS/validate.py" "$@" > "${DTLTO_VALIDATE_OUT:-/dev/null}" || exit 1
exec python3 "$OL_LLVM_DTLTO_UTILS/local.py" "$@"
