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
 * proc.c: child processes, as tmux's job.c does them.  Each child runs in
 * its own process group with stdin from /dev/null (or a pipe the loop
 * writes the caller's data to, never waiting for the child to read it,
 * either all at once or, for a conversation, as the caller queues it)
 * and stdout and stderr on pipes the loop reads; SIGCHLD reaps through
 * the self-pipe and finds the child by pid in a tree.  A child is
 * finished only when it has been reaped and both pipes have reached EOF,
 * so no output is ever lost to a grandchild still writing; then the exit
 * callback runs, once, and the proc is freed.  Cancelling is SIGTERM to
 * the group, then SIGKILL from a timer.  The child's side of a spawn is
 * in proc-child.c, writing its stdin in proc-stdin.c.
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

#define PROC_BUFSIZE	(64 * 1024)
#define PROC_READS	16	/* reads per wakeup before others get a turn */
#define PROC_ESCAPED	256	/* processes outside the group, per kill */

#define PROC_S_REAPED		0x1
#define PROC_S_ABANDONED	0x2
#define PROC_S_DONE		0x4	/* exit callback called */
#define PROC_S_KILLED		0x8

static int	proc_cmp(struct proc *, struct proc *);
RB_PROTOTYPE(proc_tree, proc, entry, proc_cmp);
RB_GENERATE(proc_tree, proc, entry, proc_cmp);

static struct proc_set *proc_set_get(struct loop *, char **);
static int	proc_fds_open(const struct proc_spec *, struct proc_fds *,
		    char **);
static void	proc_fds_close(struct proc_fds *);
static struct proc *proc_parent(struct proc_set *, const struct proc_spec *,
		    pid_t, struct proc_fds *);
static void	proc_fence_cause(const struct proc_fence *, char **);
static void	proc_sigchld(int, void *);
static void	proc_reaped(struct proc_set *, pid_t, int);
static void	proc_read(int, short, void *);
static void	proc_pipe_close(struct proc_pipe *);
static void	proc_try_reap(struct proc *);
static void	proc_check_done(struct proc *);
static void	proc_signal(struct proc *, int);
static void	proc_kill_timer(void *);
static void	proc_drain_timer(void *);
static void	proc_seen(struct proc *, pid_t);
static int	proc_ours(pid_t, void *);
static void	proc_free(struct proc *);

/* Order children by pid. */
static int
proc_cmp(struct proc *a, struct proc *b)
{
	return (a->pid < b->pid ? -1 : a->pid > b->pid);
}

/* The loop's children, set up with a SIGCHLD handler on first use. */
static struct proc_set *
proc_set_get(struct loop *loop, char **cause)
{
	struct proc_set	*set;

	if ((set = loop_get_procs(loop)) != NULL)
		return (set);
	set = xcalloc(1, sizeof *set);
	set->loop = loop;
	RB_INIT(&set->tree);
	LIST_INIT(&set->all);
	if (loop_signal(loop, SIGCHLD, proc_sigchld, set) != 0) {
		xasprintf(cause, "cannot handle SIGCHLD: %s", strerror(errno));
		free(set);
		return (NULL);
	}
	/* Reaping passes a barrier; a child's end may not (proc_check_done). */
	loop_signal_pass(loop, SIGCHLD);
	set->buf = xmalloc(PROC_BUFSIZE);
	loop_set_procs(loop, set);
	return (set);
}

/*
 * Start a child.  Signals are blocked across the fork so no handler of ours
 * runs in the child before it puts the defaults back.  The child is made
 * with vfork(): no page tables to copy however big we are, and no
 * copy-on-write faults for us while it gets to exec.
 */
