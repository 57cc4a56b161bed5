# bench/sluice-bin.sh: which sluice a benchmark runs (sourced, not run):
# $SLUICE, else ./sluice, else the one on PATH.

if [ -z "${SLUICE:-}" ]; then
	if [ -x ./sluice ]; then
		SLUICE=$PWD/sluice
	else
		SLUICE=$(command -v sluice || true)
	fi
fi
if [ -z "$SLUICE" ] || [ ! -x "$SLUICE" ]; then
	echo "$0: no sluice binary: set SLUICE=/path/to/sluice" >&2
	exit 2
fi
