#!/bin/sh
# tessera-bench compare end to end without building anything heavy: a two-release git repository
# made here, fake trainers for both sides (the baseline's in a prepared build tree passed with
# --baseline-build-dir), then the alternation order, medians, speedup and interval, "new"
# benchmarks, the comparison records and RELEASES.md are checked against hand-computed values.
# Last, a baseline whose CMakeLists.txt is broken shows the build-failure report.
set -eu
bench="$1"
trainer="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

repo="$work/repo"
mkdir "$repo"
g() { git -C "$repo" -c user.name=Test -c user.email=test@example.com -c commit.gpgsign=false "$@"; }
g init -q -b main
echo 0.1.0 > "$repo/VERSION"
printf 'cmake_minimum_required(VERSION 3.20)\nproject(fake NONE)\nnot_a_command(\n' \
  > "$repo/CMakeLists.txt"
g add -A
g commit -q -m "release 0.1.0"
old=$(g rev-parse HEAD | cut -c1-12)
echo 0.2.0 > "$repo/VERSION"
g commit -q -a -m "release 0.2.0"

# The baseline build: a resnet50 and an efficientnet trainer, no bert; its tessera-bench (found
# through CMakeCache.txt) knows resnet50-synthetic-throughput only.
base="$work/baseline-build"
mkdir -p "$base/apps/resnet50" "$base/apps/efficientnet" "$work/baseline-src/apps/bench"
echo "CMAKE_HOME_DIRECTORY:INTERNAL=$work/baseline-src" > "$base/CMakeCache.txt"
echo '{"resnet50-synthetic-throughput", "resnet50", ...}' > "$work/baseline-src/apps/bench/BenchSuite.cpp"
for app in resnet50 efficientnet; do
  printf '#!/bin/sh\nFAKE_SIDE=baseline FAKE_THROUGHPUTS="100 90 110" exec "%s" "$@"\n' "$trainer" \
    > "$base/apps/$app/$app"
  chmod +x "$base/apps/$app/$app"
done
printf '#!/bin/sh\nFAKE_SIDE=current FAKE_THROUGHPUTS="250 260 240" exec "%s" "$@"\n' "$trainer" \
  > "$work/current"
chmod +x "$work/current"

export FAKE_LOG="$work/order.log"
"$bench" compare 0.1.0 --repo "$repo" --records-dir "$work/records" --version 0.2.0 \
  --host-class fake-cpu-2c --trainer "$work/current" --baseline-build-dir "$base" \
  --benchmarks resnet50-synthetic-throughput,bert-mini-phase1-throughput,efficientnet-b0-synthetic-throughput \
  --price-per-hour 0.09 > "$work/compare.txt"
cat "$work/compare.txt"
grep -q "baseline 0.1.0 is $old (.*first commit whose VERSION file holds 0.1.0" "$work/compare.txt"
# A B, B A, A B for resnet50; the two new benchmarks run the current side only.
test "$(tr '\n' ' ' < "$work/order.log")" = \
  "current baseline baseline current current baseline current current current current current current "
grep -q "current  0.2.0 .*median 250.0 samples/s \[240.0–260.0\] over 3 runs" "$work/compare.txt"
grep -q "baseline 0.1.0 ($old): median 100.0 samples/s \[90.0–110.0\]" "$work/compare.txt"
# Rounds (250,100) (260,90) (240,110): every resample's ratio is 240/110, 2.5 or 260/90, the
# extremes each with probability 7/27 > 2.5%, so the interval is [2.18, 2.89].
grep -q "speedup 2.50× \[2.18–2.89\] significant" "$work/compare.txt"
grep -q "new — the baseline has no bert trainer" "$work/compare.txt"
# 250 and 100 samples/s at $0.09/h: 10 and 4 million samples per dollar; the fake trainer
# reports 600 s to its target on both sides, 1.5 cents at that price.
grep -q "per dollar at \$0.0900/h (--price-per-hour): current 10.00 million samples, \$0.0150 to train; baseline 4.00 million samples, \$0.0150 to train" "$work/compare.txt"
grep -q "new — the baseline's tessera-bench does not know it" "$work/compare.txt"
record="$work/records/compare_0.2.0_vs_0.1.0_resnet50-synthetic-throughput_fake-cpu-2c.json"
test -f "$record"
test -f "$work/records/compare_0.2.0_vs_0.1.0_bert-mini-phase1-throughput_fake-cpu-2c.json"
grep -q '"status": "SIDE_NEW"' \
  "$work/records/compare_0.2.0_vs_0.1.0_efficientnet-b0-synthetic-throughput_fake-cpu-2c.json"
grep -q '"speedup": 2.5' "$record"
grep -q '"pricePerHour": 0.09' "$record"
grep -q '"compileSeconds": 12.5' "$record"
grep -q '"host-threads": "2"' "$record"
grep -q '"peakRssKib"' "$record"
if [ -r /proc/stat ]; then grep -q '"stealFraction"' "$record"; fi

printf '# Releases\n' > "$work/RELEASES.md"
"$bench" releases --records-dir "$work/records" --releases-file "$work/RELEASES.md" > /dev/null
grep -q "0.2.0 vs 0.1.0: resnet50-synthetic-throughput 2.50× \[2.18–2.89\] on fake-cpu-2c" \
  "$work/RELEASES.md"
grep -q "0.2.0 vs 0.1.0: bert-mini-phase1-throughput new on fake-cpu-2c" "$work/RELEASES.md"

# Errors name the culprit.
if "$bench" compare no-such-rev --repo "$repo" 2> "$work/err.txt"; then
  echo "an unknown baseline must fail" >&2; exit 1
fi
grep -q "unknown baseline 'no-such-rev'" "$work/err.txt"
if "$bench" compare 0.1.0 --repo "$repo" --benchmarks resnet50-synthetic-througput 2> "$work/err.txt"; then
  echo "an unknown benchmark must fail" >&2; exit 1
fi
grep -q "did you mean resnet50-synthetic-throughput?" "$work/err.txt"

# A baseline that does not build: its first error line and log are reported, the current side is
# still measured, and the worktree is reused the second time.
for attempt in 1 2; do
  if "$bench" compare 0.1.0 --repo "$repo" --records-dir "$work/records2" --version 0.2.0 \
      --baselines-dir "$work/baselines" --trainer "$work/current" --rounds 1 \
      --benchmarks resnet50-synthetic-throughput > "$work/broken$attempt.txt"; then
    echo "a baseline that does not build must fail the comparison" >&2; exit 1
  fi
done
cat "$work/broken1.txt"
grep -q "checked out baseline worktree $work/baselines/$old" "$work/broken1.txt"
grep -q "reusing baseline worktree $work/baselines/$old" "$work/broken2.txt"
grep -q "baseline build failed: CMake Error at CMakeLists.txt:3.* (log: $work/baselines/$old/build/release/tessera-bench-build.log)" "$work/broken1.txt"
grep -q "current  0.2.0 .*median 2[0-9][0-9].0 samples/s" "$work/broken1.txt"

# run names the commit it measured when the trainer's record does not.
FAKE_COMMIT=unknown FAKE_VERSION=0.2.0 FAKE_LOG= "$bench" run --trainer "$trainer" --records-dir "$work/runs" \
  --version 0.2.0 --host-class fake-cpu-2c --benchmarks resnet50-synthetic-throughput \
  --repo "$repo" > /dev/null
grep -q "\"gitCommit\": \"$(g rev-parse --short HEAD)\"" \
  "$work/runs/0.2.0_resnet50-synthetic-throughput_fake-cpu-2c.json"
echo "compare smoke test passed"
