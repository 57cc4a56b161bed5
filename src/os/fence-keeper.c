/*
 * Copyright (c) 2026 The sluice authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES
 * WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF
 * MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
 * ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES
 * WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
 * ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
 * OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.
 */

/*
 * fence-keeper.c: the fence keeper, a small process a cluster leader
 * starts before any step.  It knows the leader's deadline (fence.c) and
 * every process group the leader's children made (each child names its
 * own group to the keeper before exec, so none can slip past it), and it
 * kills those groups when the deadline passes unrenewed or when the
 * leader dies.  Being a process of its own in a session of its own, it
 * does so also while the leader is frozen (SIGSTOP, a stalled VM thread)
 * or killed: the one thing a frozen leader cannot do is stop its steps,
 * and a new leader may treat them as interrupted only once they are gone.
 *
 * The leader and its children talk to it over one end of a SOCK_SEQPACKET
 * pair (one message a packet; send() with MSG_NOSIGNAL, so a gone keeper
 * is an error, not a signal): "d<ms>" a new deadline, "+<pgid>" a group to
 * watch, with the step's marks after it (each after a NUL), "-<pgid>" a
 * group the leader is done with.
 *
 * A step's process may leave its group (setsid, a daemon's double fork),
 * where killing the group does not reach it.  So when it kills, the keeper
 * also reads the environment of every process of the host once and kills
 * those carrying a watched group's marks (SLUICE_DB and SLUICE_STEP_ID):
 * no cost while the leader is well, one look at /proc when it is fenced.
 * What it cannot see: a process that cleared its environment or changed
 * its user, and one whose step's group has no process left (the group is
 * forgotten then).  The end of the
 * stream, once the leader and every child between vfork() and exec have
 * closed theirs (close-on-exec), is the leader's death or exit.
 */

#include <sys/types.h>
#include <sys/socket.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"

#define KEEPER_PRUNE_MS	100	/* look for groups that have gone */
#define KEEPER_ESCAPED	1024	/* processes out of their groups, at most */

/* What the keeper process holds. */
struct keeper_state {
	int		 fd;
	int64_t		 deadline;	/* fence clock ms, 0: none */
	int		 expired;	/* killed at the deadline */
	pid_t		*groups;
	char		***marks;	/* each group's, or NULL */
	size_t		 ngroups;
	size_t		 size;
};

static __dead void keeper_main(int, int64_t);
static void	keeper_message(struct keeper_state *, const char *, size_t);
static void	keeper_add(struct keeper_state *, pid_t, const char *,
		    size_t);
static void	keeper_drop(struct keeper_state *, size_t);
static void	keeper_remove(struct keeper_state *, pid_t);
static void	keeper_prune(struct keeper_state *);
static size_t	keeper_kill_all(struct keeper_state *);
static size_t	keeper_kill_escaped(struct keeper_state *);
static int	keeper_watched(const struct keeper_state *, pid_t);
static int	keeper_wait(const struct keeper_state *);
static int	keeper_read(struct keeper_state *, int);

/*
 * Start the keeper with a first deadline (0: none yet); its pid and our
 * end of the pair are in the result.  The keeper is fork()ed, not
 * exec()ed: it needs nothing but this file, and a keeper that cannot be
 * found on disk would leave the leader unfenced.
 */
struct fence_keeper *
fence_keeper_start(int64_t deadline, char **cause)
{
	struct fence_keeper	*k;
	int			 sv[2];
	pid_t			 pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		xasprintf(cause, "cannot make the fence keeper's socket: %s",
		    strerror(errno));
		return (NULL);
	}
	fflush(NULL);
	switch (pid = fork()) {
	case -1:
		xasprintf(cause, "cannot start the fence keeper: %s",
		    strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return (NULL);
	case 0:
		close(sv[0]);
		keeper_main(sv[1], deadline);
	}
	close(sv[1]);
	k = xcalloc(1, sizeof *k);
	k->pid = pid;
	k->fd = sv[0];
	k->deadline = deadline;
	log_debug("%s: pid %ld", __func__, (long)pid);
	return (k);
}

/*
 * A new deadline: the keeper kills at it unless renewed again.  -1 when
 * the keeper is gone (the caller must start nothing more).
 */
int
fence_keeper_renew(struct fence_keeper *k, int64_t deadline)
{
	k->deadline = deadline;
	return (fence_send(k->fd, 'd', deadline));
}

/* A group that has ended as far as the leader knows: stop watching it. */
void
fence_keeper_forget(struct fence_keeper *k, pid_t pgid)
{
	(void)fence_send(k->fd, '-', pgid);
}

