#!/bin/sh
# site-database.sh: the site config's "database" (sluice(1) FILES,
# CLUSTER) names the database when neither --db nor $SLUICE_DB does; it
# counts as named (a command never creates it but init); --db and
# $SLUICE_DB win over it; a bad value is refused with its place and
# nothing is made.
. "$TOP_SRCDIR/tests/lib.sh"

unset SLUICE_DB
SITE_DB="$T_DIR/site/ops.db"
printf '{"database": "%s"}\n' "$SITE_DB" >"$SLUICE_SITE_CONFIG"

run_sluice status
expect_rc 2 "a named database that is not there: refused"
like "$ERR" "no database at $SITE_DB (is the path right?" \
    "it names the site config's path as a named one"
[ ! -e "$T_DIR/site" ]
ok $? "and makes nothing"

run_sluice init
expect_rc 0 "init creates the site config's database"
[ -f "$SITE_DB" ]
ok $? "at its path"
run_sluice status --json
expect_rc 0 "status reads it"
is "$(json_query "$OUT" "SELECT json_extract(j, '\$.database.path') FROM d")" \
    "$SITE_DB" "status names it"

run_sluice --db "$T_DIR/other.db" init
run_sluice --db "$T_DIR/other.db" status --json
is "$(json_query "$OUT" "SELECT json_extract(j, '\$.database.path') FROM d")" \
    "$T_DIR/other.db" "--db wins over the site config"
SLUICE_DB="$T_DIR/other.db" "$SLUICE" status --json >"$T_DIR/o" 2>/dev/null
is "$(json_query "$(cat "$T_DIR/o")" "SELECT json_extract(j, '\$.database.path') FROM d")" \
    "$T_DIR/other.db" "\$SLUICE_DB wins over the site config"

echo '{"database": 7}' >"$SLUICE_SITE_CONFIG"
run_sluice status
expect_rc 2 "a database that is not a string: refused"
is "$ERR" "sluice: $SLUICE_SITE_CONFIG: \$.database: expected a database's path or \"postgresql:...\"" \
    "one line with its place"
run_sluice init
expect_rc 2 "init refuses it too"
one_line "$ERR" "in one line"

# A user's own file may not name it: site policy.
printf '{"database": "%s"}\n' "$SITE_DB" >"$SLUICE_SITE_CONFIG"
echo '{"database": "/nowhere/x.db"}' >"$XDG_CONFIG_HOME/sluice/config.json"
run_sluice status --json
is "$(json_query "$OUT" "SELECT json_extract(j, '\$.database.path') FROM d")" \
    "$SITE_DB" "a user's database key does not move the database"
like "$ERR" "\$.database is site policy, ignored here" \
    "and is ignored with a warning"

done_testing
