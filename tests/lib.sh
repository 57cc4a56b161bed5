# tests/lib.sh: shared helpers for the shell tests, which speak TAP.
#
# Each test sources this file, gets a private HOME, XDG dirs and database
# under a temporary directory that is removed on exit, and reports cases
# with ok/is/... ; it must end with done_testing.

set -u

: "${SLUICE:?SLUICE must name the sluice binary (run through make check)}"
: "${TESTS_DATA:?TESTS_DATA must name tests/data}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"

T_COUNT=0
T_FAILED=0
T_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sluice-test.XXXXXX") || exit 99
trap 'rm -rf "$T_DIR"' EXIT
export HOME="$T_DIR/home"
export XDG_CONFIG_HOME="$HOME/.config"
export XDG_STATE_HOME="$HOME/.local/state"
export SLUICE_DB="$T_DIR/test.db"
# The site's config.json (test builds only honour this): none unless a
# test writes one, whatever /etc/sluice holds.
export SLUICE_SITE_CONFIG="$T_DIR/site-config.json"
mkdir -p "$HOME" "$XDG_CONFIG_HOME/sluice"
unset SLUICE_TOOLS VISUAL EDITOR NO_COLOR

# q SQL: the tests' one reader of the test database ($SLUICE_DB), waiting
# up to 5 s for a writer.  Q_AS names a command to read through (as_user
# in leftover.sh: a test user's reads keep the database and its WAL files
# theirs); Q_READONLY=1 opens it read-only (service mode: a writable
# sqlite3 closing last would checkpoint and remove the -wal and -shm files
# that members read with).
q() {
	${Q_AS:-} sqlite3 ${Q_READONLY:+-readonly} -cmd '.timeout 5000' \
	    "$SLUICE_DB" "$1"
}

# db_init [PATH]: create a database (default $SLUICE_DB) as "sluice init"
# does: a named path is never created by any other command.
db_init() {
	"$SLUICE" init "${1:-$SLUICE_DB}" >/dev/null || {
		echo "Bail out! sluice init ${1:-$SLUICE_DB} failed"
		exit 99
	}
}
# Every test starts with its database made; a test about a missing one
# removes it or names another path.
db_init

# ok COND-EXIT-STATUS DESCRIPTION: report one case from the last status.
ok() {
	T_COUNT=$((T_COUNT + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $T_COUNT - $2"
	else
		T_FAILED=$((T_FAILED + 1))
		echo "not ok $T_COUNT - $2"
	fi
}

# is GOT WANT DESCRIPTION: compare two strings.
is() {
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		printf '#   got:  %s\n#   want: %s\n' "$1" "$2"
	fi
}

# like TEXT PATTERN DESCRIPTION: TEXT contains the fixed string PATTERN.
like() {
	case "$1" in
	*"$2"*) ok 0 "$3" ;;
	*)	ok 1 "$3"
		printf '#   got:  %s\n#   want it to contain: %s\n' "$1" "$2" ;;
	esac
}

# unlike TEXT PATTERN DESCRIPTION: TEXT does not contain PATTERN.
unlike() {
	case "$1" in
	*"$2"*) ok 1 "$3"
		printf '#   got:  %s\n#   want it not to contain: %s\n' "$1" "$2" ;;
	*)	ok 0 "$3" ;;
	esac
}

# run_sluice ARGS...: run sluice, keeping stdout in $OUT, stderr in $ERR
# and the exit status in $RC.  Never fails the shell.
run_sluice() {
	"$SLUICE" "$@" >"$T_DIR/out" 2>"$T_DIR/err" </dev/null
	RC=$?
	OUT=$(cat "$T_DIR/out")
	ERR=$(cat "$T_DIR/err")
}

# expect_rc WANT DESCRIPTION: the last run_sluice exited with WANT.
expect_rc() {
	if [ "$RC" -eq "$1" ]; then
		ok 0 "$2"
	else
		ok 1 "$2"
		printf '#   exit %s, want %s\n#   stderr: %s\n' "$RC" "$1" "$ERR"
	fi
}

