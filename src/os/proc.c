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
 * the self-pipe and finds the child by pid in a tree.  A child is finished only when it has been
 * reaped and both pipes have reached EOF, so no output is ever lost to a
 * grandchild still writing; then the exit callback runs, once, and the
 * proc is freed.  Cancelling is SIGTERM to the group, then SIGKILL from a
 * timer.
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
#define PROC_MAXARGS	256	/* for the shell fallback of a bare script */
#define PROC_ESCAPED	256	/* processes outside the group, per kill */

/*
 * Set back to default in every child besides the signals we handle: the
 * console ignores SIGINT and SIGQUIT while an editor runs, but only in
 * the parent, and SIGPIPE may be ignored by whoever started us.
 */
static const int proc_default_signals[] = { SIGPIPE, SIGINT, SIGQUIT };

#define PROC_S_REAPED		0x1
#define PROC_S_ABANDONED	0x2
#define PROC_S_DONE		0x4	/* exit callback called */
#define PROC_S_KILLED		0x8

extern char	**environ;

/* One of a child's output pipes, the argument of its watcher. */
struct proc_pipe {
	struct proc	*p;
	int		 stream;	/* 1 or 2 */
	int		 fd;		/* -1 once at EOF */
	struct loop_fd	*w;
};

/* Data for the child's stdin, written as the pipe takes it. */
struct proc_stdin {
	int		 fd;		/* -1 once closed */
	struct loop_fd	*w;
	char		*data;
	size_t		 len;
	size_t		 off;
	int		 closing;	/* PROC_F_TALK: close once written */
};

struct proc {
	struct proc_set	*set;
	pid_t		 pid;
	pid_t		 pgid;
	int64_t		 start;
	int		 flags;		/* PROC_F_* */
	int		 state;		/* PROC_S_* */
	int		 status;
	int		 busy;		/* output callbacks on the stack */
	struct proc_pipe pipe[2];
	struct proc_stdin in;
	struct loop_timer *timer;	/* SIGKILL after the grace */
	int64_t		 deadline;	/* monotonic ms of the SIGKILL */
	char		**marks;	/* its processes' environment marks */
	pid_t		*seen;		/* descendants found by parent links */
	int64_t		*seen_start;	/* and their start times */
	size_t		 nseen;
	int64_t		 pipe_grace;	/* ms to read pipes after reaping */
	struct loop_timer *drain;	/* then stop reading */

	proc_output_cb	 outcb;
	proc_exit_cb	 exitcb;
	void		*arg;

	RB_ENTRY(proc)	 entry;		/* in the tree until reaped */
	LIST_ENTRY(proc) all;		/* in the list until freed */
};
RB_HEAD(proc_tree, proc);
LIST_HEAD(proc_list, proc);

/* A loop's children. */
struct proc_set {
	struct loop	*loop;
	struct proc_tree tree;		/* unreaped, by pid */
	struct proc_list all;
	int		 running;	/* unreaped and not abandoned */
	char		*buf;		/* one read buffer for all */
};

/* Descriptors made for one spawn: read ends first. */
struct proc_fds {
	int		 in[2];		/* -1 -1: /dev/null */
	int		 out[2];
	int		 err[2];
};

static int	proc_cmp(struct proc *, struct proc *);
RB_PROTOTYPE(proc_tree, proc, entry, proc_cmp);
RB_GENERATE(proc_tree, proc, entry, proc_cmp);

static struct proc_set *proc_set_get(struct loop *, char **);
static int	proc_fds_open(const struct proc_spec *, struct proc_fds *,
		    char **);
static void	proc_fds_close(struct proc_fds *);
static struct proc *proc_parent(struct proc_set *, const struct proc_spec *,
		    pid_t, struct proc_fds *);
