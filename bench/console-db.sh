# bench/console-db.sh: the console benchmark's databases, shared by
# console.sh and status.sh (sourced after engine-lib.sh, not run).  gen
# makes a console-gen.sh database once and keeps it in $cache (set by
# the caller: $CONSOLE_DB_DIR, default ${TMPDIR:-/tmp}/sluice-bench-cache)
# with $steps steps a workflow; $here is the bench directory.

# gen W: the path of a database of W workflows for $SLUICE, made when
# missing or older than console-gen.sh; one per schema version, so a
# sluice before and after a migration each have theirs.
gen() {
	mkdir -p "$cache"
	# The schema this sluice makes (init; before init, a write).
	echo '{"flow": {"start": {"tool": "noop"}}}' >"$B_DIR/probe.json"
	"$SLUICE" init "$B_DIR/schema.db" >/dev/null 2>&1 ||
	    "$SLUICE" --db "$B_DIR/schema.db" template save probe \
	    "$B_DIR/probe.json" >/dev/null 2>&1 || true
	_want=$(sqlite3 "$B_DIR/schema.db" 'PRAGMA user_version')
	rm -f "$B_DIR/schema.db"*
	_db=$cache/console-$1x$steps-v$_want.db
	if [ -f "$_db" ] && [ "$here/console-gen.sh" -nt "$_db" ]; then
		rm -f "$_db" "$_db-wal" "$_db-shm"
	fi
	if [ ! -f "$_db" ]; then
		rm -f "$_db.new" "$_db.new-wal" "$_db.new-shm"
		SLUICE=$SLUICE sh "$here/console-gen.sh" "$_db.new" "$1" \
		    "$steps" >&2 || exit 1
		mv "$_db.new" "$_db"
		rm -f "$_db.new.lock"
	fi
	echo "$_db"
}