/*
 * Whether the keeper still runs; without it nothing may start.  A keeper
 * that is gone is reaped by whoever reaps our children; the socket says it.
 */
int
fence_keeper_alive(struct fence_keeper *k)
{
	struct pollfd	pfd;

	pfd.fd = k->fd;
	pfd.events = 0;
	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLERR)))
		return (0);
	return (1);
}

/*
 * Let the keeper go: it kills the groups still named to it and exits.
 * The leader calls this at a clean exit, once its own steps have ended.
 */
void
fence_keeper_free(struct fence_keeper *k)
{
	if (k == NULL)
		return;
	close(k->fd);
	free(k);
}

/*
 * The keeper process: its own session (so a signal to the leader's group
 * or terminal does not stop it), nothing open but stderr and its socket,
 * then wait for messages and the deadline.
 */
static __dead void
keeper_main(int fd, int64_t deadline)
{
	struct keeper_state	 ks;
	struct sigaction	 sa;
	sigset_t		 none;
	ssize_t			 n;
	int			 sig;

	loop_signal_reset();
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	for (sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		/* A terminal's ^C or a service stop is for the leader. */
		sa.sa_handler = (sig == SIGINT || sig == SIGHUP ||
		    sig == SIGTERM || sig == SIGPIPE) ? SIG_IGN : SIG_DFL;
		sigaction(sig, &sa, NULL);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	(void)setsid();
#ifdef __linux__
	(void)prctl(PR_SET_NAME, "sluice-fence");
#endif
	if (fd != 3) {
		if (dup2(fd, 3) == -1)
			_exit(1);
		fd = 3;
	}
	closefrom(4);

	memset(&ks, 0, sizeof ks);
	ks.fd = fd;
	ks.deadline = deadline;
	for (;;) {
		/*
		 * Read what waits before looking at the clock: a keeper held
		 * off the CPU past the deadline may find the leader's renewal,
		 * sent in time, already queued; killing a healthy leader's
		 * steps then would be a spurious stop.
		 */
		if (keeper_read(&ks, MSG_DONTWAIT) == -1)
			break;
		if (!ks.expired && fence_expired(ks.deadline)) {
			ks.expired = 1;
			fprintf(stderr, "sluice-fence: deadline passed with no "
			    "renewal: stopped %zu step groups\n",
			    keeper_kill_all(&ks));
		}
		if (keeper_wait(&ks) == 1 && keeper_read(&ks, 0) == -1)
			break;
		keeper_prune(&ks);
	}
	if ((n = keeper_kill_all(&ks)) != 0) {
		fprintf(stderr, "sluice-fence: the engine is gone: stopped "
		    "%zd step groups\n", n);
	}
	_exit(0);
}

/*
 * Read messages: every one waiting with MSG_DONTWAIT, else one.  -1 when
 * the stream has ended (the leader is gone) or failed.
 */
static int
keeper_read(struct keeper_state *ks, int flags)
{
	char	 msg[FENCE_MSG_MAX];
	ssize_t	 n;

	for (;;) {
		n = recv(ks->fd, msg, sizeof msg - 1, flags);
		if (n == 0)
			return (-1);
		if (n < 0)
			return (errno == EINTR || errno == EAGAIN ? 0 : -1);
		keeper_message(ks, msg, (size_t)n);
		if (!(flags & MSG_DONTWAIT))
			return (0);
	}
}

/* Wait for a message, the deadline or the next prune; 1: a message. */
static int
keeper_wait(const struct keeper_state *ks)
{
	struct pollfd	 pfd;
	int64_t		 wait = KEEPER_PRUNE_MS, left;

	if (!ks->expired && ks->deadline != 0) {
		left = ks->deadline - fence_now_ms();
		if (left < wait)
			wait = left < 0 ? 0 : left;
	}
	pfd.fd = ks->fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, (int)wait) != 1)
		return (0);
	return (1);
}

/* One message from the leader or a child. */
static void
keeper_message(struct keeper_state *ks, const char *msg, size_t len)
{
	int64_t	 n = 0;
	size_t	 i;

	if (len < 2)
		return;
	for (i = 1; i < len && msg[i] != '\0'; i++) {
		if (msg[i] < '0' || msg[i] > '9' || n > INT64_MAX / 10)
			return;
		n = n * 10 + (msg[i] - '0');
	}
	if (i == 1 || (i < len && msg[0] != '+'))
		return;
	switch (msg[0]) {
	case 'd':
		ks->deadline = n;
		ks->expired = fence_expired(n);
		break;
	case '+':
		if (n <= 1 || n > INT32_MAX)
			break;
		keeper_add(ks, (pid_t)n, msg + i, len - i);
		if (ks->expired)
			kill(-(pid_t)n, SIGKILL);	/* too late to start */
		break;
	case '-':
		keeper_remove(ks, (pid_t)n);
		break;
	}
}