static __dead void proc_child(const struct proc_spec *, struct proc_fds *);
static void	proc_child_fence(struct proc_fence *);
static int	proc_child_lift(int);
static void	proc_child_stdio(int, int, int);
static __dead void proc_child_exec(char *const *, char *const *);
static void	proc_child_try(const char *, char *const *, char *const *);
static const char *proc_child_strerror(int);
static __dead void proc_child_fail(const char *, const char *, int);
static void	proc_sigchld(int, void *);
static void	proc_reaped(struct proc_set *, pid_t, int);
static void	proc_read(int, short, void *);
static void	proc_stdin_start(struct proc *, const struct proc_spec *);
static void	proc_stdin_write(int, short, void *);
static void	proc_stdin_close(struct proc *);
static ssize_t	proc_write_nosigpipe(int, const void *, size_t);
static void	proc_pipe_close(struct proc_pipe *);
static void	proc_try_reap(struct proc *);
static void	proc_check_done(struct proc *);
static void	proc_signal(struct proc *, int);
static void	proc_kill_timer(void *);
static void	proc_drain_timer(void *);
static void	proc_seen(struct proc *, pid_t);
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
		xasprintf(cause, "%s is no longer the lock this process took",
		    spec->fence->path);
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
		}
	}
	RB_INSERT(proc_tree, &set->tree, p);
	LIST_INSERT_HEAD(&set->all, p, all);
	set->running++;
	return (p);
}

/*
 * The child's half, from vfork() to exec: defaults back, own group,
 * /dev/null (or the stdin pipe) and the pipes as 0, 1 and 2, nothing else
 * open, the fence, the directory, exec.  Only async-signal-safe calls,
 * and nothing written but this function's own locals and a lost fence,
 * since after vfork() the parent's memory is the child's.
 */
