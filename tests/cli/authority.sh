#!/bin/sh
# tests/cli/authority.sh: the authority matrix, with real Unix accounts.
# Who may approve, reject and skip a gate (approvers by name and by
# @group, primary or supplementary; allow_self on the gate and as the
# site's default, fixed on the row; quorum 2 and the same person twice;
# skip of a gate needs approve's right), who may operate (the site's
# operators: start, cancel, pause, resume, retry, skip of other steps,
# template save/rm, schedules), who may finish a wait step (complete, fail,
# skip by its "by"; with none, the operators), blank reasons, and
# USER/LOGNAME spoofing.
# Each case asserts the exit status, the one line that says which rule
# decided, and the audit row (action, who, uid, comment).
#
# The matrix is data run through a "via": how a command reaches the
# engine.  Three vias run the same table:
#   offline  no engine runs; the CLI, as the account, applies the command
#            itself (personal mode with nobody hosting the engine);
#   inbox    an engine runs as another account (a console hosting it, in
#            personal mode); the command reaches it over its socket
#            (before the socket, through the inbox: hence the name);
#   socket   service mode: the engine runs as a service account that
#            owns the database's directory (setgid, not group-writable),
#            the accounts can only read the database and every command
#            goes over the socket, the caller known by SO_PEERCRED.
# All must give identical outcomes and audit rows, so every case's
# expectations are fixed, whatever the via.  Each via works on a database,
# a site config and fixture files of its own, so the three run at once;
# their cases are reported in order, one via after the other.
#
# Needs root (to create accounts: useradd/groupadd with unique names,
# removed at exit) and setpriv; skipped with the reason otherwise.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root to create test accounts (useradd)"
for t in useradd userdel groupadd groupdel setpriv; do
	command -v "$t" >/dev/null 2>&1 || skip_all "needs $t"
done

VIAS=${AUTHORITY_VIAS:-"offline inbox socket"}

# bail REASON: stop the script, failing (a fixture could not be made).
bail() {
	echo "Bail out! $*"
	exit 1
}

# --- accounts, groups and a shared database directory ----------------------

tag=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
P="sla$tag"			# a unique prefix: sla1a2b3c
TEAM="${P}team"			# everyone: the database's group
OPS="${P}ops"			# approvers and operators by @group
USERS=""
GROUPS_MADE=""
SHARED=""

auth_cleanup() {
	cleanup
	for u in $USERS; do
		userdel "$u" >/dev/null 2>&1
	done
	for g in $GROUPS_MADE; do
		groupdel "$g" >/dev/null 2>&1
	done
	[ -n "$SHARED" ] && rm -rf "$SHARED"
}
trap 'auth_cleanup' EXIT

groupadd "$TEAM" || skip_all "groupadd $TEAM failed"
GROUPS_MADE="$TEAM"
groupadd "$OPS" || skip_all "groupadd $OPS failed"
GROUPS_MADE="$GROUPS_MADE $OPS"

# mkuser ROLE PRIMARY [SUPPLEMENTARY]: an account named $P$ROLE; its uid
# and primary gid in $uid_ROLE and $gid_ROLE (looked up once: a case runs
# as several accounts, and each lookup is a process).
mkuser() {
	useradd -M -N -d /nonexistent -s /usr/sbin/nologin -g "$2" \
	    ${3:+-G "$3"} "$P$1" || skip_all "useradd $P$1 failed"
	USERS="$USERS $P$1"
	eval "uid_$1=$(id -u "$P$1") gid_$1=$(id -g "$P$1")"
}
mkuser alice "$TEAM" "$OPS"	# starts the runs; @ops (supplementary)
mkuser bob "$TEAM" "$OPS"	# @ops (supplementary)
mkuser erin "$OPS" "$TEAM"	# @ops as the primary group
mkuser carol "$TEAM"		# a named approver; not an operator
mkuser dave "$TEAM"		# nobody in particular
mkuser host "$TEAM"		# hosts the engine in the inbox via
mkuser svc "$TEAM"		# the service account in the socket via
alice=${P}alice bob=${P}bob erin=${P}erin carol=${P}carol dave=${P}dave
host=${P}host svc=${P}svc

