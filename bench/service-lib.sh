# bench/service-lib.sh: service mode for the benchmarks (sourced after
# engine-lib.sh, not run).  A team member's sluice is measured as it is
# used: the engine runs as a service account that owns the database, and
# the member is another Unix account, in the team's group, that reaches
# it through the engine's socket (or, in a release before members read
# through the socket, through the group's read access to the file).  So
# the script makes real accounts (useradd) and switches to them
# (setpriv), says so on standard error, and removes them on exit.  Needs
# root; svc_needs says why not otherwise.

# svc_needs: exit 2 with the reason when this cannot run here.
svc_needs() {
	[ "$(id -u)" -eq 0 ] || { echo "$0: service mode (MEMBER=1) needs" \
	    "root: it makes Unix accounts" >&2; exit 2; }
	for _c in useradd userdel groupadd groupdel setpriv; do
		command -v "$_c" >/dev/null ||
		    { echo "$0: $_c is needed for MEMBER=1" >&2; exit 2; }
	done
}

# svc_accounts: the team's group $SVC_GRP, the service account $SVC_USER
# (in that group only) and a member $SVC_MEMBER (in it besides their
# own), named after our pid; $B_DIR is opened to them (0755) and the
# member gets a home of their own.
svc_accounts() {
	SVC_GRP=sbg$$ SVC_USER=sbs$$ SVC_MEMBER=sbm$$
	groupadd "$SVC_GRP" || exit 1
	SVC_MADE=group
	useradd -M -N -g "$SVC_GRP" -s /bin/sh "$SVC_USER" || exit 1
	SVC_MADE="$SVC_MADE $SVC_USER"
	useradd -M -U -G "$SVC_GRP" -s /bin/sh "$SVC_MEMBER" || exit 1
	SVC_MADE="$SVC_MADE $SVC_MEMBER"
	echo "$0: made Unix accounts $SVC_USER (the service) and" \
	    "$SVC_MEMBER (a member of group $SVC_GRP); removed at exit" >&2
	chmod 0755 "$B_DIR"
	mkdir -p "$B_DIR/member"
	chown "$SVC_MEMBER" "$B_DIR/member"
}

# svc_remove: stop the engine, remove the accounts (at exit).
svc_remove() {
	svc_engine_stop
	for _u in ${SVC_MADE:-}; do
		case $_u in
		group)	;;
		*)	# A console of theirs may still be exiting.
			_k=0
			while ! userdel "$_u" 2>/dev/null &&
			    [ "$_k" -lt 100 ]; do
				_k=$((_k + 1))
				sleep 0.05
			done
			groupdel "$_u" 2>/dev/null || : ;;
		esac
	done
	case " ${SVC_MADE:-} " in
	*" group "*) groupdel "$SVC_GRP" 2>/dev/null || : ;;
	esac
	SVC_MADE=
}

# svc_install SRC: a copy of the database SRC as the service's, in a
# setgid directory of the team's group that the group may not write
# ($B_DIR/svc, mode 2750), the file 0640 as a release before the socket
# reads left it (an engine that keeps it private makes it 0600 when it
# starts).  Sets SVC_DB.
svc_install() {
	rm -rf "$B_DIR/svc"
	mkdir "$B_DIR/svc"
	SVC_DB=$B_DIR/svc/sluice.db
	cp "$1" "$SVC_DB"
	chown -R "$SVC_USER:$SVC_GRP" "$B_DIR/svc"
	chmod 2750 "$B_DIR/svc"
	chmod 0640 "$SVC_DB"
}

# svc_engine_start BINARY: "sluice engine" on $SVC_DB as the service
# account (umask 027, as the unit runs it); $SVC_EPID, once it answers a
# member's "gates" (a team's engine has long been up when a console
# opens: its start, recovery included, is not the console's).
svc_engine_start() {
	setpriv --reuid="$SVC_USER" --regid="$SVC_GRP" --init-groups \
	    env HOME="$B_DIR/svc" XDG_CONFIG_HOME="$B_DIR/svc/.config" \
	    XDG_STATE_HOME="$B_DIR/svc/.state" \
	    sh -c 'umask 027; exec "$1" --db "$2" engine' sh "$1" "$SVC_DB" \
	    >"$B_DIR/svc-engine.out" 2>"$B_DIR/svc-engine.err" </dev/null &
	SVC_EPID=$!
	_k=0
	until [ -S "$SVC_DB.sock" ]; do
		_k=$((_k + 1))
		if [ "$_k" -gt 3000 ] || ! kill -0 "$SVC_EPID" 2>/dev/null
		then
			echo "$0: the service's engine did not listen:" >&2
			cat "$B_DIR/svc-engine.err" >&2
			exit 1
		fi
		sleep 0.01
	done
	# shellcheck disable=SC2046 # the words of a command
	$(svc_as_member) "$1" --db "$SVC_DB" gates >/dev/null 2>&1 </dev/null ||
	    { echo "$0: the service's engine does not answer a member" >&2;
	    exit 1; }
}

# svc_engine_stop: end the engine we started, by its pid.
svc_engine_stop() {
	[ -n "${SVC_EPID:-}" ] || return 0
	kill "$SVC_EPID" 2>/dev/null || :
	wait "$SVC_EPID" 2>/dev/null || :
	SVC_EPID=
}

# svc_as_member: the command words that run what follows as the member,
# with the member's own home.
svc_as_member() {
	echo "setpriv --reuid=$SVC_MEMBER --regid=$(id -g "$SVC_MEMBER")" \
	    "--init-groups env HOME=$B_DIR/member" \
	    "XDG_CONFIG_HOME=$B_DIR/member/.config" \
	    "XDG_STATE_HOME=$B_DIR/member/.state"
}
