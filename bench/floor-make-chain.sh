#!/bin/sh
#
# floor-make-chain.sh [N]: the machine's floor for running N do-nothing
# commands one after another, each waiting for the one before.  A
# generated Makefile has N .PHONY targets, each depending on the previous,
# whose recipe is "@true", run with make -j1; compare with sluice's
# sequential-step benchmark.  Prints one line:
#   make chain: N true recipes in S s: R/s
#
# Default: N=1000.  Not part of make check.

set -eu

n=${1:-1000}
case $n in ''|*[!0-9]*|0) echo "usage: $0 [N]" >&2; exit 2;; esac
command -v make >/dev/null || { echo "$0: make not found" >&2; exit 2; }

now_ns() { date +%s%N; }
case $(now_ns) in *[!0-9]*) echo "$0: date +%s%N unsupported" >&2; exit 2;; esac

dir=$(mktemp -d "${TMPDIR:-/tmp}/sluice-floor.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM

awk -v n="$n" 'BEGIN {
	printf ".PHONY: all"
	for (i = 1; i <= n; i++) printf " t%d", i
	printf "\nall: t%d\nt1:\n\t@true\n", n
	for (i = 2; i <= n; i++) printf "t%d: t%d\n\t@true\n", i, i - 1
}' > "$dir/Makefile"

t0=$(now_ns)
make -s -f "$dir/Makefile" -C "$dir" -j1 all
t1=$(now_ns)

awk -v n="$n" -v ns=$((t1 - t0)) 'BEGIN {
	s = ns / 1e9
	r = s > 0 ? n / s : 0
	printf "make chain: %d true recipes in %.3f s: %.0f/s\n", n, s, r
}'
