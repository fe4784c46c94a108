#!/bin/sh
# Stands in for a trainer in tessera-bench's smoke tests: writes a benchmark record to the path
# after --record-file, like a real trainer would, with
#   FAKE_THROUGHPUT          the throughput (default 100), or
#   FAKE_THROUGHPUTS="a b c" one per run of this side in turn (cycling), counted in FAKE_LOG;
#   FAKE_SIDE, FAKE_LOG      append the side's name ("current" by default) to FAKE_LOG per run,
#                            so a test can check the order in which the sides ran;
#   FAKE_VERSION, FAKE_TIME, FAKE_COMMIT  the record's version, time to target and gitCommit.
record=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--record-file" ]; then record="$2"; shift; fi
  shift
done
[ -n "$record" ] || { echo "fake_trainer: no --record-file" >&2; exit 3; }
side="${FAKE_SIDE:-current}"
throughput="${FAKE_THROUGHPUT:-100}"
if [ -n "${FAKE_THROUGHPUTS:-}" ]; then
  earlier=0
  if [ -n "${FAKE_LOG:-}" ] && [ -f "$FAKE_LOG" ]; then
    earlier=$(grep -c -x "$side" "$FAKE_LOG" || true)
  fi
  set -- $FAKE_THROUGHPUTS
  index=$((earlier % $# + 1))
  eval "throughput=\${$index}"
fi
[ -z "${FAKE_LOG:-}" ] || echo "$side" >> "$FAKE_LOG"
cat > "$record" <<JSON
{
  "sdkVersion": "${FAKE_VERSION:-0.1.0}",
  "gitCommit": "${FAKE_COMMIT:-abc1234}",
  "app": "resnet50",
  "host": {"cpuModel": "Fake CPU", "cores": 2, "hostClass": "fake-cpu-2c"},
  "timestamp": "2026-12-02T19:00:00Z",
  "config": {"host-threads": "2"},
  "throughputImagesPerSecond": ${throughput},
  "timeToTargetSeconds": ${FAKE_TIME:-600},
  "targetAccuracy": 0.85,
  "finalAccuracy": 0.87,
  "epochs": 1,
  "metrics": {"compile_seconds": 12.5, "training_seconds": 30}
}
JSON