# The test's own directory is root's (0700): the accounts share this one.
SHARED=$(mktemp -d "${TMPDIR:-/tmp}/sluice-auth.XXXXXX") || exit 99
chgrp "$TEAM" "$SHARED"
chmod 2770 "$SHARED"
for u in $USERS; do
	mkdir -p "$SHARED/home-$u"
	chown "$u" "$SHARED/home-$u"
done
# The service's directory: its account's, the team may read, not write.
SVCDIR="$SHARED/service"
mkdir "$SVCDIR"
chown "$svc:$TEAM" "$SVCDIR"
chmod 2750 "$SVCDIR"

# The binary must be reachable by the accounts.
setpriv --reuid="$dave" --regid="$TEAM" --init-groups "$SLUICE" --version \
    >/dev/null 2>&1 ||
    skip_all "the accounts cannot run $SLUICE (a build directory others cannot enter?)"

# as USER [SPOOF] -- ARGS...: run sluice as USER (its uid, its groups),
# with USER and LOGNAME set to SPOOF when given; $OUT, $ERR, $RC.
as() {
	_u=$1
	_spoof=$1
	shift
	if [ "$1" != "--" ]; then
		_spoof=$1
		shift
	fi
	shift
	eval "_g=\$gid_${_u#"$P"}"
	setpriv --reuid="$_u" --regid="$_g" --init-groups \
	    env HOME="$SHARED/home-$_u" XDG_CONFIG_HOME="$SHARED/home-$_u/.config" \
	    USER="$_spoof" LOGNAME="$_spoof" \
	    "$SLUICE" "$@" >"$T_DIR/$VIA.out" 2>"$T_DIR/$VIA.err" </dev/null
	RC=$?
	OUT=$(cat "$T_DIR/$VIA.out")
	ERR=$(grep -v '^sluice: warning: no engine is running' "$T_DIR/$VIA.err")
}

# --- vias ----------------------------------------------------------------------

via_offline_start() { :; }
via_offline_stop() { :; }
via_offline_reload() { :; }

# An engine runs as $host, as a console hosting it would.  The database
# is made first (by $host), so the polls below, as root, never make it.
via_inbox_start() {
	[ -f "$SLUICE_DB" ] || as "$host" -- init
	setpriv --reuid="$host" --regid="$TEAM" --init-groups \
	    env HOME="$SHARED/home-$host" "$SLUICE" engine \
	    >"$T_DIR/engine-$VIA.out" 2>"$T_DIR/engine-$VIA.err" </dev/null &
	EPID=$!
	via_engine_started
	wait_for engine_named "$EPID" ||
	    bail "the engine did not start: $(cat "$T_DIR/engine-$VIA.err")"
}
via_inbox_stop() {
	via_engine_stop
}
via_inbox_reload() {
	via_inbox_stop
	via_inbox_start
}

# The service engine, as its account with the unit's umask, on a database
# in its own directory: the accounts read and ask over the socket.
via_socket_start() {
	export SLUICE_DB="$SVCDIR/team.db"
	setpriv --reuid="$svc" --regid="$TEAM" --init-groups \
	    env HOME="$SHARED/home-$svc" sh -c 'umask 027; "$1" init \
	    >/dev/null || exit 1; exec "$1" engine' sh \
	    "$SLUICE" >"$T_DIR/engine-$VIA.out" 2>"$T_DIR/engine-$VIA.err" \
	    </dev/null &
	EPID=$!
	via_engine_started
	wait_for test -S "$SLUICE_DB.sock" ||
	    bail "the service engine did not start: $(cat "$T_DIR/engine-$VIA.err")"
	# The service's files are its own: members read over the socket.
	[ "$(stat -c %a "$SLUICE_DB")" = 600 ] ||
	    bail "the service's database is not 0600"
}
via_socket_stop() {
	via_engine_stop
}

# A via runs in a subshell, whose ENGINES the exit trap does not see: its
# engine's pid goes in a file that engine-lib.sh's cleanup kills, until
# the engine has stopped.
via_engine_started() {
	echo "$EPID" >"$T_DIR/engine-$VIA.pid"
}
via_engine_stop() {
	engine_stop
	rm -f "$T_DIR/engine-$VIA.pid"
}
via_socket_reload() {
	via_socket_stop
	via_socket_start
}

# site JSON: the site's config.json (the engine re-reads it).
site() {
	printf '%s\n' "$1" >"$SITE"
	chmod 0644 "$SITE"
	via_${VIA}_reload
}

