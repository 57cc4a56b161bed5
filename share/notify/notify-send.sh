#!/bin/sh
# notify-send.sh: a desktop notification with notify-send(1) (libnotify),
# for an engine (or console) running in a desktop session.
#
# In the site's config.json, /etc/sluice/config.json (see
# config.json.example beside this file):
#   {"notify": [{"on": ["gate_waiting", "workflow_failed"],
#                "run": ["/usr/local/share/sluice/notify/notify-send.sh"]}]}
#
# The summary is the event, the body $SLUICE_MESSAGE; a waiting gate, a
# failure or a late run is marked critical.  The event's JSON on stdin is
# not needed here.

set -u

if ! command -v notify-send >/dev/null 2>&1; then
	echo "notify-send.sh: notify-send(1) is not installed" >&2
	exit 127
fi

case ${SLUICE_EVENT:-} in
gate_waiting|workflow_failed|workflow_late)
	urgency=critical ;;
*)
	urgency=normal ;;
esac

exec notify-send --app-name=sluice --urgency="$urgency" -- \
    "sluice: ${SLUICE_EVENT:-event}" "${SLUICE_MESSAGE:-}"
