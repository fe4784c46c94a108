#!/bin/sh
# A trainer whose graph outgrows the host's memory says so in words and exits with status 3,
# instead of dying with "terminate called". The address space is capped (ulimit -v) so a full-size
# ResNet-50 (full width, 224 x 224 images) cannot be built (at 64 x 64 it now compiles in 1 GB);
# usage: out_of_host_memory.sh <resnet50 trainer>
set -u
trainer="$1"
out=$( (ulimit -v 1000000; exec "$trainer" --synthetic-data --width 1 --stem imagenet \
        --image-size 224 --batch-size 4 --epochs 1 --stop-after-steps 1 --validation false \
        --ipus 1 --host-threads 1) 2>&1)
status=$?
if [ "$status" -ne 3 ]; then
  echo "expected exit status 3, got $status:"; echo "$out"; exit 1
fi
case "$out" in
  *"resnet50: error: the host ran out of memory (std::bad_alloc) building or compiling the graph"*) ;;
  *) echo "message not found:"; echo "$out"; exit 1 ;;
esac
case "$out" in
  *"terminate called"*) echo "the trainer aborted:"; echo "$out"; exit 1 ;;
esac
echo "ok: $(printf '%s\n' "$out" | tail -1)"