# --- fixtures: a fresh workflow whose first step is a gate --------------------

# gate STARTER GATE-OPTIONS: start a run as STARTER; $W the workflow, $G
# its gate row.
gate() {
	cat >"$VDIR/gate.json" <<EOF
{"start": {"gate": {"message": "go?"$2}, "next": "after"},
 "after": {"tool": "noop"}}
EOF
	chmod 0644 "$VDIR/gate.json"
	as "$1" -- run "$VDIR/gate.json"
	[ "$RC" = 0 ] || bail "gate fixture: run as $1: $RC $ERR"
	W=$OUT
	G=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $W AND name = 'start'")
}

# waitstep STARTER WAIT-OPTIONS: start a run as STARTER whose first step
# is a wait step; $W the workflow, $G its row.
waitstep() {
	cat >"$VDIR/wait.json" <<EOF
{"start": {"wait": {"message": "callback"$2}, "next": "after"},
 "after": {"tool": "noop"}}
EOF
	chmod 0644 "$VDIR/wait.json"
	as "$1" -- run "$VDIR/wait.json"
	[ "$RC" = 0 ] || bail "wait fixture: run as $1: $RC $ERR"
	W=$OUT
	wait_for step_is "$W" start waiting || bail "wait fixture: not waiting"
	G=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $W AND name = 'start'")
}

# failed STARTER: a run as STARTER that failed at step boom ($W, $S).
failed() {
	cat >"$VDIR/fail.json" <<'EOF'
{"start": {"tool": "fail", "args": {"message": "no"},
  "retry": {"max_attempts": 1}}}
EOF
	chmod 0644 "$VDIR/fail.json"
	as "$1" -- run --wait "$VDIR/fail.json"
	W=$(new_id)
	wait_for wf_is "$W" failed || bail "failed fixture: $W is not failed"
	S=$(q "SELECT max(id) FROM workflow_steps WHERE workflow_id = $W")
}

# --- one case ------------------------------------------------------------------

# t WHO[:SPOOF] RC MESSAGE AUDIT -- ARGS...: run ARGS as WHO; RC is the
# exit status; MESSAGE the line on stdout (RC 0) or stderr (without the
# "sluice: " prefix), "*" for any; AUDIT "action|who|comment" of the
# first audit row written since (who's uid is checked too), "-" none.
# @W@, @G@ and @S@ in ARGS, MESSAGE and AUDIT are the fixture's ids.
t() {
	_who=${1%%:*}
	_sp=${1#*:}
	_rc=$2
	sub "$3"
	_msg=$SUB
	sub "$4"
	_aud=$SUB
	shift 5
	_args=""
	_shown=""
	for _a; do
		sub "$_a"
		_shown="$_shown$SUB "
		squote "$SUB"
		_args="$_args $SQ"
	done
	_before=$(q "SELECT coalesce(max(id), 0) FROM audit")
	if [ "$_sp" != "$_who" ]; then
		eval "as \"\$_who\" \"\$_sp\" -- $_args"
	else
		eval "as \"\$_who\" -- $_args"
	fi
	_d="$VIA: ${_who#"$P"} $_shown"
	[ "$_sp" != "$_who" ] && _d="$_d(USER=LOGNAME=${_sp#"$P"}) "
	is "$RC" "$_rc" "$_d: exit $_rc"
	if [ "$_msg" != "*" ]; then
		if [ "$_rc" = 0 ]; then
			is "$OUT" "$_msg" "$_d: says so"
		else
			is "$ERR" "sluice: $_msg" "$_d: says which rule"
		fi
	fi
	if [ "$_aud" = "-" ]; then
		q_is "SELECT count(*) FROM audit WHERE id > $_before" 0 \
		    "$_d: nothing audited"
	else
		eval "_uid=\$uid_${_who#"$P"}"
		is "$(q "SELECT action || '|' || who || '|' || coalesce(comment, '') || '|' || uid
		    FROM audit WHERE id > $_before ORDER BY id LIMIT 1")" \
		    "$_aud|$_uid" "$_d: audited"
	fi
}

# sub TEXT: TEXT with the fixture's ids (@W@, @G@, @S@) and the accounts'
# names (@alice@, @OPS@...) in $SUB.  The shell's own string operations,
# not sed: a case calls this for each of its words.
sub() {
	SUB=""
	_r=$1
	while :; do
		case $_r in
		*@*@*)	;;
		*)	break ;;
		esac
		SUB=$SUB${_r%%@*}
		_r=${_r#*@}
		case ${_r%%@*} in
		W|G|S|alice|bob|erin|carol|dave|OPS)
			eval "SUB=\$SUB\$${_r%%@*}"
			_r=${_r#*@} ;;
		*)	SUB=$SUB@ ;;
		esac
	done
	SUB=$SUB$_r
}