/*
 * Watch a group, with its marks: len bytes at marks, each mark after a
 * NUL (none when len is 0).
 */
static void
keeper_add(struct keeper_state *ks, pid_t pgid, const char *marks,
    size_t len)
{
	const char	*p, *end = marks + len;
	char		**m = NULL;
	size_t		 i, nm = 0;

	for (i = 0; i < ks->ngroups; i++) {
		if (ks->groups[i] == pgid)
			return;
	}
	if (ks->ngroups == ks->size) {
		ks->size = ks->size == 0 ? 64 : ks->size * 2;
		ks->groups = xreallocarray(ks->groups, ks->size,
		    sizeof *ks->groups);
		ks->marks = xreallocarray(ks->marks, ks->size,
		    sizeof *ks->marks);
	}
	for (p = marks; p < end; p++) {
		if (*p == '\0')
			nm++;
	}
	if (nm > 0) {
		m = xcalloc(nm + 1, sizeof *m);
		for (i = 0, p = marks + 1; i < nm && p <= end; i++) {
			m[i] = xstrndup(p, end - p);
			p += strlen(m[i]) + 1;
		}
	}
	ks->marks[ks->ngroups] = m;
	ks->groups[ks->ngroups++] = pgid;
}

/* Stop watching the group at index i. */
static void
keeper_drop(struct keeper_state *ks, size_t i)
{
	char	**m = ks->marks[i];
	size_t	  j;

	for (j = 0; m != NULL && m[j] != NULL; j++)
		free(m[j]);
	free(m);
	ks->groups[i] = ks->groups[--ks->ngroups];
	ks->marks[i] = ks->marks[ks->ngroups];
}

/* Whether the keeper watches the group (which its kill has reached). */
static int
keeper_watched(const struct keeper_state *ks, pid_t pgid)
{
	size_t	i;

	for (i = 0; i < ks->ngroups; i++) {
		if (ks->groups[i] == pgid)
			return (1);
	}
	return (0);
}

/* Stop watching a group. */
static void
keeper_remove(struct keeper_state *ks, pid_t pgid)
{
	size_t	i;

	for (i = 0; i < ks->ngroups; i++) {
		if (ks->groups[i] == pgid) {
			keeper_drop(ks, i);
			return;
		}
	}
}

/*
 * Forget groups with no process left.  A group's id cannot be reused
 * while a member lives, so a group found empty here is gone for good.
 */
static void
keeper_prune(struct keeper_state *ks)
{
	size_t	i = 0;

	while (i < ks->ngroups) {
		if (kill(-ks->groups[i], 0) == -1 && errno == ESRCH)
			keeper_drop(ks, i);
		else
			i++;
	}
}

/*
 * SIGKILL every watched group, then what left them; how many groups had
 * a process to kill.
 */
static size_t
keeper_kill_all(struct keeper_state *ks)
{
	size_t	i, n = 0, out;

	for (i = 0; i < ks->ngroups; i++) {
		if (kill(-ks->groups[i], SIGKILL) == 0)
			n++;
	}
	if ((out = keeper_kill_escaped(ks)) != 0) {
		fprintf(stderr, "sluice-fence: stopped %zu processes that "
		    "had left their step's group\n", out);
	}
	return (n);
}

/*
 * SIGKILL every process that carries a watched group's marks: those that
 * left their group (they are not in it, or the group's kill got them
 * already).  One read of each process's environment.
 */
static size_t
keeper_kill_escaped(struct keeper_state *ks)
{
	const char *const	**sets;
	pid_t			 pids[KEEPER_ESCAPED];
	size_t			 i, nsets = 0, n, killed = 0;

	if (ks->ngroups == 0)
		return (0);
	sets = xreallocarray(NULL, ks->ngroups, sizeof *sets);
	for (i = 0; i < ks->ngroups; i++) {
		if (ks->marks[i] != NULL)
			sets[nsets++] = (const char *const *)ks->marks[i];
	}
	n = procenv_find_any(sets, nsets, pids, nitems(pids));
	for (i = 0; i < n; i++) {
		if (!keeper_watched(ks, getpgid(pids[i])) &&
		    kill(pids[i], SIGKILL) == 0)
			killed++;
	}
	free(sets);
	return (killed);
}
