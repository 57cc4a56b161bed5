#!/bin/sh
#
# floor-fsync.sh [N] [DIR]: the machine's floor for durable SQLite commits.
# Builds floor-fsync.c with cc (flags from pkg-config sqlite3) into a
# temporary directory, then runs N one-INSERT transactions (WAL,
# synchronous=FULL) on a fresh database in a temporary directory under DIR,
# which should be on the filesystem sluice's database will live on.  Prints
# one line:
#   sqlite fsync floor: N transactions in S s: R/s (M ms each)
#
# Defaults: N=1000, DIR=${TMPDIR:-/tmp}.  Not part of make check.

set -eu

n=${1:-1000}
where=${2:-${TMPDIR:-/tmp}}
case $n in ''|*[!0-9]*|0) echo "usage: $0 [N] [DIR]" >&2; exit 2;; esac
[ -d "$where" ] || { echo "$0: $where: not a directory" >&2; exit 2; }

src=$(cd "$(dirname "$0")" && pwd)/floor-fsync.c
[ -f "$src" ] || { echo "$0: $src: not found" >&2; exit 2; }
command -v pkg-config >/dev/null ||
    { echo "$0: pkg-config not found" >&2; exit 2; }

bin=$(mktemp -d "${TMPDIR:-/tmp}/sluice-floor.XXXXXX")
db=
trap 'rm -rf "$bin" ${db:+"$db"}' EXIT
trap 'exit 130' INT TERM
db=$(mktemp -d "$where/sluice-fsync.XXXXXX")

# shellcheck disable=SC2046 # pkg-config output is meant to be split
${CC:-cc} -O2 $(pkg-config --cflags sqlite3) -o "$bin/floor-fsync" "$src" \
    $(pkg-config --libs sqlite3)
"$bin/floor-fsync" "$db/floor.db" "$n"
