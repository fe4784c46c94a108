#!/bin/sh
# Stands in for a trainer in tessera-bench's smoke test: writes a benchmark record to the path
# after --record-file, with a throughput taken from $FAKE_THROUGHPUT, like a real trainer would.
record=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--record-file" ]; then record="$2"; shift; fi
  shift
done
[ -n "$record" ] || { echo "fake_trainer: no --record-file" >&2; exit 3; }
cat > "$record" <<JSON
{
  "sdkVersion": "${FAKE_VERSION:-0.1.0}",
  "gitCommit": "abc1234",
  "app": "resnet50",
  "host": {"cpuModel": "Fake CPU", "cores": 2, "hostClass": "fake-cpu-2c"},
  "timestamp": "2026-12-02T19:00:00Z",
  "throughputImagesPerSecond": ${FAKE_THROUGHPUT:-100},
  "timeToTargetSeconds": ${FAKE_TIME:-600},
  "targetAccuracy": 0.85,
  "finalAccuracy": 0.87,
  "epochs": 1
}
JSON
