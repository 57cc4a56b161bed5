#!/bin/sh
# tests/service-lib.sh: service mode's fixture, with real, separate Unix
# accounts, sourced after tests/lib.sh and tests/engine-lib.sh by the
# scripts that test service mode (tests/cli/service.sh, tests/mcp/
# service.sh).  Sourcing it skips the script unless it runs as root with
# the tools it needs, and removes the accounts at exit; svc_setup makes
# them and the service's directory, svc_engine starts the engine as the
# service account, as does the unit.  A script that sources
# tests/tui-lib.sh does so after this file, which chains our exit trap.

[ "$(id -u)" -eq 0 ] ||
    skip_all "needs root to create Unix accounts (useradd, setpriv)"
for c in useradd userdel groupadd groupdel setpriv sqlite3; do
	command -v "$c" >/dev/null 2>&1 || skip_all "no $c"
done

SVC_MADE=""
grp=""

# svc_cleanup: what engine-lib.sh cleans, then the accounts and groups.
svc_cleanup() {
	cleanup
	for u in $SVC_MADE; do
		# A member's last command may still be exiting: userdel
		# refuses an account with a process.
		_k=0
		while ! userdel "$u" 2>/dev/null && [ $_k -lt 50 ]; do
			_k=$((_k + 1))
			sleep 0.1
		done
		groupdel "$u" 2>/dev/null
	done
	[ -n "$grp" ] && groupdel "$grp" 2>/dev/null
}
trap 'svc_cleanup' EXIT

# svc_setup PREFIX: the team's group $grp, the engine's account $svc (in
# that group only), team members $alice and $bob, and $eve outside the
# team, all named PREFIX, a letter and our pid; the service's directory
# $dir (the service's, the team's group, setgid, not group-writable) with
# $SLUICE_DB in it; and $flows, for flow files everyone may read.
svc_setup() {
	grp="${1}t$$"
	svc="${1}s$$"
	alice="${1}a$$"
	bob="${1}b$$"
	eve="${1}e$$"
	groupadd "$grp" || skip_all "groupadd failed"
	for u in "$svc" "$alice" "$bob" "$eve"; do
		case $u in
		"$svc")	useradd -M -N -g "$grp" -s /bin/sh "$u" ;;
		"$eve")	useradd -M -U -s /bin/sh "$u" ;;
		*)	useradd -M -U -G "$grp" -s /bin/sh "$u" ;;
		esac || skip_all "useradd $u failed"
		SVC_MADE="$SVC_MADE $u"
	done
	chmod 0755 "$T_DIR" "$HOME"
	dir="$T_DIR/svc"
	mkdir "$dir"
	chown "$svc:$grp" "$dir"
	chmod 2750 "$dir"
	export SLUICE_DB="$dir/sluice.db"
	flows="$T_DIR/flows"
	mkdir -m 0755 "$flows"
}

# svc_member NAME: one more team member, $member, named NAME and our pid,
# in the team's group as $alice and $bob are (removed at exit).
svc_member() {
	member="${1}$$"
	useradd -M -U -G "$grp" -s /bin/sh "$member" ||
	    skip_all "useradd $member failed"
	SVC_MADE="$SVC_MADE $member"
}

# svc_python: $PY, a python3 the members may run for a raw client (root's
# own may be under /root), or skip the script.
svc_python() {
	PY=""
	for _p in /usr/bin/python3 /usr/local/bin/python3 \
	    "$(command -v python3)"; do
		if [ -n "$_p" ] && as "$alice" "$_p" -c pass 2>/dev/null; then
			PY=$_p
			return 0
		fi
	done
	skip_all "needs a python3 that other accounts may run"
}

# Root's own looks are read-only: a writable sqlite3, closing last, would
# checkpoint and remove the -wal and -shm files that members read with.
Q_READONLY=1

# as USER CMD...: run CMD as USER with USER's groups.
as() {
	_u=$1
	shift
	setpriv --reuid="$_u" --regid="$(id -g "$_u")" --init-groups "$@"
}

# svc_engine: start the engine as the service account (umask 027), after
# "sluice init" as the unit's ExecStartPre does; $EPID, and 0 once it
# listens.
svc_engine() {
	setpriv --reuid="$svc" --regid="$grp" --init-groups \
	    sh -c 'umask 027; "$1" init >/dev/null || exit 1; exec "$1" engine' \
	    sh "$SLUICE" \
	    >"$T_DIR/engine.out" 2>"$T_DIR/engine.err" </dev/null &
	EPID=$!
	ENGINES="$ENGINES $EPID"
	wait_for test -S "$SLUICE_DB.sock"
}

# run_as USER ARGS...: sluice as USER, its status in $RC, its output in
# $OUT and $ERR.
run_as() {
	_u=$1
	shift
	as "$_u" "$SLUICE" "$@" >"$T_DIR/out" 2>"$T_DIR/err" </dev/null
	RC=$?
	OUT=$(cat "$T_DIR/out")
	ERR=$(cat "$T_DIR/err")
}

# row_is ID STATUS: the step row's status.
row_is() {
	[ "$(q "SELECT status FROM workflow_steps WHERE id = $1")" = "$2" ]
}
