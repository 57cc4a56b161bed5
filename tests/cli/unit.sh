#!/bin/sh
# tests/cli/unit.sh: the systemd unit this build makes from
# share/sluice-engine.service.in names this build's paths, keeps no
# placeholder, is Type=notify, and "systemd-analyze verify" has nothing to
# say about it (the binary it names swapped for the one under test, which
# exists: the installed one may not yet).

. "$TOP_SRCDIR/tests/lib.sh"

unit="$(dirname "$SLUICE")/share/sluice-engine.service"
[ -f "$unit" ] || { echo "Bail out! $unit: not built"; exit 99; }

! grep -n '@[a-z]*@' "$unit"
ok $? "no @placeholder@ is left in the unit"
start=$(sed -n 's/^ExecStart=\([^ ]*\) engine .*/\1/p' "$unit")
like "$start" "/sluice" "ExecStart names the installed sluice: $start"
is "$(sed -n 's/^ExecStartPre=\([^ ]*\) init$/\1/p' "$unit")" "$start" \
    "ExecStartPre names the same"
grep -qx 'Type=notify' "$unit"
ok $? "Type=notify: systemctl start waits for READY=1"
grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$unit"
ok $? "ExecReload sends SIGHUP"

if ! command -v systemd-analyze >/dev/null 2>&1; then
	skip_cases 1 "systemd-analyze is not installed"
	done_testing
	exit 0
fi
sed "s|$start|$(cd "$(dirname "$SLUICE")" && pwd)/sluice|g" "$unit" \
    >"$T_DIR/sluice-engine.service"
# --man=no: the man pages it names are installed with sluice, not yet.
systemd-analyze verify --man=no "$T_DIR/sluice-engine.service" \
    >"$T_DIR/out" 2>"$T_DIR/err"
rc=$?
is "$rc $(cat "$T_DIR/out" "$T_DIR/err")" "0 " \
    "systemd-analyze verify: no error, no warning"

done_testing
