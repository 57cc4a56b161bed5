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
 * proc-child.c: a child's half of a spawn (proc.c), from vfork() to exec:
 * signal defaults back, its own process group, stdin and the output
 * pipes as 0, 1 and 2 and nothing else open, the fence looked at last,
 * then exec, with the shell fallback for a script without #!.  A failure
 * is written to stderr and the child exits 127 (126 when found but not
 * runnable).
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

#define PROC_MAXARGS	256	/* for the shell fallback of a bare script */

/*
 * Set back to default in every child besides the signals we handle: the
 * console ignores SIGINT and SIGQUIT while an editor runs, but only in
 * the parent, and SIGPIPE may be ignored by whoever started us.
 */
static const int proc_default_signals[] = { SIGPIPE, SIGINT, SIGQUIT };

extern char	**environ;

static void	proc_child_register(struct proc_fence *, char *const *);
static void	proc_child_fence(struct proc_fence *);
static int	proc_child_lift(int);
static void	proc_child_stdio(int, int, int);
static __dead void proc_child_exec(char *const *, char *const *);
static void	proc_child_try(const char *, char *const *, char *const *);
static const char *proc_child_strerror(int);
static __dead void proc_child_fail(const char *, const char *, int);

/*
 * The child's half, from vfork() to exec: defaults back, own group,
 * /dev/null (or the stdin pipe) and the pipes as 0, 1 and 2, nothing else
 * open, the fence, the directory, exec.  Only async-signal-safe calls,
 * and nothing written but this function's own locals and a lost fence,
 * since after vfork() the parent's memory is the child's.
 */
__dead void
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
	proc_child_register(spec->fence, spec->marks);
	closefrom(3);
	proc_child_fence(spec->fence);

	if (spec->cwd != NULL && chdir(spec->cwd) != 0)
		proc_child_fail("cannot change directory to ", spec->cwd,
		    errno);
	proc_child_exec(spec->argv, spec->envp);
}

/*
 * Name our new group to the fence keeper, before its socket is closed:
 * from here on the keeper can kill us, so no step of a leader runs that
 * its keeper does not know.  Our marks go with it, by which the keeper
 * also finds what leaves the group.  If it cannot be told, run nothing.
 */
static void
proc_child_register(struct proc_fence *fence, char *const *marks)
{
	if (fence == NULL || fence->keeper == NULL)
		return;
	if (fence_send_group(fence->keeper->fd, getpid(), marks) == 0)
		return;
	fence->lost = PROC_FENCE_NOKEEPER;
	_exit(127);
}

/*
 * The last look before exec: is the fence's path still the file it was,
 * and is the deadline still ahead?  If not, set lost (the one write to
 * the parent's memory, deliberate: the parent reads it when vfork()
 * returns) and exit without running anything.  The path is looked at
 * before chdir, as the parent gave it.
 */
static void
proc_child_fence(struct proc_fence *fence)
{
	struct stat	 sb;

	if (fence == NULL)
		return;
	if (fence->path != NULL && (stat(fence->path, &sb) != 0 ||
	    sb.st_dev != fence->dev || sb.st_ino != fence->ino)) {
		fence->lost = PROC_FENCE_MOVED;
		_exit(127);
	}
	if (fence_expired(fence->deadline)) {
		fence->lost = PROC_FENCE_EXPIRED;
		_exit(127);
	}
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