static __dead void
proc_child(const struct proc_spec *spec, struct proc_fds *fds)
{
	struct sigaction	 sa;
	sigset_t		 none;
	size_t			 i;

	loop_signal_reset();
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < nitems(proc_default_signals); i++)
		sigaction(proc_default_signals[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	if (!(spec->flags & PROC_F_NOPGRP))
		setpgid(0, 0);
	if (!(spec->flags & PROC_F_INHERIT)) {
		proc_child_stdio(proc_child_lift(fds->in[0]),
		    proc_child_lift(fds->out[1]), proc_child_lift(fds->err[1]));
	}
	closefrom(3);
	proc_child_fence(spec->fence);

	if (spec->cwd != NULL && chdir(spec->cwd) != 0)
		proc_child_fail("cannot change directory to ", spec->cwd,
		    errno);
	proc_child_exec(spec->argv, spec->envp);
}

/*
 * The last look before exec: is the fence's path still the file it was?
 * If not, set lost (the one write to the parent's memory, deliberate: the
 * parent reads it when vfork() returns) and exit without running
 * anything.  The path is looked at before chdir, as the parent gave it.
 */
static void
proc_child_fence(struct proc_fence *fence)
{
	struct stat	 sb;

	if (fence == NULL)
		return;
	if (stat(fence->path, &sb) == 0 && sb.st_dev == fence->dev &&
	    sb.st_ino == fence->ino)
		return;
	fence->lost = 1;
	_exit(127);
}

/* Move a descriptor above 2, so setting up 0, 1 and 2 cannot clobber it. */
static int
proc_child_lift(int fd)
{
	if (fd == -1 || fd > 2)
		return (fd);
	if ((fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) == -1)
		_exit(127);
	return (fd);
}

/* stdin from the pipe or /dev/null, stdout and stderr to the pipes. */
static void
proc_child_stdio(int in, int out, int err)
{
	if (in == -1 && (in = open("/dev/null", O_RDONLY)) == -1)
		_exit(127);
	if (in != 0 && dup2(in, 0) == -1)
		_exit(127);
	if (dup2(out, 1) == -1 || dup2(err, 2) == -1)
		_exit(127);
}

/*
 * Run argv[0], looked up in the PATH of the child's own environment (not
 * ours, as execvp would), trying every entry as execvp does.
 */
static __dead void
proc_child_exec(char *const *argv, char *const *envp)
{
	char		 path[4096];
	const char	*search = NULL, *p, *end;
	size_t		 dlen, flen;
	int		 i, error = ENOENT;

	if (envp == NULL)
		envp = environ;
	if (strchr(argv[0], '/') != NULL) {
		proc_child_try(argv[0], argv, envp);
		proc_child_fail("cannot run ", argv[0], errno);
	}
	for (i = 0; envp[i] != NULL; i++) {
		if (strncmp(envp[i], "PATH=", 5) == 0)
			search = envp[i] + 5;
	}
	if (search == NULL)
		search = "/usr/local/bin:/bin:/usr/bin";
	flen = strlen(argv[0]);
	for (p = search; ; p = end + 1) {
		if ((end = strchr(p, ':')) == NULL)
			end = p + strlen(p);
		dlen = end - p;
		if (dlen == 0) {
			p = ".";
			dlen = 1;
		}
		if (dlen + 1 + flen < sizeof path) {
			memcpy(path, p, dlen);
			path[dlen] = '/';
			memcpy(path + dlen + 1, argv[0], flen + 1);
			proc_child_try(path, argv, envp);
			if (errno == EACCES)
				error = EACCES;
			else if (errno != ENOENT && errno != ENOTDIR &&
			    errno != ELOOP && errno != ENAMETOOLONG &&
			    errno != ESTALE && errno != ENODEV &&
			    errno != ETIMEDOUT)
				proc_child_fail("cannot run ", argv[0], errno);
		}
		if (*end == '\0')
			break;
	}
	proc_child_fail("cannot run ", argv[0], error);
}

/* execve, and hand a script without #! to /bin/sh as execvp does. */
static void
proc_child_try(const char *path, char *const *argv, char *const *envp)
{
	char	*shargv[PROC_MAXARGS + 2];
	int	 i;

	execve(path, argv, envp);
	if (errno != ENOEXEC)
		return;
	shargv[0] = (char *)"sh";
	shargv[1] = (char *)path;
	for (i = 1; argv[i] != NULL && i < PROC_MAXARGS; i++)
		shargv[i + 1] = argv[i];
	if (argv[i] != NULL) {
		errno = E2BIG;
		return;
	}
	shargv[i + 1] = NULL;
	execve("/bin/sh", shargv, envp);
	errno = ENOEXEC;
}

/*
 * An error's text without strerror(), which may load a message catalogue
 * (and allocate) in the vfork()ed child.
 */
static const char *
proc_child_strerror(int error)
{
	const char	*s = NULL;

#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	s = strerrordesc_np(error);
#else
	s = strerror(error);
#endif
	return (s != NULL ? s : "unknown error");
}

/* Say why the child cannot go on, on its stderr, and exit 127. */
static __dead void
proc_child_fail(const char *what, const char *arg, int error)
{
	const char	*parts[6];
	size_t		 i;

	parts[0] = "sluice: ";
	parts[1] = what;
	parts[2] = arg;
	parts[3] = ": ";
	parts[4] = proc_child_strerror(error);
	parts[5] = "\n";
	for (i = 0; i < 6; i++) {
		if (write(2, parts[i], strlen(parts[i])) == -1)
			break;
	}
	_exit(127);
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
 * Begin writing the child's stdin: a copy of the data, as much as the
 * pipe takes now, the rest whenever the loop finds it writable.
 */
static void
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
static void
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

/*
 * Signal the child's group, or only the child if it shares ours; then
 * every process that escaped the group: the child's descendants while it
 * lives (found by parent links, whatever their environment, and
 * remembered, so a SIGKILL still finds them once orphaned), and every
 * process carrying its marks (found by environment, also once orphaned).
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
		n = procenv_find((const char *const *)p->marks, pids,
		    nitems(pids));
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
