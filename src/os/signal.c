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
 * signal.c: signals through a self-pipe.  The handler only notes the
 * signal as pending and writes its number to a non-blocking pipe owned by
 * the loop; the loop reads the pipe and calls the registered callback
 * there, outside the handler, where anything may be done.  The pending
 * flags mean a signal is never lost even if the pipe were ever full.
 */

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"
#include "os/os-int.h"

/* A loop's signals: the pipe and a callback per signal number. */
struct signal_set {
	struct loop	*loop;
	int		 rfd;
	int		 wfd;
	struct loop_fd	*w;
	loop_signal_cb	 cb[NSIG];
	void		*arg[NSIG];
	int		 pass[NSIG];	/* dispatched past a barrier */
};

/* The write end for each signal, plus one so 0 means none. */
static volatile sig_atomic_t	signal_wfd[NSIG];
static volatile sig_atomic_t	signal_pending[NSIG];
/* Signals whose disposition this module changed, and what it was. */
static volatile sig_atomic_t	signal_touched[NSIG];
static struct sigaction		signal_saved[NSIG];

static void	signal_handler(int);
static struct signal_set *signal_set_get(struct loop *);
static void	signal_read(int, short, void *);
static void	signal_dispatch(struct signal_set *, int);
static void	signal_restore(int);

/* The handler: note the signal and wake the loop, nothing else. */
static void
signal_handler(int signo)
{
	int		saved = errno;
	int		fd;
	unsigned char	c = (unsigned char)signo;

	signal_pending[signo] = 1;
	fd = signal_wfd[signo] - 1;
	if (fd >= 0 && write(fd, &c, 1) == -1) {
		/* Full: the pending flag still carries it. */
	}
	errno = saved;
}

/* The loop's signal state, made with its pipe on first use. */
static struct signal_set *
signal_set_get(struct loop *loop)
{
	struct signal_set	*set;
	int			 fds[2];

	if ((set = loop_get_signals(loop)) != NULL)
		return (set);
	if (pipe2(fds, O_NONBLOCK|O_CLOEXEC) != 0)
		return (NULL);
	set = xcalloc(1, sizeof *set);
	set->loop = loop;
	set->rfd = fds[0];
	set->wfd = fds[1];
	set->w = loop_fd_add(loop, set->rfd, POLLIN, signal_read, set);
	loop_fd_pass(set->w);		/* signal_dispatch asks per signal */
	loop_set_signals(loop, set);
	return (set);
}

/*
 * Call cb in the loop whenever signo arrives; a NULL cb puts back the
 * disposition there was before.  Returns -1 with errno on failure.
 */
int
loop_signal(struct loop *loop, int signo, loop_signal_cb cb, void *arg)
{
	struct signal_set	*set;
	struct sigaction	 sa;

	if (signo <= 0 || signo >= NSIG || signo == SIGKILL ||
	    signo == SIGSTOP) {
		errno = EINVAL;
		return (-1);
	}
	if ((set = signal_set_get(loop)) == NULL)
		return (-1);
	if (cb == NULL) {
		if (set->cb[signo] != NULL)
			signal_restore(signo);
		set->cb[signo] = NULL;
		set->arg[signo] = NULL;
		return (0);
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = signal_handler;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (signo == SIGCHLD)
		sa.sa_flags |= SA_NOCLDSTOP;
	signal_wfd[signo] = set->wfd + 1;
	if (sigaction(signo, &sa, signal_touched[signo] ? NULL :
	    &signal_saved[signo]) != 0) {
		signal_wfd[signo] = 0;
		return (-1);
	}
	signal_touched[signo] = 1;
	set->cb[signo] = cb;
	set->arg[signo] = arg;
	return (0);
}

/* Put back what a signal's disposition was before we touched it. */
static void
signal_restore(int signo)
{
	if (!signal_touched[signo])
		return;
	sigaction(signo, &signal_saved[signo], NULL);
	signal_touched[signo] = 0;
	signal_wfd[signo] = 0;
	signal_pending[signo] = 0;
}

/*
 * Set every signal we handle back to its default, in a forked child before
 * it execs.  Only async-signal-safe calls, and no writes to memory: after
 * vfork() the child shares the parent's.
 */
void
loop_signal_reset(void)
{
	struct sigaction	sa;
	int			signo;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (signo = 1; signo < NSIG; signo++) {
		if (signal_touched[signo])
			sigaction(signo, &sa, NULL);
	}
}

/* Drain the self-pipe and call back each signal that arrived, once. */
static void
signal_read(int fd, short revents, void *arg)
{
	struct signal_set	*set = arg;
	unsigned char		 buf[256];
	ssize_t			 n, i;
	int			 signo;

	for (;;) {
		n = read(fd, buf, sizeof buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (i = 0; i < n; i++)
			signal_dispatch(set, buf[i]);
		if ((size_t)n < sizeof buf)
			break;
	}
	for (signo = 1; signo < NSIG; signo++)
		signal_dispatch(set, signo);
}

/* signo's callback is dispatched past a barrier (loop_barrier). */
void
loop_signal_pass(struct loop *loop, int signo)
{
	struct signal_set	*set;

	if (signo > 0 && signo < NSIG &&
	    (set = signal_set_get(loop)) != NULL)
		set->pass[signo] = 1;
}

/* Call the callback for signo if it is pending and ours. */
static void
signal_dispatch(struct signal_set *set, int signo)
{
	if (signo <= 0 || signo >= NSIG || set->cb[signo] == NULL)
		return;
	if (!signal_pending[signo])
		return;
	if (!set->pass[signo])
		loop_barrier_cross(set->loop);
	signal_pending[signo] = 0;
	set->cb[signo](signo, set->arg[signo]);
}

/* Put back the loop's signals and close its pipe, from loop_free. */
void
signal_set_free(struct signal_set *set)
{
	int	signo;

	if (set == NULL)
		return;
	for (signo = 1; signo < NSIG; signo++) {
		if (set->cb[signo] != NULL &&
		    signal_wfd[signo] == set->wfd + 1)
			signal_restore(signo);
	}
	loop_fd_del(set->w);
	close(set->rfd);
	close(set->wfd);
	free(set);
}
