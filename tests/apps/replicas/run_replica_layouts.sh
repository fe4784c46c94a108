#!/usr/bin/env bash
# The same replicated training in three layouts — 4 replicas in one process, 2 instances of 2,
# 4 instances of 1 — must end with the same bits in every weight and optimiser state.
set -uo pipefail
run=$1
check=$2
export TESSERA_EXECUTABLE_CACHE=$(mktemp -d)
trap 'rm -rf "$TESSERA_EXECUTABLE_CACHE"' EXIT
one=$("$check" 4 | sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p')
[[ -n $one ]] || { echo "FAIL: no fingerprint from one process"; exit 1; }
echo "one process, 4 replicas: $one"
status=0
for instances in 2 4; do
  out=$(timeout 300 "$run" --num-instances "$instances" --num-replicas 4 -- "$check" 4 2>&1) ||
    { echo "$out"; echo "FAIL: $instances instances exited with an error"; status=1; continue; }
  prints=$(grep -c "fingerprint $one" <<< "$out")
  echo "$instances instances: $prints of $instances print $one"
  [[ $prints == "$instances" ]] || { echo "$out"; echo "FAIL: $instances instances differ"; status=1; }
done
exit $status
