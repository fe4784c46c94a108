#!/usr/bin/env bash
# Checks the installed enable scripts and builds the consumer with a plain Makefile after
# `source enable.sh`, as a Poplar user does. Run with a clean environment (no CPATH,
# LIBRARY_PATH, LD_LIBRARY_PATH, CMAKE_PREFIX_PATH or POPLAR_SDK_ENABLED) as
#   RunEnableScripts.sh PREFIX MAKEFILE CONSUMER_DIR BUILD_DIR [CXX] [EXTRA_FLAGS]
# The consumer's output goes to stdout for the caller to check; checks report on stderr.
set -euo pipefail
prefix=$1 makefile=$2 consumer_dir=$3 build_dir=$4 cxx=${5:-c++} extra_flags=${6:-}

fail() {
  echo "enable scripts: $*" >&2
  exit 1
}

# bash: enable, enable again (nothing may change), then build and run with nothing else set.
mkdir -p "$build_dir"
bash -c 'set -eu
  source "$1/enable.sh"
  test "$POPLAR_SDK_ENABLED" = "$1" || { echo "bash: POPLAR_SDK_ENABLED=$POPLAR_SDK_ENABLED" >&2; exit 1; }
  test "$(command -v popc)" = "$1/bin/popc" || { echo "bash: popc is not the installed one" >&2; exit 1; }
  before="$PATH|$CPATH|$LIBRARY_PATH|$LD_LIBRARY_PATH|$CMAKE_PREFIX_PATH"
  source "$1/enable.sh"
  test "$PATH|$CPATH|$LIBRARY_PATH|$LD_LIBRARY_PATH|$CMAKE_PREFIX_PATH" = "$before" ||
    { echo "bash: sourcing twice changed the search paths" >&2; exit 1; }
  make -s -C "$2" -f "$3" CONSUMER_DIR="$4" CXX="$5" EXTRA_FLAGS="$6" >&2
  "$2/consumer"
' bash "$prefix" "$build_dir" "$makefile" "$consumer_dir" "$cxx" "$extra_flags" ||
  fail "bash: sourcing enable.sh and building with make failed"

# Another SDK enabled already: refused with a message, nothing changed.
out=$(POPLAR_SDK_ENABLED=/some/other/sdk bash -c \
  'source "$1/enable.sh" 2>&1; echo "[$POPLAR_SDK_ENABLED|${CPATH:-}]"' bash "$prefix")
[[ $out == *"another SDK is enabled"*"[/some/other/sdk|]" ]] || fail "bash, SDK already enabled: $out"

# sh (dash on Debian) cannot tell a sourced file its path: sourced from the SDK directory it
# works, from elsewhere it says how to source it.
out=$(sh -c 'cd "$1" && . ./enable.sh && command -v popc && echo "$POPLAR_SDK_ENABLED"' sh "$prefix")
[[ $out == "$prefix/bin/popc"$'\n'"$prefix" ]] || fail "sh from the SDK directory: $out"
out=$(cd / && sh -c '. "$1/enable.sh" 2>&1; echo "[${POPLAR_SDK_ENABLED:-}]"' sh "$prefix")
if [[ $(readlink -f "$(command -v sh)") == *bash* ]]; then
  [[ $out == "[$prefix]" ]] || fail "sh (bash) from elsewhere: $out"
else
  [[ $out == *"source it from the SDK directory"*"[]" ]] || fail "sh from elsewhere: $out"
fi

# The other shells, where installed (they are not part of the build's requirements).
if command -v zsh >/dev/null; then
  out=$(zsh -c 'source "$1/enable.sh" && command -v popc && echo "$CPATH"' zsh "$prefix")
  [[ $out == "$prefix/bin/popc"$'\n'"$prefix/include" ]] || fail "zsh: $out"
  echo "enable scripts: zsh ok" >&2
fi
if command -v fish >/dev/null; then
  out=$(fish -c 'source $argv[1]/enable.fish; and command -v popc; and echo $LIBRARY_PATH' "$prefix")
  [[ $out == "$prefix/bin/popc"$'\n'"$prefix/"* ]] || fail "fish: $out"
  echo "enable scripts: fish ok" >&2
fi
if command -v tcsh >/dev/null; then
  # tcsh -c takes no positional arguments the way sh does: the prefix goes through the env.
  out=$(TESSERA_TEST_PREFIX=$prefix tcsh -c \
        'cd "$TESSERA_TEST_PREFIX"; source ./enable.csh; which popc; echo "$POPLAR_SDK_ENABLED"')
  [[ $out == "$prefix/bin/popc"$'\n'"$prefix" ]] || fail "tcsh: $out"
  echo "enable scripts: tcsh ok" >&2
fi

# The pva Python module: on PYTHONPATH after enable.sh and loaded from the moved prefix (its
# libraries found through its run path). A sanitized module cannot load into an unsanitized
# python, so sanitized builds skip this.
if [ -z "$extra_flags" ]; then
  out=$(env -u PYTHONPATH bash -c 'source "$1/enable.sh" && python3 -c "
import pva
print(pva.__file__)
try:
    pva.openReport(\"/nonexistent/profile.pop\")
except pva.Error as e:
    print(e)
"' bash "$prefix" 2>&1) || fail "python: import pva after enable.sh failed: $out"
  [[ $out == "$prefix/"*"/nonexistent/profile.pop"* ]] ||
    fail "python: pva not imported from $prefix or no error naming the file: $out"
  echo "enable scripts: python import pva ok" >&2
fi

# Four of apps/examples, each built with its own Makefile against the installed SDK and run from
# a copy of its directory, print what their expected_output.txt says.
examples_dir=$(cd "$consumer_dir/../../../apps/examples" && pwd)
for example in vertices_and_codelets stream_callbacks profiling replicated_graphs; do
  work="$build_dir/examples/$example"
  rm -rf "$work" && mkdir -p "$work" && cp "$examples_dir/$example"/* "$work"/
  out=$(bash -c 'set -eu
    source "$1/enable.sh"
    cd "$2"
    make -s CXX="$3" CXXFLAGS="-std=c++20 -O1 $4" >&2
    TESSERA_EXECUTABLE_CACHE="$2/executable-cache" "./$5"
  ' bash "$prefix" "$work" "$cxx" "$extra_flags" "$example") || fail "example $example: build or run failed"
  [[ $out == "$(cat "$examples_dir/$example/expected_output.txt")" ]] ||
    fail "example $example printed:"$'\n'"$out"
  echo "enable scripts: example $example ok" >&2
done