# squote TEXT: TEXT quoted for eval, in $SQ ('\'' for each ').
squote() {
	SQ=""
	_r=$1
	while :; do
		case $_r in
		*\'*)	;;
		*)	break ;;
		esac
		SQ="$SQ${_r%%\'*}'\\''"
		_r=${_r#*\'}
	done
	SQ="'$SQ$_r'"
}

# --- the matrix -------------------------------------------------------------------

NOT_CAROL="is not an approver of gate start (step @G@): approvers are @carol@"
NOT_OPS="is not an approver of gate start (step @G@): approvers are @@OPS@"
SELF="allow_self is false and @alice@ started workflow @W@: the starter may not"
OPERATORS="is not an operator (operators: @alice@, @@OPS@)"
NOT_BY="wait step start (step @G@): it may be finished by @carol@, @@OPS@"
WAIT_NOT_GATE="step @G@ (start) is a wait step, finished from outside, not a gate: use sluice complete @G@ (or sluice fail @G@ -m REASON)"
NOBODY="wait step start (step @G@): it names nobody in \"by\", so only operators may (@alice@, @@OPS@)"

matrix() {
	site '{}'

	# Approver by name.
	gate "$alice" ', "approvers": ["'"$carol"'"]'
	t "$dave" 4 "@dave@ $NOT_CAROL" "approve-refused|@dave@|@dave@ $NOT_CAROL" \
	    -- approve @G@ -m mine
	t "$alice" 4 "@alice@ $NOT_CAROL" "approve-refused|@alice@|@alice@ $NOT_CAROL" \
	    -- approve @G@
	t "$dave" 4 "@dave@ $NOT_CAROL" "reject-refused|@dave@|@dave@ $NOT_CAROL" \
	    -- reject @G@ -m no
	t "$dave" 4 "@dave@ $NOT_CAROL" "skip-refused|@dave@|@dave@ $NOT_CAROL" \
	    -- skip @G@ -m "not a gate for me"
	t "$carol" 4 "a reason is required: reject needs -m TEXT that is not blank" \
	    "reject-refused|@carol@|a reason is required: reject needs -m TEXT that is not blank" \
	    -- reject @G@ -m "   "
	t "$carol" 4 "a reason is required: reject needs -m TEXT that is not blank" \
	    "reject-refused|@carol@|a reason is required: reject needs -m TEXT that is not blank" \
	    -- reject @G@ -m ""
	t "$dave:$carol" 4 "@dave@ $NOT_CAROL" "approve-refused|@dave@|@dave@ $NOT_CAROL" \
	    -- approve @G@
	t "$carol" 0 "approved step @G@ (start)" "approve|@carol@|by name" \
	    -- approve @G@ -m "by name"
	t "$carol" 4 "step @G@ (start) is not waiting for a decision: it is done" \
	    "approve-refused|@carol@|step @G@ (start) is not waiting for a decision: it is done" \
	    -- approve @G@

	gate "$alice" ', "approvers": ["'"$carol"'"]'
	t "$carol" 0 "rejected step @G@ (start)" "reject|@carol@|not today" \
	    -- reject @G@ -m "not today"

	gate "$alice" ', "approvers": ["'"$carol"'"]'
	t "$carol" 4 "a reason is required: skip needs -m TEXT that is not blank" \
	    "skip-refused|@carol@|a reason is required: skip needs -m TEXT that is not blank" \
	    -- skip @G@ -m "	 "
	t "$carol" 0 "skipped step @G@ (start)" "skip|@carol@|carol may" \
	    -- skip @G@ -m "carol may"
	is "$(q "SELECT detail_json FROM audit WHERE action = 'skip' ORDER BY id DESC LIMIT 1")" \
	    '{"gate":true,"right":"approve"}' "$VIA: a gate's skip is recorded as approve's right"

	# Approvers by @group: supplementary and primary membership.
	gate "$alice" ', "approvers": ["@'"$OPS"'"]'
	t "$dave" 4 "@dave@ $NOT_OPS" "approve-refused|@dave@|@dave@ $NOT_OPS" \
	    -- approve @G@
	t "$carol" 4 "@carol@ $NOT_OPS" "approve-refused|@carol@|@carol@ $NOT_OPS" \
	    -- approve @G@
	t "$dave:$bob" 4 "@dave@ $NOT_OPS" "approve-refused|@dave@|@dave@ $NOT_OPS" \
	    -- approve @G@
	t "$carol" 4 "@carol@ $NOT_OPS" "skip-refused|@carol@|@carol@ $NOT_OPS" \
	    -- skip @G@ -m "walk past"
	t "$bob" 0 "approved step @G@ (start)" "approve|@bob@|" -- approve @G@

	gate "$alice" ', "approvers": ["@'"$OPS"'"]'
	t "$erin" 0 "approved step @G@ (start)" "approve|@erin@|primary group" \
	    -- approve @G@ -m "primary group"

	# allow_self false on the gate.
	gate "$alice" ', "approvers": ["'"$alice"'", "'"$bob"'"], "allow_self": false'
	t "$alice" 4 "$SELF approve its gates" "approve-refused|@alice@|$SELF approve its gates" \
	    -- approve @G@
	t "$alice" 4 "$SELF skip its gates" "skip-refused|@alice@|$SELF skip its gates" \
	    -- skip @G@ -m "my own"
	t "$alice:$bob" 4 "$SELF approve its gates" "approve-refused|@alice@|$SELF approve its gates" \
	    -- approve @G@
	t "$bob" 0 "approved step @G@ (start)" "approve|@bob@|four eyes" \
	    -- approve @G@ -m "four eyes"

	gate "$alice" ', "approvers": ["'"$alice"'", "'"$bob"'"], "allow_self": false'
	t "$alice" 0 "rejected step @G@ (start)" "reject|@alice@|withdrawn" \
	    -- reject @G@ -m withdrawn

	# Quorum 2: the same person twice, skip cannot stand for it.
	gate "$alice" ', "approvers": ["@'"$OPS"'", "'"$carol"'"], "quorum": 2'
	t "$bob" 0 "approved step @G@ (start): 1 of 2 approvals" "approve|@bob@|one" \
	    -- approve @G@ -m one
	t "$bob" 4 "@bob@ already approved gate start (step @G@)" \
	    "approve-refused|@bob@|@bob@ already approved gate start (step @G@)" \
	    -- approve @G@ -m again
	t "$bob:$carol" 4 "@bob@ already approved gate start (step @G@)" \
	    "approve-refused|@bob@|@bob@ already approved gate start (step @G@)" \
	    -- approve @G@
	t "$bob" 4 "@bob@ already approved gate start (step @G@)" \
	    "reject-refused|@bob@|@bob@ already approved gate start (step @G@)" \
	    -- reject @G@ -m "changed my mind"
	t "$carol" 4 "gate start (step @G@) needs 2 approvals: one person's skip cannot stand for them (approve it instead)" \
	    "skip-refused|@carol@|gate start (step @G@) needs 2 approvals: one person's skip cannot stand for them (approve it instead)" \
	    -- skip @G@ -m shortcut
	t "$dave" 4 "@dave@ is not an approver of gate start (step @G@): approvers are @@OPS@, @carol@" \
	    "approve-refused|@dave@|@dave@ is not an approver of gate start (step @G@): approvers are @@OPS@, @carol@" \
	    -- approve @G@
	t "$carol" 0 "approved step @G@ (start)" "approve|@carol@|two" \
	    -- approve @G@ -m two

	# No approvers: anyone who can reach the database.
	gate "$alice" ''
	t "$dave" 0 "approved step @G@ (start)" "approve|@dave@|" -- approve @G@
	gate "$alice" ''
	t "$alice" 0 "approved step @G@ (start)" "approve|@alice@|" -- approve @G@
	gate "$alice" ''
	t "$dave" 0 "approved step @G@ (start)" "approve|@dave@|" \
	    -- approve @G@ -m "   "

	# Wait steps: finished from outside by those their "by" names.
	waitstep "$alice" ', "by": ["'"$carol"'", "@'"$OPS"'"]'
	t "$dave" 4 "@dave@ may not complete $NOT_BY" \
	    "complete-refused|@dave@|@dave@ may not complete $NOT_BY" \
	    -- complete @G@
	t "$dave:$carol" 4 "@dave@ may not complete $NOT_BY" \
	    "complete-refused|@dave@|@dave@ may not complete $NOT_BY" \
	    -- complete @G@
	t "$dave" 4 "@dave@ may not fail $NOT_BY" \
	    "fail-refused|@dave@|@dave@ may not fail $NOT_BY" \
	    -- fail @G@ -m broken
	t "$dave" 4 "@dave@ may not skip $NOT_BY" \
	    "skip-refused|@dave@|@dave@ may not skip $NOT_BY" \
	    -- skip @G@ -m "walk past"
	t "$carol" 4 "$WAIT_NOT_GATE" "approve-refused|@carol@|$WAIT_NOT_GATE" \
	    -- approve @G@
	t "$carol" 0 "completed step @G@ (start)" "complete|@carol@|by name" \
	    -- complete @G@ --result '{"ok": true}' -m "by name"
	q_is "SELECT result_json FROM workflow_steps WHERE id = $G" '{"ok":true}' \
	    "$VIA: the result is the one given"
	waitstep "$alice" ', "by": ["'"$carol"'", "@'"$OPS"'"]'
	t "$erin" 0 "failed step @G@ (start)" "fail|@erin@|broken" \
	    -- fail @G@ -m broken
	waitstep "$alice" ', "by": ["'"$carol"'", "@'"$OPS"'"]'
	t "$bob" 0 "completed step @G@ (start)" "complete|@bob@|" \
	    -- complete "@W@:start"

	# The site's allow_self default, fixed on the gate when created.
	site '{"allow_self": false}'
	gate "$alice" ''
	site '{}'
	t "$alice" 4 "$SELF approve its gates" "approve-refused|@alice@|$SELF approve its gates" \
	    -- approve @G@
	t "$bob" 0 "approved step @G@ (start)" "approve|@bob@|" -- approve @G@
	site '{"allow_self": false}'
	gate "$alice" ', "allow_self": true'
	t "$alice" 0 "approved step @G@ (start)" "approve|@alice@|" -- approve @G@

	# Operators.
	site '{"operators": ["'"$alice"'", "@'"$OPS"'"]}'
	t "$dave" 4 "@dave@ $OPERATORS: start refused" \
	    "start-refused|@dave@|@dave@ $OPERATORS: start refused" \
	    -- run "$VDIR/gate.json"
	t "$carol" 4 "@carol@ $OPERATORS: start refused" \
	    "start-refused|@carol@|@carol@ $OPERATORS: start refused" \
	    -- run "$VDIR/gate.json"
	t "$bob" 0 "*" "start|@bob@|" -- run "$VDIR/gate.json"
	waitstep "$alice" ''
	t "$dave" 4 "@dave@ may not complete $NOBODY" \
	    "complete-refused|@dave@|@dave@ may not complete $NOBODY" \
	    -- complete @G@
	t "$erin" 0 "completed step @G@ (start)" "complete|@erin@|" \
	    -- complete @G@
	gate "$alice" ', "approvers": ["'"$carol"'"]'
	t "$alice" 4 "@alice@ $NOT_CAROL" "approve-refused|@alice@|@alice@ $NOT_CAROL" \
	    -- approve @G@
	t "$dave" 4 "@dave@ $OPERATORS: pause refused" \
	    "pause-refused|@dave@|@dave@ $OPERATORS: pause refused" -- pause @W@
	t "$dave:$alice" 4 "@dave@ $OPERATORS: pause refused" \
	    "pause-refused|@dave@|@dave@ $OPERATORS: pause refused" -- pause @W@
	t "$erin" 0 "paused workflow @W@" "pause|@erin@|" -- pause @W@
	t "$carol" 4 "@carol@ $OPERATORS: resume refused" \
	    "resume-refused|@carol@|@carol@ $OPERATORS: resume refused" -- resume @W@
	t "$bob" 0 "resumed workflow @W@" "resume|@bob@|" -- resume @W@
	t "$carol" 0 "approved step @G@ (start)" "approve|@carol@|gates need no operator" \
	    -- approve @G@ -m "gates need no operator"
	gate "$alice" ''
	t "$dave" 4 "@dave@ $OPERATORS: cancel refused" \
	    "cancel-refused|@dave@|@dave@ $OPERATORS: cancel refused" \
	    -- cancel @W@ -m stop
	t "$alice" 0 "cancelled workflow @W@" "cancel|@alice@|" -- cancel @W@ -m " "
	failed "$alice"
	t "$dave" 4 "@dave@ $OPERATORS: retry refused" \
	    "retry-refused|@dave@|@dave@ $OPERATORS: retry refused" -- retry @W@
	t "$dave" 4 "@dave@ $OPERATORS: skip refused" \
	    "skip-refused|@dave@|@dave@ $OPERATORS: skip refused" \
	    -- skip @S@ -m "let it pass"
	t "$bob" 4 "a reason is required: skip needs -m TEXT that is not blank" \
	    "skip-refused|@bob@|a reason is required: skip needs -m TEXT that is not blank" \
	    -- skip @S@ -m "  "
	t "$bob" 0 "skipped step @S@ (start)" "skip|@bob@|known flake" \
	    -- skip @S@ -m "known flake"
	cp "$VDIR/gate.json" "$VDIR/tpl.json"
	chmod 0644 "$VDIR/tpl.json"
	t "$carol" 4 "@carol@ $OPERATORS: template save refused" \
	    "template save-refused|@carol@|@carol@ $OPERATORS: template save refused" \
	    -- template save "t$VIA" "$VDIR/tpl.json"
	t "$alice" 0 "saved template t$VIA version 1" "template save|@alice@|" \
	    -- template save "t$VIA" "$VDIR/tpl.json"
	t "$dave" 4 "@dave@ $OPERATORS: schedule-add refused" \
	    "schedule-add-refused|@dave@|@dave@ $OPERATORS: schedule-add refused" \
	    -- schedule add "s$VIA" --cron "@daily" --template "t$VIA"
	t "$dave" 4 "@dave@ $OPERATORS: template rm refused" \
	    "template rm-refused|@dave@|@dave@ $OPERATORS: template rm refused" \
	    -- template rm "t$VIA"
	t "$erin" 0 "removed template t$VIA" "template rm|@erin@|" \
	    -- template rm "t$VIA"

	# An empty list lets no one.
	site '{"operators": []}'
	t "$alice" 4 "@alice@ is not an operator (operators: none): start refused" \
	    "start-refused|@alice@|@alice@ is not an operator (operators: none): start refused" \
	    -- run "$VDIR/gate.json"
	site '{}'
}

