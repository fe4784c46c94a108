#!/bin/sh
# tessera-bench end to end: two versions recorded through a fake trainer, then the speedup
# table, the cost figures and the RELEASES.md section are checked against hand-computed values.
set -eu
bench="$1"
trainer="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

FAKE_VERSION=0.1.0 FAKE_THROUGHPUT=100 FAKE_TIME=1200 "$bench" run --trainer "$trainer" --long \
  --records-dir "$work/records" --version 0.1.0 --host-class fake-cpu-2c > "$work/run1.txt"
FAKE_VERSION=0.2.0 FAKE_THROUGHPUT=250 FAKE_TIME=400 "$bench" run --trainer "$trainer" --long \
  --records-dir "$work/records" --version 0.2.0 --host-class fake-cpu-2c > "$work/run2.txt"
test -f "$work/records/0.1.0_resnet50-synthetic-throughput_fake-cpu-2c.json"
test -f "$work/records/0.2.0_resnet50-time-to-accuracy_fake-cpu-2c.json"

"$bench" table --records-dir "$work/records" --version 0.2.0 --host-class fake-cpu-2c \
  --price-per-hour 2 > "$work/table.txt"
cat "$work/table.txt"
grep -q "2.50x" "$work/table.txt"                      # 250 / 100 images/s
grep -q "3.00x" "$work/table.txt"                      # 1200 s / 400 s
grep -q "125 images/s per \$/h" "$work/table.txt"      # 250 / 2
grep -q "\$0.2222 to train" "$work/table.txt"          # 400 s at $2/h

printf '# Releases\n\nHand-written notes.\n' > "$work/RELEASES.md"
"$bench" releases --records-dir "$work/records" --releases-file "$work/RELEASES.md" > /dev/null
"$bench" releases --records-dir "$work/records" --releases-file "$work/RELEASES.md" > /dev/null
grep -q "Hand-written notes." "$work/RELEASES.md"
test "$(grep -c 'tessera-bench:begin' "$work/RELEASES.md")" = 1
grep -q "2.50x vs 0.1.0" "$work/RELEASES.md"

if "$bench" run --trainer "$work/missing" --records-dir "$work/records" 2> "$work/err.txt"; then
  echo "a missing trainer must fail" >&2; exit 1
fi
grep -q "$work/missing" "$work/err.txt"
if "$bench" tabel 2> "$work/err.txt"; then echo "unknown command must fail" >&2; exit 1; fi
grep -q "unknown command 'tabel'" "$work/err.txt"
echo "bench smoke test passed"
