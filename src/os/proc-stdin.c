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
 * proc-stdin.c: writing a child's stdin (proc.c): the caller's data, as
 * much as the pipe takes now and the rest whenever the loop finds it
 * writable, never waiting for the child to read it; for a conversation
 * (PROC_F_TALK), whatever the caller queues next.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/tree.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"
#include "os/os-int.h"

static void	proc_stdin_write(int, short, void *);
static ssize_t	proc_write_nosigpipe(int, const void *, size_t);

/*
 * Begin writing the child's stdin: a copy of the data, as much as the
 * pipe takes now, the rest whenever the loop finds it writable.
 */
void
proc_stdin_start(struct proc *p, const struct proc_spec *spec)
{
	if (p->in.fd == -1)
		return;
	p->in.len = spec->stdin_len;
	if (p->in.len > 0) {
		p->in.data = xmalloc(p->in.len);
		memcpy(p->in.data, spec->stdin_data, p->in.len);
	}
	proc_stdin_write(p->in.fd, POLLOUT, p);
	if (p->in.fd != -1) {
		p->in.w = loop_fd_add(p->set->loop, p->in.fd, POLLOUT,
		    proc_stdin_write, p);
	}
}

/*
 * The stdin pipe is writable (or broken): write what fits.  A child that
 * exits or closes its stdin early just ends the writing; EPIPE is no
 * error, and SIGPIPE is never raised here whatever its disposition.
 */
static void
proc_stdin_write(int fd, short revents, void *arg)
{
	struct proc	*p = arg;
	ssize_t		 n;
	int		 broken = 0;

	while (p->in.off < p->in.len) {
		n = proc_write_nosigpipe(fd, p->in.data + p->in.off,
		    p->in.len - p->in.off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n == -1 && errno != EPIPE)
			log_debug("%s: pid %ld: %s", __func__, (long)p->pid,
			    strerror(errno));
		if (n <= 0) {
			broken = 1;
			break;
		}
		p->in.off += (size_t)n;
	}
	if (!broken && (p->flags & PROC_F_TALK) && !p->in.closing) {
		/* All out: wait, not watching, for the caller's next. */
		p->in.off = p->in.len = 0;
		if (p->in.w != NULL)
			loop_fd_events(p->in.w, 0);
		return;
	}
	proc_stdin_close(p);
}

/*
 * Queue data for a PROC_F_TALK child's stdin, written as the pipe takes
 * it.  -1 when stdin is closed already (the child closed its end, or
 * proc_write_close was called): the data goes nowhere.
 */
int
proc_write(struct proc *p, const char *data, size_t len)
{
	if (p->in.fd == -1 || p->in.closing)
		return (-1);
	if (len == 0)
		return (0);
	if (p->in.off > 0) {
		memmove(p->in.data, p->in.data + p->in.off,
		    p->in.len - p->in.off);
		p->in.len -= p->in.off;
		p->in.off = 0;
	}
	p->in.data = xrealloc(p->in.data, p->in.len + len);
	memcpy(p->in.data + p->in.len, data, len);
	p->in.len += len;
	if (p->in.w != NULL)
		loop_fd_events(p->in.w, POLLOUT);
	return (0);
}

/* A PROC_F_TALK child's stdin ends once what is queued has been written. */
void
proc_write_close(struct proc *p)
{
	if (p->in.fd == -1)
		return;
	p->in.closing = 1;
	if (p->in.off == p->in.len)
		proc_stdin_close(p);
}

/*
 * write(2) with SIGPIPE held back: blocked for the call and, if the write
 * raised it, taken off the pending set again before it is unblocked.
 */
static ssize_t
proc_write_nosigpipe(int fd, const void *data, size_t len)
{
	sigset_t	 pipeset, old, pending;
	struct timespec	 zero = { 0, 0 };
	ssize_t		 n;
	int		 saved, was_pending;

	sigemptyset(&pipeset);
	sigaddset(&pipeset, SIGPIPE);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipeset, &old);
	n = write(fd, data, len);
	saved = errno;
	if (n == -1 && saved == EPIPE && !was_pending) {
		while (sigtimedwait(&pipeset, NULL, &zero) == -1 &&
		    errno == EINTR)
			;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return (n);
}

/* Stop writing the child's stdin: close our end, so it sees EOF. */
void
proc_stdin_close(struct proc *p)
{
	if (p->in.w != NULL)
		loop_fd_del(p->in.w);
	p->in.w = NULL;
	if (p->in.fd != -1)
		close(p->in.fd);
	p->in.fd = -1;
	free(p->in.data);
	p->in.data = NULL;
}