# run_via VIA: the matrix through VIA, its database made by a member, as a
# team makes its shared one; its audit trail, as who did what, kept.
run_via() {
	VIA=$1
	VDIR="$SHARED/$VIA"
	mkdir "$VDIR"
	chmod 2770 "$VDIR"
	SITE="$VDIR/site-config.json"
	export SLUICE_SITE_CONFIG="$SITE"
	export SLUICE_DB="$VDIR/team.db"
	as "$host" -- init
	W="" G="" S=""
	via_${VIA}_start
	matrix
	via_${VIA}_stop
	"$SLUICE" audit --verify >"$T_DIR/$VIA.out" 2>"$T_DIR/$VIA.err" \
	    </dev/null
	RC=$?
	ERR=$(cat "$T_DIR/$VIA.err")
	expect_rc 0 "$VIA: the audit trail verifies after the matrix"
	q "SELECT action || '|' || who || '|' || uid FROM audit ORDER BY id" \
	    >"$T_DIR/audit-$VIA"
}

for VIA in $VIAS; do
	( run_via "$VIA" ) >"$T_DIR/tap-$VIA" 2>&1 &
	eval "pid_$VIA=\$!"
done
bailed=0
for VIA in $VIAS; do
	eval "wait \$pid_$VIA" || bailed=1
	tap_replay "$T_DIR/tap-$VIA"
done
[ "$bailed" -eq 0 ] || exit 1

# Every via wrote the same trail: the same actions by the same people.
first=""
for VIA in $VIAS; do
	if [ -z "$first" ]; then
		first=$VIA
		continue
	fi
	is "$(cat "$T_DIR/audit-$VIA")" "$(cat "$T_DIR/audit-$first")" \
	    "$VIA and $first wrote identical audit trails"
done

done_testing