# one_line TEXT DESCRIPTION: TEXT is exactly one line.
one_line() {
	n=$(printf '%s\n' "$1" | wc -l)
	if [ "$n" -eq 1 ] && [ -n "$1" ]; then
		ok 0 "$2"
	else
		ok 1 "$2"
		printf '#   %s lines: %s\n' "$n" "$1"
	fi
}

# wait_for [SECONDS] CMD...: poll CMD every 50 ms until it succeeds, for
# SECONDS (10 by default) counted in tries, not by the clock: under load
# each try takes longer, and the wait with it, as the engine's own work
# does; 1 when CMD never succeeded.
wait_for() {
	_wt=200
	case $1 in
	*[!0-9]*|"") ;;
	*)	_wt=$(($1 * 20)); shift ;;
	esac
	_wn=0
	while ! "$@" >/dev/null 2>&1; do
		_wn=$((_wn + 1))
		[ "$_wn" -ge "$_wt" ] && return 1
		sleep 0.05
	done
	return 0
}

# json_query JSON SQL: run SQL with the JSON document as d.j, e.g.
#   json_query "$OUT" "SELECT json_extract(j, '$.name') FROM d"
# (SQLite's JSON functions: no python or jq needed).
json_query() {
	printf '%s' "$1" >"$T_DIR/json"
	sqlite3 :memory: "WITH d(j) AS (SELECT CAST(readfile('$T_DIR/json') AS TEXT)) $2"
}

# ms_of SQL-EXPR: SQL turning an RFC 3339 time from --json (as
#   "2026-11-24T16:14:51.123Z") into Unix ms, for comparing with the store.
ms_of() {
	echo "CAST(round((julianday($1) - 2440587.5) * 86400000) AS INTEGER)"
}

# db_digest: a digest of what a refused command must not touch, to show
# nothing changed: every table's rows and the schema, but not the engine's
# heartbeat, which a running engine rewrites whenever it likes.
db_digest() {
	if [ -f "$SLUICE_DB" ]; then
		sqlite3 -cmd '.timeout 5000' "$SLUICE_DB" "SELECT name FROM
		    sqlite_schema WHERE type = 'table' AND name <> 'engine'
		    ORDER BY name" |
		    while read -r _t; do
			echo ".dump $_t"
		done >"$T_DIR/digest.sql"
		{
			echo "SELECT epoch, pid, host, since FROM engine;"
			cat "$T_DIR/digest.sql"
		} | sqlite3 -cmd '.timeout 5000' "$SLUICE_DB" 2>&1 |
		    md5sum | cut -d' ' -f1
	else
		echo none
	fi
}

# tap_replay FILE: the cases of a part of this script that ran apart (in
# a background subshell, its cases numbered from 1, its TAP in FILE),
# counted here in their turn, with their diagnostics; how many in
# $TAP_REPLAYED.  Other lines become diagnostics, but for "Bail out!".
tap_replay() {
	TAP_REPLAYED=0
	while IFS= read -r _tr; do
		case $_tr in
		"ok "*)		ok 0 "${_tr#ok * - }" ;;
		"not ok "*)	ok 1 "${_tr#not ok * - }" ;;
		"#"*|"Bail out!"*)	printf '%s\n' "$_tr"; continue ;;
		*)		printf '# %s\n' "$_tr"; continue ;;
		esac
		TAP_REPLAYED=$((TAP_REPLAYED + 1))
	done <"$1"
}

# skip_cases N REASON: N cases that cannot run here, skipped saying why.
skip_cases() {
	_sk=0
	while [ "$_sk" -lt "$1" ]; do
		_sk=$((_sk + 1))
		T_COUNT=$((T_COUNT + 1))
		echo "ok $T_COUNT # SKIP $2"
	done
}

# skip_all REASON: skip the whole script (exit 77 as automake expects).
skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

done_testing() {
	echo "1..$T_COUNT"
	[ "$T_FAILED" -eq 0 ]
	exit $?
}
