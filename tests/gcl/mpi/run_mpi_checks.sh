#!/usr/bin/env bash
# gcl across processes through tessera-run: collectives in several instance × replica layouts
# (each instance checks its replicas bit for bit against the replica-order reference), then the
# failures that must end a run with a clear error rather than hang it, and tessera-run's own
# argument errors.
set -uo pipefail
run=$1
check=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TESSERA_EXECUTABLE_CACHE="$work/cache"
status=0
fail() { echo "FAIL: $*"; status=1; }

layout() { # instances replicas
  if ! timeout 120 "$run" --num-instances "$1" --num-replicas "$2" -- "$check" collectives \
      > "$work/out" 2>&1; then
    cat "$work/out"; fail "$1 instances x $2 replicas exited with an error"; return
  fi
  local ok
  ok=$(grep -c "all collectives match the reference" "$work/out")
  [[ $ok == "$1" ]] || { cat "$work/out"; fail "$1 instances x $2 replicas: $ok of $1 matched"; }
  echo "ok: $1 instances, $2 replicas"
}
layout 2 2
layout 2 4
layout 4 4
layout 4 8

# An instance that builds a different tensor: every instance reports the disagreement.
if timeout 120 "$run" --num-instances 2 -- "$check" mismatch > "$work/out" 2>&1; then
  fail "mismatched shapes did not fail"
fi
grep -q "instances disagree: instance 0 reached collective 'sum" "$work/out" ||
  { cat "$work/out"; fail "no disagreement naming the collective"; }
grep -q "(4000 bytes in" "$work/out" && grep -q "(4004 bytes in" "$work/out" ||
  { cat "$work/out"; fail "the sizes were not named"; }
echo "ok: mismatched shapes are named"

# An instance that groups its replicas differently: every instance names both groupings.
if timeout 120 "$run" --num-instances 2 --num-replicas 4 -- "$check" groups > "$work/out" 2>&1; then
  fail "mismatched groups did not fail"
fi
grep -q "reached collective 'pairSum.*all-reduce ADD over groups of 2, 2 apart" "$work/out" &&
  grep -q "all-reduce ADD over groups of 2, 1 apart" "$work/out" ||
  { cat "$work/out"; fail "the groups were not named"; }
echo "ok: mismatched groups are named"

# An instance that dies: the run ends (no hang) with tessera-run's report.
start=$SECONDS
timeout 120 "$run" --num-instances 2 -- "$check" die > "$work/out" 2>&1
code=$?
[[ $code -ne 0 && $code -ne 124 ]] || { cat "$work/out"; fail "a dead instance gave status $code"; }
grep -q "tessera-run: the run failed" "$work/out" || { cat "$work/out"; fail "no failure report"; }
echo "ok: a dead instance ends the run in $((SECONDS - start)) s"

# tessera-run's own errors.
"$run" --num-instances 2 --num-replicas 3 -- "$check" > "$work/out" 2>&1 && fail "3 replicas on 2"
grep -q "not a multiple of --num-instances 2" "$work/out" || { cat "$work/out"; fail "ratio"; }
"$run" --num-instances 2 > "$work/out" 2>&1 && fail "no program"
grep -q "no program to run" "$work/out" || { cat "$work/out"; fail "no program message"; }
PATH=/nonexistent "$run" --num-instances 2 -- "$check" > "$work/out" 2>&1 && fail "no mpirun"
grep -q "mpirun not found on PATH; install OpenMPI (Debian packages openmpi-bin" "$work/out" ||
  { cat "$work/out"; fail "missing mpirun message"; }
echo "ok: tessera-run's argument errors"
exit $status
