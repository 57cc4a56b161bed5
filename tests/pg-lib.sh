#!/bin/sh
# tests/pg-lib.sh: a PostgreSQL of the test's own (cluster mode, SPEC
# §14), sourced after tests/lib.sh (and tests/engine-lib.sh, whose cleanup
# it chains).  Sourcing it skips the script, saying why, unless this
# sluice has the PostgreSQL driver and the server's programs are here.
# pg_primary starts a primary on 127.0.0.1 at a spare port in $T_DIR, as
# an unprivileged account (one made with useradd when we are root, as CI
# is: PostgreSQL will not run as root), with the database and roles of
# sluice(1) CLUSTER; pg_standby adds a synchronous standby made with
# pg_basebackup -R.  pg_stop, pg_crash and pg_promote are for failover
# tests.  Only what was started here is ended, by pid, at exit.
#
# What a test gets:
#   $PG_DB        the database's name for sluice as its owner
#                 (postgresql:host=127.0.0.1 port=... dbname=sluice
#                 user=sluice_owner)
#   $PG_ENGINE_DB the same as the engine's login (sluice_engine's member)
#   $PG_READER_DB the same as a reader's login (sluice_reader's member)
#   pg_sql [NAME] SQL   psql's unaligned answer, as the superuser
#
# The timeouts the cluster's fencing stands on (the issue's L): the
# engine's login has idle_in_transaction_session_timeout = $PG_L; its
# lock session sets idle_session_timeout = $PG_L itself (every other
# session of it may sit idle).

PG_L=${PG_L:-3s}

# pg_bindir: the directory of initdb and postgres, or nothing.
pg_bindir() {
	for _d in "${PG_BIN:-}" "$(pg_config --bindir 2>/dev/null)" \
	    $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -rn); do
		[ -n "$_d" ] && [ -x "$_d/initdb" ] && [ -x "$_d/postgres" ] &&
		    [ -x "$_d/pg_basebackup" ] && { echo "$_d"; return 0; }
	done
	return 1
}

"$SLUICE" --version >/dev/null 2>&1 || skip_all "no sluice binary"
case $("$SLUICE" --db postgresql:host=/nonexistent status 2>&1) in
*"built without PostgreSQL"*)
	skip_all "sluice built without PostgreSQL (configure --with-postgresql)" ;;
esac
PG_BIN=$(pg_bindir) ||
    skip_all "no PostgreSQL server programs (initdb, postgres, pg_basebackup: install postgresql)"
command -v psql >/dev/null 2>&1 || [ -x "$PG_BIN/psql" ] ||
    skip_all "no psql (install postgresql-client)"
PSQL="$PG_BIN/psql"
[ -x "$PSQL" ] || PSQL=$(command -v psql)

# The account the servers run as: ours, or one made for this test.
PG_USER=$(id -un)
PG_MADE=""
if [ "$(id -u)" -eq 0 ]; then
	command -v useradd >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1 ||
	    skip_all "running as root without useradd and setpriv"
	PG_USER="slpg$$"
	useradd -M -U -s /bin/sh "$PG_USER" || skip_all "useradd $PG_USER failed"
	PG_MADE=$PG_USER
fi
PG_DIR="$T_DIR/pg"
mkdir -p "$PG_DIR"
chmod 0711 "$T_DIR"
[ -n "$PG_MADE" ] && chown "$PG_USER:" "$PG_DIR"
chmod 0700 "$PG_DIR"
PG_PIDS=""

# pg_as CMD...: run CMD as the servers' account.
pg_as() {
	if [ -n "$PG_MADE" ]; then
		setpriv --reuid="$PG_USER" --regid="$(id -g "$PG_USER")" \
		    --init-groups "$@"
	else
		"$@"
	fi
}

# pg_pid NAME: the postmaster's pid of server NAME (primary, standby).
pg_pid() {
	head -1 "$PG_DIR/$1/postmaster.pid" 2>/dev/null
}

# pg_port NAME: the port server NAME listens on.
pg_port() {
	cat "$PG_DIR/$1.port"
}

# pg_cleanup: end the servers started here (by their pids), remove the
# account, then what lib.sh or engine-lib.sh would clean.
pg_cleanup() {
	for _p in $PG_PIDS; do
		kill -INT "$_p" 2>/dev/null
	done
	for _p in $PG_PIDS; do
		_n=0
		while kill -0 "$_p" 2>/dev/null && [ "$_n" -lt 100 ]; do
			sleep 0.1
			_n=$((_n + 1))
		done
		kill -9 "$_p" 2>/dev/null
	done
	[ -n "$PG_MADE" ] && { userdel "$PG_MADE" 2>/dev/null;
	    groupdel "$PG_MADE" 2>/dev/null; }
	if command -v cleanup >/dev/null 2>&1; then
		cleanup
	else
		rm -rf "$T_DIR"
	fi
}
trap 'pg_cleanup' EXIT
trap 'exit 129' HUP		# so that the servers go with a stopped test
trap 'exit 130' INT
trap 'exit 143' TERM