struct proc *
proc_spawn(struct loop *loop, const struct proc_spec *spec,
    proc_output_cb outcb, proc_exit_cb exitcb, void *arg, char **cause)
{
	struct proc_set	*volatile set;	/* live across vfork(): -Wclobbered */
	struct proc_fds	 fds;
	struct proc	*p;
	sigset_t	 all, old;
	pid_t		 pid;
	int		 saved;

	if (spec->argv == NULL || spec->argv[0] == NULL ||
	    *spec->argv[0] == '\0') {
		xasprintf(cause, "no command to run");
		return (NULL);
	}
	if ((set = proc_set_get(loop, cause)) == NULL)
		return (NULL);
	if (proc_fds_open(spec, &fds, cause) != 0)
		return (NULL);

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = vfork();
	if (pid == 0)
		proc_child(spec, &fds);
	if (pid == -1) {
		saved = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		proc_fds_close(&fds);
		xasprintf(cause, "cannot fork: %s", strerror(saved));
		return (NULL);
	}
	if (spec->fence != NULL && spec->fence->lost) {
		/* vfork() returned, so the child has exited: reap it here. */
		while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
			;
		sigprocmask(SIG_SETMASK, &old, NULL);
		proc_fds_close(&fds);
		proc_fence_cause(spec->fence, cause);
		return (NULL);
	}
	p = proc_parent(set, spec, pid, &fds);
	sigprocmask(SIG_SETMASK, &old, NULL);

	p->outcb = outcb;
	p->exitcb = exitcb;
	p->arg = arg;
	log_debug("%s: %s: pid %ld", __func__, spec->argv[0], (long)pid);
	proc_stdin_start(p, spec);
	return (p);
}

/* Why the fence stopped a child before exec. */
static void
proc_fence_cause(const struct proc_fence *fence, char **cause)
{
	switch (fence->lost) {
	case PROC_FENCE_EXPIRED:
		xasprintf(cause, "the leader's deadline has passed");
		break;
	case PROC_FENCE_NOKEEPER:
		xasprintf(cause, "the fence keeper is gone");
		break;
	default:
		xasprintf(cause, "%s is no longer the lock this process took",
		    fence->path);
		break;
	}
}

/*
 * Make the pipes (close-on-exec, so no other child inherits them); our
 * ends are non-blocking.
 */
static int
proc_fds_open(const struct proc_spec *spec, struct proc_fds *fds,
    char **cause)
{
	int	i;

	for (i = 0; i < 2; i++)
		fds->in[i] = fds->out[i] = fds->err[i] = -1;
	if (!(spec->flags & PROC_F_INHERIT)) {
		if (pipe2(fds->out, O_CLOEXEC) != 0 ||
		    pipe2(fds->err, O_CLOEXEC) != 0)
			goto fail;
		if (fcntl(fds->out[0], F_SETFL, O_NONBLOCK) != 0 ||
		    fcntl(fds->err[0], F_SETFL, O_NONBLOCK) != 0)
			goto fail;
		if ((spec->stdin_data != NULL ||
		    (spec->flags & PROC_F_TALK)) &&
		    (pipe2(fds->in, O_CLOEXEC) != 0 ||
		    fcntl(fds->in[1], F_SETFL, O_NONBLOCK) != 0))
			goto fail;
	}
	return (0);

fail:
	xasprintf(cause, "cannot make pipes: %s", strerror(errno));
	proc_fds_close(fds);
	return (-1);
}

/* Close whatever proc_fds_open made. */
static void
proc_fds_close(struct proc_fds *fds)
{
	int	i;

	for (i = 0; i < 2; i++) {
		if (fds->in[i] != -1)
			close(fds->in[i]);
		if (fds->out[i] != -1)
			close(fds->out[i]);
		if (fds->err[i] != -1)
			close(fds->err[i]);
	}
}

/*
 * The parent's half of a spawn: put the child in its group here too (so
 * neither side races the other), note its start time for recognising it
 * later, and start reading its pipes.
 */
static struct proc *
proc_parent(struct proc_set *set, const struct proc_spec *spec, pid_t pid,
    struct proc_fds *fds)
{
	struct proc	*p;
	int		 i;

	p = xcalloc(1, sizeof *p);
	p->set = set;
	p->pid = pid;
	p->flags = spec->flags;
	p->pipe_grace = spec->pipe_grace;
	if (spec->marks != NULL) {
		for (i = 0; spec->marks[i] != NULL; i++)
			;
		p->marks = xcalloc(i + 1, sizeof *p->marks);
		for (i = 0; spec->marks[i] != NULL; i++)
			p->marks[i] = xstrdup(spec->marks[i]);
	}
	if (spec->flags & PROC_F_NOPGRP)
		p->pgid = getpgrp();
	else {
		setpgid(pid, pid);	/* EACCES once it has exec'd: fine */
		p->pgid = pid;
	}
	/*
	 * The start time is read when first asked for: reading /proc while
	 * the child is still in exec waits for the exec to finish.
	 */

