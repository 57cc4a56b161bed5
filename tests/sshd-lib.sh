#!/bin/sh
# tests/sshd-lib.sh: a real sshd for remote steps, sourced after
# tests/lib.sh (and engine-lib.sh, or cluster-lib.sh).  sshd_setup starts
# OpenSSH's sshd on 127.0.0.1 at a free high port with a throwaway host
# key, logging in with a throwaway user key as a throwaway account when
# run as root (else as the current user), and puts an ssh first on PATH
# that uses the test's config, in which the names sluicetest and
# web-01..web-05 are that sshd.  Without sshd, ssh or ssh-keygen the
# script is skipped, saying why.  At exit sshd_cleanup ends the sshd and
# the remote commands that wrote their pid to $T_DIR/remote/*.pid (by
# pid), removes the account, then runs $SSHD_THEN (default: cleanup).
#
# What a test gets:
#   $port          the port sshd listens on (the config's last Port line)
#   $LOGIN         the account the steps log in as
#   $T_DIR/remote  a directory that account may write

SSHD=$(command -v sshd || echo /usr/sbin/sshd)
[ -x "$SSHD" ] || skip_all "no sshd (install openssh-server)"
command -v ssh >/dev/null || skip_all "no ssh (install openssh-client)"
command -v ssh-keygen >/dev/null || skip_all "no ssh-keygen"
REAL_SSH=$(command -v ssh)

SSHD_PID=""
RUSER=""
# sshd_cleanup: stop the sshd this test started (by its pid) and remove
# the account it made, then the cleanup of the libraries sourced before.
sshd_cleanup() {
	for f in "$T_DIR"/remote/*.pid; do
		[ -s "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
	done
	if [ -n "$SSHD_PID" ]; then
		kill "$SSHD_PID" 2>/dev/null
		wait "$SSHD_PID" 2>/dev/null
	fi
	[ -n "$RUSER" ] && userdel -f "$RUSER" 2>/dev/null
	${SSHD_THEN:-cleanup}
}
trap 'sshd_cleanup' EXIT

# The account the steps log in as, and a directory it may write.
mkdir -p "$T_DIR/remote"
chmod 777 "$T_DIR/remote"
chmod 755 "$T_DIR"
if [ "$(id -u)" -eq 0 ]; then
	command -v useradd >/dev/null || skip_all "no useradd to make an account"
	RUSER="slssh$$"
	useradd -M -d "$T_DIR/remote" -s /bin/sh "$RUSER" 2>"$T_DIR/useradd.err" ||
		{ RUSER=""; skip_all "useradd failed: $(cat "$T_DIR/useradd.err")"; }
	# Not locked (sshd refuses a locked account), but no password.
	usermod -p '*' "$RUSER"
	mkdir -p /run/sshd 2>/dev/null
	LOGIN=$RUSER
else
	LOGIN=$(id -un)
fi

ssh-keygen -q -t ed25519 -N '' -f "$T_DIR/hostkey" </dev/null >/dev/null ||
    skip_all "ssh-keygen could not make a host key"
ssh-keygen -q -t ed25519 -N '' -f "$T_DIR/userkey" </dev/null >/dev/null
cp "$T_DIR/userkey.pub" "$T_DIR/authorized_keys"
chmod 644 "$T_DIR/authorized_keys"

# start_sshd PORT: sshd in the foreground of a background job, as $SSHD_PID.
start_sshd() {
	cat >"$T_DIR/sshd_config" <<EOF
Port $1
ListenAddress 127.0.0.1
HostKey $T_DIR/hostkey
PidFile none
AuthorizedKeysFile $T_DIR/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AllowUsers $LOGIN
PermitRootLogin no
LogLevel ERROR
EOF
	"$SSHD" -D -e -f "$T_DIR/sshd_config" 2>>"$T_DIR/sshd.log" &
	SSHD_PID=$!
}

# sshd_setup: sshd up and taking the test's key, $port its port, the
# test's ssh first on PATH; skips the script when sshd will not start.
sshd_setup() {
	# Five more names for the same sshd: a for-each's items as hosts.
	cat >"$T_DIR/ssh_config" <<EOF
Host sluicetest web-01 web-02 web-03 web-04 web-05
	HostName 127.0.0.1
	User $LOGIN
	IdentityFile $T_DIR/userkey
	IdentitiesOnly yes
	StrictHostKeyChecking no
	UserKnownHostsFile $T_DIR/known_hosts
	LogLevel ERROR
EOF
	# The engine runs "ssh" from PATH: the real client, with this config.
	mkdir -p "$T_DIR/bin"
	cat >"$T_DIR/bin/ssh" <<EOF
#!/bin/sh
exec "$REAL_SSH" -F "$T_DIR/ssh_config" "\$@"
EOF
	chmod +x "$T_DIR/bin/ssh"

	# A free high port: sshd exits at once when it cannot bind.
	up=0
	for try in 1 2 3 4 5; do
		port=$((20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000))
		printf '\tPort %s\n' "$port" >>"$T_DIR/ssh_config"
		start_sshd "$port"
		n=0
		while [ "$n" -lt 100 ]; do
			if ! kill -0 "$SSHD_PID" 2>/dev/null; then
				break
			fi
			if "$T_DIR/bin/ssh" -o BatchMode=yes -o ConnectTimeout=2 \
			    -p "$port" sluicetest true </dev/null 2>>"$T_DIR/ssh.log"; then
				up=1
				break
			fi
			n=$((n + 1))
			sleep 0.1
		done
		[ "$up" -eq 1 ] && break
		kill "$SSHD_PID" 2>/dev/null
		wait "$SSHD_PID" 2>/dev/null
		SSHD_PID=""
		sed -i '$d' "$T_DIR/ssh_config"
	done
	[ "$up" -eq 1 ] ||
	    skip_all "sshd would not start on 127.0.0.1: $(tail -1 "$T_DIR/sshd.log")"
	export PATH="$T_DIR/bin:$PATH"
}