# pg_start NAME: start server NAME at a spare port (tried until one is
# free), waiting until it accepts connections; its pid joins $PG_PIDS.
pg_start() {
	_try=0
	while [ "$_try" -lt 10 ]; do
		_try=$((_try + 1))
		_port=$((20000 + ($$ * 7 + _try * 1009 + $(date +%N | sed 's/^0*//;s/^$/0/')) % 40000))
		echo "$_port" >"$PG_DIR/$1.port"
		chmod 0644 "$PG_DIR/$1.port"
		if pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/$1" -l "$PG_DIR/$1.log" \
		    -o "-p $_port" -w -t 60 start >/dev/null 2>&1; then
			PG_PIDS="$PG_PIDS $(pg_pid "$1")"
			return 0
		fi
		grep -q "in use" "$PG_DIR/$1.log" 2>/dev/null || break
	done
	echo "# PostgreSQL $1 did not start:"
	sed 's/^/# /' "$PG_DIR/$1.log" 2>/dev/null | tail -20
	return 1
}

# pg_sql [NAME] SQL: run SQL as the superuser on server NAME (primary),
# on database sluice once it is there; the answer unaligned, no header.
pg_sql() {
	_name=primary
	[ $# -gt 1 ] && { _name=$1; shift; }
	_db=sluice
	[ -f "$PG_DIR/made" ] || _db=postgres
	pg_as "$PSQL" -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 \
	    -p "$(pg_port "$_name")" -U postgres -d "$_db" -c "$1"
}

# pg_primary: initdb, configure and start the primary; create the
# database sluice (owned by sluice_owner) and the roles sluice(1)
# CLUSTER names, with a login each: sluice_owner runs the migrations,
# engine1 is a member of sluice_engine, reader1 of sluice_reader.
pg_primary() {
	pg_as "$PG_BIN/initdb" -D "$PG_DIR/primary" -U postgres -A trust \
	    -E UTF8 --no-sync >"$PG_DIR/initdb.log" 2>&1 ||
	    { sed 's/^/# /' "$PG_DIR/initdb.log"; return 1; }
	cat >>"$PG_DIR/primary/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$PG_DIR'
wal_level = replica
max_wal_senders = 5
hot_standby = on
wal_keep_size = 64MB
EOF
	cat >"$PG_DIR/primary/pg_hba.conf" <<'EOF'
local all all trust
host all all 127.0.0.1/32 trust
host replication all 127.0.0.1/32 trust
EOF
	pg_start primary || return 1
	pg_sql "CREATE ROLE sluice_owner LOGIN;
	    CREATE ROLE sluice_engine NOLOGIN;
	    CREATE ROLE sluice_reader NOLOGIN;
	    GRANT pg_monitor TO sluice_engine, sluice_reader;
	    CREATE ROLE engine1 LOGIN IN ROLE sluice_engine;
	    CREATE ROLE reader1 LOGIN IN ROLE sluice_reader;
	    ALTER ROLE engine1 SET idle_in_transaction_session_timeout = '$PG_L';" &&
	    pg_sql "CREATE DATABASE sluice OWNER sluice_owner" || return 1
	: >"$PG_DIR/made"
	pg_sql "REVOKE ALL ON SCHEMA public FROM PUBLIC;
	    ALTER SCHEMA public OWNER TO sluice_owner;" || return 1
	_p=$(pg_port primary)
	PG_DB="postgresql:host=127.0.0.1 port=$_p dbname=sluice user=sluice_owner"
	PG_ENGINE_DB="postgresql:host=127.0.0.1 port=$_p dbname=sluice user=engine1"
	PG_READER_DB="postgresql:host=127.0.0.1 port=$_p dbname=sluice user=reader1"
}

# pg_standby [NAME]: a synchronous standby (standby), copied from the
# primary by pg_basebackup -R and streaming from it; returns once the
# primary names it sync in pg_stat_replication.
pg_standby() {
	_s=${1:-standby}
	pg_as "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$(pg_port primary)" \
	    -U postgres -D "$PG_DIR/$_s" -R -X stream -c fast \
	    >"$PG_DIR/$_s.basebackup.log" 2>&1 ||
	    { sed 's/^/# /' "$PG_DIR/$_s.basebackup.log"; return 1; }
	echo "primary_conninfo = 'host=127.0.0.1 port=$(pg_port primary) user=postgres application_name=$_s'" \
	    >>"$PG_DIR/$_s/postgresql.auto.conf"
	rm -f "$PG_DIR/$_s/postmaster.pid"
	pg_start "$_s" || return 1
	pg_sql "ALTER SYSTEM SET synchronous_standby_names = '$_s'" &&
	    pg_sql "SELECT pg_reload_conf()" >/dev/null || return 1
	_n=0
	while [ "$(pg_sql "SELECT sync_state FROM pg_stat_replication
	    WHERE application_name = '$_s'")" != sync ]; do
		_n=$((_n + 1))
		[ "$_n" -ge 300 ] && { echo "# $_s never became sync"; return 1; }
		sleep 0.1
	done
}

# pg_stop NAME: a fast shutdown of server NAME, waited for.
pg_stop() {
	_p=$(pg_pid "$1")
	[ -n "$_p" ] || return 1
	kill -INT "$_p"
	_n=0
	while kill -0 "$_p" 2>/dev/null; do
		_n=$((_n + 1))
		[ "$_n" -ge 300 ] && return 1
		sleep 0.1
	done
}

# pg_crash NAME: kill -9 server NAME's postmaster and its children (a
# host that dies), as they were this moment.
pg_crash() {
	_p=$(pg_pid "$1")
	[ -n "$_p" ] || return 1
	kill -9 "$_p" $(ps -o pid= --ppid "$_p" 2>/dev/null)
	while kill -0 "$_p" 2>/dev/null; do
		sleep 0.05
	done
}

# pg_promote NAME: promote standby NAME to primary, waited for.
pg_promote() {
	pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/$1" -w -t 60 promote >/dev/null
}