	if (fds->in[0] != -1)
		close(fds->in[0]);
	if (fds->out[1] != -1)
		close(fds->out[1]);
	if (fds->err[1] != -1)
		close(fds->err[1]);
	p->in.fd = fds->in[1];
	p->pipe[0].fd = fds->out[0];
	p->pipe[1].fd = fds->err[0];
	for (i = 0; i < 2; i++) {
		p->pipe[i].p = p;
		p->pipe[i].stream = i + 1;
		if (p->pipe[i].fd != -1) {
			p->pipe[i].w = loop_fd_add(set->loop, p->pipe[i].fd,
			    POLLIN, proc_read, &p->pipe[i]);
			if (p->flags & PROC_F_PASS)
				loop_fd_pass(p->pipe[i].w);
		}
	}
	RB_INSERT(proc_tree, &set->tree, p);
	LIST_INSERT_HEAD(&set->all, p, all);
	set->running++;
	return (p);
}

/*
 * SIGCHLD: reap every child that has exited, without blocking, and hand
 * each status to its proc.
 */
static void
proc_sigchld(int signo, void *arg)
{
	struct proc_set	*set = arg;
	pid_t		 pid;
	int		 status;

	for (;;) {
		pid = waitpid(-1, &status, WNOHANG);
		if (pid == -1 && errno == EINTR)
			continue;
		if (pid <= 0)
			break;
		proc_reaped(set, pid, status);
	}
}

/* A child has been reaped: note it, and finish it if its pipes are done. */
static void
proc_reaped(struct proc_set *set, pid_t pid, int status)
{
	struct proc	 find, *p;

	find.pid = pid;
	if ((p = RB_FIND(proc_tree, &set->tree, &find)) == NULL) {
		log_debug("%s: pid %ld not ours, status %d", __func__,
		    (long)pid, status);
		return;
	}
	RB_REMOVE(proc_tree, &set->tree, p);
	p->state |= PROC_S_REAPED;
	p->status = status;
	log_debug("%s: pid %ld status %d", __func__, (long)pid, status);
	if (p->state & PROC_S_ABANDONED) {
		if (p->busy == 0)
			proc_free(p);
		return;
	}
	set->running--;
	if ((p->flags & PROC_F_NOPGRP) && p->timer != NULL)
		loop_timer_stop(p->timer);
	if (p->pipe_grace > 0 &&
	    (p->pipe[0].fd != -1 || p->pipe[1].fd != -1)) {
		p->drain = loop_timer_create(set->loop, proc_drain_timer, p);
		loop_timer_start(p->drain, p->pipe_grace);
	}
	proc_check_done(p);
}

/*
 * The child was reaped a grace ago and something (a descendant, maybe
 * one that left the group) still holds its pipes: what was read is kept,
 * the rest is not waited for.  A child being killed has its leftovers
 * killed now; they had their SIGTERM.
 */
static void
proc_drain_timer(void *arg)
{
	struct proc	*p = arg;

	log_debug("%s: pid %ld: pipes still open; closing them", __func__,
	    (long)p->pid);
	if (p->state & PROC_S_KILLED)
		proc_signal(p, SIGKILL);
	proc_pipe_close(&p->pipe[0]);
	proc_pipe_close(&p->pipe[1]);
	proc_check_done(p);
}

/*
 * Read what a pipe has, in chunks, into the shared buffer.  After a
 * bounded number of reads others get a turn; at EOF (or an error) the
 * pipe is closed.
 */
static void
proc_read(int fd, short revents, void *arg)
{
	struct proc_pipe	*pp = arg;
	struct proc		*p = pp->p;
	char			*buf = p->set->buf;
	ssize_t			 n = 0;
	int			 i;

	for (i = 0; i < PROC_READS; i++) {
		n = read(fd, buf, PROC_BUFSIZE);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n <= 0)
			break;
		if (p->outcb == NULL)
			continue;
		p->busy++;
		p->outcb(p, pp->stream, buf, n, p->arg);
		p->busy--;
		if (p->state & PROC_S_ABANDONED) {
			if (p->busy == 0 && (p->state & PROC_S_REAPED))
				proc_free(p);
			return;
		}
	}
	if (i == PROC_READS)
		return;
	if (n == -1)
		log_debug("%s: pid %ld: %s", __func__, (long)p->pid,
		    strerror(errno));
	proc_pipe_close(pp);
	if (p->pipe[0].fd == -1 && p->pipe[1].fd == -1 &&
	    !(p->state & PROC_S_REAPED))
		proc_try_reap(p);	/* finishes it if it could be reaped */
	else
		proc_check_done(p);
}

