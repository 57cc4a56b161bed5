# tests/mcp/npm.sh: npm packages for the MCP tests, sourced after
# tests/lib.sh.  npm_need PACKAGE... installs the packages once per build
# directory (under BUILDDIR/tests/npm, shared by every test that needs
# them, under a lock so tests running side by side install once) and sets
# NPM_DIR to the prefix, whose node_modules node finds for a script placed
# there.  When node or npm is missing, too old, or the registry cannot be
# reached, it skips the whole test with the reason: the real client or
# server is what the test is about, so there is nothing to fake.

# npm_need PACKAGE...: install what is missing, or skip_all saying why.
npm_need() {
	command -v node >/dev/null 2>&1 ||
	    skip_all "node is not installed (./quickstart deps installs nodejs and npm)"
	command -v npm >/dev/null 2>&1 ||
	    skip_all "npm is not installed (./quickstart deps installs nodejs and npm)"
	_major=$(node -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null)
	[ "${_major:-0}" -ge 18 ] 2>/dev/null ||
	    skip_all "node ${_major:-?} is too old: the MCP SDK needs node 18 or later"
	NPM_DIR=${SLUICE_NPM_DIR:-$(dirname "$SLUICE")/tests/npm}
	mkdir -p "$NPM_DIR" || skip_all "cannot create $NPM_DIR"
	NPM_DIR=$(cd "$NPM_DIR" && pwd)
	export NPM_DIR
	_missing=
	for _p in "$@"; do
		[ -f "$NPM_DIR/node_modules/$_p/package.json" ] ||
		    _missing="$_missing $_p"
	done
	[ -z "$_missing" ] && return 0
	# One install at a time per build directory; the others wait and find
	# the packages there.  The cache stays with the prefix, not in the
	# test's throwaway HOME, so a second install needs no network.
	(
		flock 9 || exit 1
		_todo=
		for _p in $_missing; do
			[ -f "$NPM_DIR/node_modules/$_p/package.json" ] ||
			    _todo="$_todo $_p"
		done
		[ -z "$_todo" ] && exit 0
		# shellcheck disable=SC2086
		npm_config_cache="$NPM_DIR/.cache" npm_config_update_notifier=false \
		    timeout 600 npm install --prefix "$NPM_DIR" --no-audit \
		    --no-fund --loglevel=error $_todo \
		    >"$NPM_DIR/install.log" 2>&1
	) 9>"$NPM_DIR/.lock"
	for _p in "$@"; do
		[ -f "$NPM_DIR/node_modules/$_p/package.json" ] && continue
		_why=$(grep -v '^npm warn' "$NPM_DIR/install.log" 2>/dev/null |
		    grep -m1 -i 'err' | cut -c1-160)
		skip_all "npm could not install $_p (${_why:-see $NPM_DIR/install.log})"
	done
	return 0
}

# sdk_run MIN SCRIPT: run node on $T_DIR/SCRIPT (an SDK client that prints
# "PASS what", "FAIL what: detail" and "IDS ..." lines), each check a test
# case; at least MIN checks must have been made.  The IDS line's words
# are left in SDK_IDS.  What the script needs from the environment is
# exported by the caller.
sdk_run() {
	node "$T_DIR/$2" >"$T_DIR/sdk.out" 2>"$T_DIR/sdk.err"
	_rc=$?
	is "$_rc" 0 "$2 ran to its end"
	[ "$_rc" -eq 0 ] || sed 's/^/# /' "$T_DIR/sdk.err" | head -20
	_n=0
	SDK_IDS=
	while IFS= read -r _line; do
		case $_line in
		"PASS "*) ok 0 "${_line#PASS }"; _n=$((_n + 1)) ;;
		"FAIL "*) ok 1 "${_line#FAIL }"; _n=$((_n + 1)) ;;
		"IDS "*) SDK_IDS=${_line#IDS } ;;
		esac
	done <"$T_DIR/sdk.out"
	[ "$_n" -ge "$1" ]
	ok $? "$2 made all its checks ($_n)"
}
