#!/bin/sh
# tests/fuzz/run.sh [SECONDS]: build the flow-layer fuzzer with clang's
# libFuzzer, ASan and UBSan, seed it with every flow in tests/data, and run
# it for long (a minute by default).  Needs clang and libclang-rt-*-dev.
# make check runs every target for a few seconds: tests/fuzz/check.sh.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${TMPDIR:-/tmp}/sluice-fuzz
mkdir -p "$out/corpus"
cp "$top"/tests/data/*/*.json "$out/corpus/" 2>/dev/null || true
cp "$top"/share/templates/*.json "$out/corpus/"
clang -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
    -I"$top/src" $(pkg-config --cflags libbsd-overlay libmd libcjson) \
    "$top/tests/fuzz/fuzz-flow.c" "$top"/src/util/*.c "$top"/src/flow/*.c \
    $(pkg-config --libs libbsd-overlay libmd libcjson) -lm -o "$out/fuzz-flow"
"$out/fuzz-flow" -max_total_time="${1:-60}" -max_len=65536 \
    -artifact_prefix="$out/" "$out/corpus"