/*
 * Both pipes are at EOF, so the child is probably exiting: reap it now if
 * it is done, rather than a turn later when SIGCHLD comes through the
 * self-pipe.
 */
static void
proc_try_reap(struct proc *p)
{
	pid_t	pid;
	int	status;

	do
		pid = waitpid(p->pid, &status, WNOHANG);
	while (pid == -1 && errno == EINTR);
	if (pid == p->pid)
		proc_reaped(p->set, pid, status);
}

/* Stop reading a pipe and close it. */
static void
proc_pipe_close(struct proc_pipe *pp)
{
	if (pp->fd == -1)
		return;
	loop_fd_del(pp->w);
	pp->w = NULL;
	close(pp->fd);
	pp->fd = -1;
}

/* Reaped and both pipes at EOF: the exit callback, once, then free. */
static void
proc_check_done(struct proc *p)
{
	if (p->state & (PROC_S_ABANDONED|PROC_S_DONE))
		return;
	if (!(p->state & PROC_S_REAPED))
		return;
	if (p->pipe[0].fd != -1 || p->pipe[1].fd != -1)
		return;
	/*
	 * Killed, and finishing before its SIGKILL was due: whatever of it
	 * is left (a member ignoring SIGTERM, an escaped descendant) gets
	 * it now, since no timer will be left to send it.
	 */
	if ((p->state & PROC_S_KILLED) && p->timer != NULL &&
	    loop_timer_pending(p->timer))
		proc_signal(p, SIGKILL);
	p->state |= PROC_S_DONE;
	if (!(p->flags & PROC_F_PASS))
		loop_barrier_cross(p->set->loop);
	if (p->exitcb != NULL)
		p->exitcb(p, p->status, p->arg);
	proc_free(p);
}

/* Remember a descendant, so a later signal finds it once orphaned. */
static void
proc_seen(struct proc *p, pid_t pid)
{
	size_t	i;

	for (i = 0; i < p->nseen; i++) {
		if (p->seen[i] == pid)
			return;
	}
	if (p->nseen == PROC_ESCAPED)
		return;
	p->seen = xreallocarray(p->seen, p->nseen + 1, sizeof *p->seen);
	p->seen_start = xreallocarray(p->seen_start, p->nseen + 1,
	    sizeof *p->seen_start);
	p->seen[p->nseen] = pid;
	p->seen_start[p->nseen++] = procstat_start_time(pid);
}

/* Is pid a child we started (and have not reaped)?  For procenv. */
static int
proc_ours(pid_t pid, void *arg)
{
	struct proc_set	*set = arg;
	struct proc	 find;

	find.pid = pid;
	return (RB_FIND(proc_tree, &set->tree, &find) != NULL);
}

/*
 * Signal the child's group, or only the child if it shares ours; then
 * every process that escaped the group: the child's descendants while it
 * lives (from the kernel's children lists, whatever their environment,
 * and remembered, so a SIGKILL still finds them once orphaned), and
 * every process carrying its marks (by environment, also once orphaned:
 * a subreaper looks only at the children it adopted, else every process
 * is read).  Nothing here reads every process of a host where the kernel
 * keeps children lists and we are a subreaper (the engine is).
 */
static void
proc_signal(struct proc *p, int signo)
{
	pid_t	 pids[PROC_ESCAPED];
	size_t	 n, i;

	if (p->flags & PROC_F_NOPGRP) {
		if (!(p->state & PROC_S_REAPED))
			kill(p->pid, signo);
		return;
	}
	/* Before the group's signal, which orphans them as the child dies. */
	if (!(p->state & PROC_S_REAPED)) {
		n = procstat_descendants(p->pid, pids, nitems(pids));
		for (i = 0; i < n; i++)
			proc_seen(p, pids[i]);
	}
	killpg(p->pgid, signo);
	/* Those found now or before (orphaned since), known by start time. */
	for (i = 0; i < p->nseen; i++) {
		if (procstat_same(p->seen[i], p->seen_start[i]))
			kill(p->seen[i], signo);
	}
	if (p->marks != NULL) {
		n = procenv_adopted((const char *const *)p->marks, proc_ours,
		    p->set, pids, nitems(pids));
		if (n == (size_t)-1) {
			n = procenv_find((const char *const *)p->marks, pids,
			    nitems(pids));
		}
		for (i = 0; i < n; i++) {
			log_debug("%s: pid %ld: escaped process %ld",
			    __func__, (long)p->pid, (long)pids[i]);
			kill(pids[i], signo);
		}
	}
}

