#!/bin/sh
#
# floor-make-parallel.sh [N] [K]: the machine's floor for running N
# independent do-nothing commands K at a time.  A generated Makefile has N
# .PHONY targets whose recipe is "@true", run with make -jK; this is what
# a process spawner on this machine can do at best, for sluice's fan-out
# benchmark to be compared with.  Prints one line:
#   make -jK: N true recipes in S s: R/s
#
# Defaults: N=1000, K=the number of CPUs.  Not part of make check.

set -eu

n=${1:-1000}
k=${2:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 4)}
case $n in ''|*[!0-9]*|0) echo "usage: $0 [N] [K]" >&2; exit 2;; esac
case $k in ''|*[!0-9]*|0) echo "usage: $0 [N] [K]" >&2; exit 2;; esac
command -v make >/dev/null || { echo "$0: make not found" >&2; exit 2; }

now_ns() { date +%s%N; }
case $(now_ns) in *[!0-9]*) echo "$0: date +%s%N unsupported" >&2; exit 2;; esac

dir=$(mktemp -d "${TMPDIR:-/tmp}/sluice-floor.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM

awk -v n="$n" 'BEGIN {
	printf ".PHONY: all"
	for (i = 1; i <= n; i++) printf " t%d", i
	printf "\nall:"
	for (i = 1; i <= n; i++) printf " t%d", i
	printf "\n"
	for (i = 1; i <= n; i++) printf "t%d:\n\t@true\n", i
}' > "$dir/Makefile"

t0=$(now_ns)
make -s -f "$dir/Makefile" -C "$dir" -j"$k" all
t1=$(now_ns)

awk -v n="$n" -v k="$k" -v ns=$((t1 - t0)) 'BEGIN {
	s = ns / 1e9
	r = s > 0 ? n / s : 0
	printf "make -j%d: %d true recipes in %.3f s: %.0f/s\n", k, n, s, r
}'