/*
 * Cancel: SIGTERM to the group now, SIGKILL after grace ms.  Calling again
 * may bring the SIGKILL forward, never put it back.  The group is also
 * killed when the child is reaped but something in it still holds the
 * pipes open.
 */
void
proc_kill(struct proc *p, int64_t grace)
{
	int64_t	deadline;

	if (p->state & (PROC_S_ABANDONED|PROC_S_DONE))
		return;
	if (grace < 0)
		grace = 0;
	deadline = time_mono_ms() + grace;
	if (p->state & PROC_S_KILLED) {
		if (deadline < p->deadline) {
			p->deadline = deadline;
			loop_timer_start(p->timer, grace);
		}
		return;
	}
	p->state |= PROC_S_KILLED;
	p->deadline = deadline;
	log_debug("%s: pid %ld, SIGKILL in %lld ms", __func__, (long)p->pid,
	    (long long)grace);
	proc_signal(p, SIGTERM);
	proc_signal(p, SIGCONT);	/* a stopped group must see it */
	if (p->timer == NULL)
		p->timer = loop_timer_create(p->set->loop, proc_kill_timer, p);
	loop_timer_start(p->timer, grace);
}

/* The grace is over. */
static void
proc_kill_timer(void *arg)
{
	struct proc	*p = arg;

	log_debug("%s: pid %ld", __func__, (long)p->pid);
	proc_signal(p, SIGKILL);
}

/*
 * Forget a child: no more callbacks, no kill.  It is still reaped when it
 * exits.
 */
void
proc_abandon(struct proc *p)
{
	if (p == NULL || (p->state & (PROC_S_ABANDONED|PROC_S_DONE)))
		return;
	log_debug("%s: pid %ld", __func__, (long)p->pid);
	p->state |= PROC_S_ABANDONED;
	proc_stdin_close(p);
	proc_pipe_close(&p->pipe[0]);
	proc_pipe_close(&p->pipe[1]);
	loop_timer_free(p->timer);
	p->timer = NULL;
	loop_timer_free(p->drain);
	p->drain = NULL;
	if (!(p->state & PROC_S_REAPED))
		p->set->running--;
	else if (p->busy == 0)
		proc_free(p);
}

/* The child's pid. */
pid_t
proc_pid(const struct proc *p)
{
	return (p->pid);
}

/* The child's process group (its pid unless PROC_F_NOPGRP). */
pid_t
proc_pgid(const struct proc *p)
{
	return (p->pgid);
}

/* When the child started, Unix ms from /proc (read once); 0 if unknown. */
int64_t
proc_start_time(struct proc *p)
{
	if (p->start == 0)
		p->start = procstat_start_time(p->pid);
	return (p->start);
}

/* How many children have not been reaped yet (abandoned ones aside). */
int
proc_running(const struct loop *loop)
{
	struct proc_set	*set = loop_get_procs(loop);

	return (set == NULL ? 0 : set->running);
}

/* Free a proc and whatever it still holds. */
static void
proc_free(struct proc *p)
{
	size_t	i;

	if (!(p->state & PROC_S_REAPED))
		RB_REMOVE(proc_tree, &p->set->tree, p);
	LIST_REMOVE(p, all);
	proc_stdin_close(p);
	proc_pipe_close(&p->pipe[0]);
	proc_pipe_close(&p->pipe[1]);
	loop_timer_free(p->timer);
	loop_timer_free(p->drain);
	free(p->seen);
	free(p->seen_start);
	if (p->marks != NULL) {
		for (i = 0; p->marks[i] != NULL; i++)
			free(p->marks[i]);
		free(p->marks);
	}
	free(p);
}

/* Forget every child of a loop being freed, without killing any. */
void
proc_set_free(struct proc_set *set)
{
	struct proc	*p, *p1;

	if (set == NULL)
		return;
	LIST_FOREACH_SAFE(p, &set->all, all, p1)
		proc_free(p);
	loop_signal(set->loop, SIGCHLD, NULL, NULL);
	free(set->buf);
	free(set);
}
