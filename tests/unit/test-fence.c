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
 * test-fence.c: a cluster leader's local deadline and its fence keeper,
 * with real processes: a start past the deadline execs nothing; a step
 * (and the grandchild in its group) lives while the deadline is renewed
 * and is gone by the deadline once renewals stop; a leader that is
 * SIGKILLed or SIGSTOPped has its steps stopped by the keeper; with the
 * keeper gone nothing starts; a process that left its step's group
 * (setsid) is found by the step's marks and gone by the deadline too,
 * while another step's is left alone.  The "leader" of the last cases is
 * a forked copy of this program, so the test can kill and freeze it.
 */

#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"
#include "tap.h"

#define SLACK_MS	400	/* scheduling latency allowed past a deadline */

static char	 tmpdir[] = "/tmp/test-fence.XXXXXX";

/* What a spawned step did, as the callbacks saw it. */
struct step {
	int		 exited;
	int		 status;
};

static void	 sleep_ms(int64_t);
static int	 pid_gone(pid_t);
static int64_t	 wait_gone(pid_t, int64_t);
static pid_t	 read_pid(const char *, int64_t);
static void	 step_exit(struct proc *, int, void *);
static struct proc *spawn(struct loop *, struct proc_fence *, const char *,
		     struct step *, char **);
static void	 reap_all(void);
static struct fence_keeper *keeper_start(int64_t);
static void	 test_expired_no_exec(void);
static void	 test_renewals_stop(void);
static void	 test_forget(void);
static void	 test_keeper_gone(void);
static void	 test_keeper_free(void);
static void	 test_leader_killed(void);
static void	 test_leader_stopped(void);
static void	 test_escaped(void);
static void	 test_renewal_waiting(void);

/* Sleep for ms, whatever signals come. */
static void
sleep_ms(int64_t ms)
{
	struct timespec	ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Whether pid has ended: no such process, or a zombie not yet reaped. */
static int
pid_gone(pid_t pid)
{
	char	 path[64], buf[256], *p;
	FILE	*f;
	size_t	 n;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return (1);
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] == '\0')
		return (1);
	return (p[2] == 'Z' || p[2] == 'X');
}

/* Wait up to ms for pid to end; the fence clock when seen gone, or -1. */
static int64_t
wait_gone(pid_t pid, int64_t ms)
{
	int64_t	 end = fence_now_ms() + ms;

	for (;;) {
		if (pid_gone(pid))
			return (fence_now_ms());
		if (fence_now_ms() > end)
			return (-1);
		sleep_ms(5);
	}
}

/* A pid a step wrote to a file, waiting up to ms for it; 0: none. */
static pid_t
read_pid(const char *path, int64_t ms)
{
	int64_t	 end = fence_now_ms() + ms;
	FILE	*f;
	long	 pid;

	for (;;) {
		if ((f = fopen(path, "r")) != NULL) {
			pid = 0;
			if (fscanf(f, "%ld", &pid) == 1 && pid > 0) {
				fclose(f);
				return ((pid_t)pid);
			}
			fclose(f);
		}
		if (fence_now_ms() > end)
			return (0);
		sleep_ms(5);
	}
}

/* Exit callback: note the status. */
static void
step_exit(struct proc *p, int status, void *arg)
{
	struct step	*st = arg;

	st->exited = 1;
	st->status = status;
}

/* Start "sh -c script" under a fence. */
static struct proc *
spawn(struct loop *loop, struct proc_fence *fence, const char *script,
    struct step *st, char **cause)
{
	struct proc_spec	 spec;
	char			*argv[] = { (char *)"sh", (char *)"-c",
				    (char *)script, NULL };

	memset(&spec, 0, sizeof spec);
	spec.argv = argv;
	spec.fence = fence;
	memset(st, 0, sizeof *st);
	return (proc_spawn(loop, &spec, NULL, step_exit, st, cause));
}

/* Reap whatever children are left (we are their subreaper). */
static void
reap_all(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* A keeper with a deadline ms from now; the run ends if it cannot start. */
static struct fence_keeper *
keeper_start(int64_t ms)
{
	struct fence_keeper	*k;
	char			*cause = NULL;

	k = fence_keeper_start(fence_now_ms() + ms, &cause);
	if (!tap_ok(k != NULL, "the keeper starts")) {
		printf("# %s\n", cause);
		exit(1);
	}
	return (k);
}

/* Run the loop until the step has exited, at most ms. */
static int
run_step(struct loop *loop, struct step *st, int64_t ms)
{
	int64_t	 end = fence_now_ms() + ms;

	while (!st->exited && fence_now_ms() < end)
		loop_once(loop, 0), sleep_ms(2);
	return (st->exited);
}

/* Past the deadline the child refuses to exec: nothing runs, cause said. */
static void
test_expired_no_exec(void)
{
	struct loop		*loop = loop_create();
	struct proc_fence	 fence;
	struct step		 st;
	struct stat		 sb;
	char			*marker, *script, *cause = NULL;
	struct proc		*p;

	tap_ok(!fence_expired(0), "no deadline never expires");
	tap_ok(!fence_expired(fence_now_ms() + 10000),
	    "a deadline ahead has not expired");
	tap_ok(fence_expired(fence_now_ms() - 1),
	    "a deadline behind has expired");

	xasprintf(&marker, "%s/ran", tmpdir);
	xasprintf(&script, "touch %s", marker);
	memset(&fence, 0, sizeof fence);
	fence.deadline = fence_now_ms() - 1;
	p = spawn(loop, &fence, script, &st, &cause);
	tap_ok(p == NULL, "a start past the deadline is refused");
	tap_is_int(fence.lost, PROC_FENCE_EXPIRED, "the child says why");
	tap_is(cause, "the leader's deadline has passed", "the cause");
	tap_ok(stat(marker, &sb) == -1 && errno == ENOENT,
	    "the command never ran");
	free(cause);
	cause = NULL;

	fence.lost = 0;
	fence.deadline = fence_now_ms() + 10000;
	p = spawn(loop, &fence, script, &st, &cause);
	tap_ok(p != NULL && run_step(loop, &st, 10000) &&
	    WIFEXITED(st.status) && WEXITSTATUS(st.status) == 0,
	    "a start before the deadline runs");
	tap_ok(stat(marker, &sb) == 0, "and did its work");
	free(cause);
	free(script);
	free(marker);
	loop_free(loop);
}

/*
 * A step and the grandchild in its group live while the deadline is
 * renewed, and are gone by the deadline once the renewals stop.
 */
static void
test_renewals_stop(void)
{
	struct loop		*loop = loop_create();
	struct fence_keeper	*k;
	struct proc_fence	 fence;
	struct step		 st;
	struct proc		*p;
	char			*pidfile, *script, *cause = NULL;
	int64_t			 deadline, gone, gone2;
	pid_t			 pid, grandchild;
	int			 i, alive = 1;

	k = keeper_start(500);
	memset(&fence, 0, sizeof fence);
	fence.keeper = k;
	fence.deadline = k->deadline;
	xasprintf(&pidfile, "%s/grandchild", tmpdir);
	xasprintf(&script, "sleep 60 & echo $! > %s; wait", pidfile);
	p = spawn(loop, &fence, script, &st, &cause);
	tap_ok(p != NULL, "a step starts under the keeper");
	pid = proc_pid(p);
	grandchild = read_pid(pidfile, 5000);
	tap_ok(grandchild > 0, "its grandchild started");

	/* Renew for three times the lease: everything lives. */
	for (i = 0; i < 15; i++) {
		fence.deadline = fence_now_ms() + 500;
		fence_keeper_renew(k, fence.deadline);
		sleep_ms(100);
		loop_once(loop, 0);
		if (pid_gone(pid) || pid_gone(grandchild))
			alive = 0;
	}
	tap_ok(alive, "renewed for 1.5 s past a 0.5 s deadline: both live");

	deadline = k->deadline;
	gone = wait_gone(pid, 5000);
	gone2 = wait_gone(grandchild, 5000);
	tap_ok(gone != -1 && gone2 != -1, "renewals stopped: both are gone");
	tap_ok(gone2 <= deadline + SLACK_MS && gone <= deadline + SLACK_MS,
	    "by the deadline (%lld and %lld ms after it)",
	    (long long)(gone - deadline), (long long)(gone2 - deadline));
	tap_ok(gone >= deadline, "not before it");
	tap_ok(run_step(loop, &st, 5000) && WIFSIGNALED(st.status) &&
	    WTERMSIG(st.status) == SIGKILL, "the step was killed");

	/* Past its deadline a step named to the keeper is killed at once. */
	fence.deadline = 0;	/* the child's own check off: the keeper's */
	p = spawn(loop, &fence, "exec sleep 60", &st, &cause);
	tap_ok(p != NULL && run_step(loop, &st, 5000) &&
	    WIFSIGNALED(st.status), "a group named after the deadline dies");

	fence_keeper_free(k);
	free(cause);
	free(script);
	free(pidfile);
	loop_free(loop);
	reap_all();
}

/* A group the leader says has ended is not the keeper's any more. */
static void
test_forget(void)
{
	struct loop		*loop = loop_create();
	struct fence_keeper	*k;
	struct proc_fence	 fence;
	struct step		 st, st2;
	struct proc		*p, *p2;
	char			*cause = NULL;
	int64_t			 deadline;

	k = fence_keeper_start(fence_now_ms() + 300, &cause);
	memset(&fence, 0, sizeof fence);
	fence.keeper = k;
	p = spawn(loop, &fence, "exec sleep 60", &st, &cause);
	p2 = spawn(loop, &fence, "exec sleep 60", &st2, &cause);
	tap_ok(p != NULL && p2 != NULL, "two steps start");
	fence_keeper_forget(k, proc_pgid(p2));
	deadline = k->deadline;
	tap_ok(wait_gone(proc_pid(p), 3000) != -1, "the watched one dies");
	sleep_ms(deadline + 200 - fence_now_ms());
	tap_ok(!pid_gone(proc_pid(p2)), "the forgotten one lives");
	proc_kill(p2, 0);
	run_step(loop, &st, 3000);
	run_step(loop, &st2, 3000);
	fence_keeper_free(k);
	free(cause);
	loop_free(loop);
	reap_all();
}

/* With the keeper gone, no step starts: it could not be stopped. */
static void
test_keeper_gone(void)
{
	struct loop		*loop = loop_create();
	struct fence_keeper	*k;
	struct proc_fence	 fence;
	struct step		 st;
	char			*cause = NULL;
	int			 status;

	k = fence_keeper_start(0, &cause);
	tap_ok(fence_keeper_alive(k), "a running keeper is alive");
	kill(k->pid, SIGKILL);
	waitpid(k->pid, &status, 0);
	tap_ok(!fence_keeper_alive(k), "a killed keeper is not");
	tap_is_int(fence_keeper_renew(k, fence_now_ms() + 1000), -1,
	    "a renewal to a gone keeper fails");
	memset(&fence, 0, sizeof fence);
	fence.keeper = k;
	tap_ok(spawn(loop, &fence, "exit 0", &st, &cause) == NULL,
	    "no step starts without the keeper");
	tap_is_int(fence.lost, PROC_FENCE_NOKEEPER, "the child says why");
	tap_is(cause, "the fence keeper is gone", "the cause");
	fence_keeper_free(k);
	free(cause);
	loop_free(loop);
}

/* A clean exit lets the keeper go: it stops what is left and exits. */
static void
test_keeper_free(void)
{
	struct loop		*loop = loop_create();
	struct fence_keeper	*k;
	struct proc_fence	 fence;
	struct step		 st;
	struct proc		*p;
	char			*cause = NULL;
	pid_t			 kpid;

	k = fence_keeper_start(0, &cause);
	kpid = k->pid;
	memset(&fence, 0, sizeof fence);
	fence.keeper = k;
	p = spawn(loop, &fence, "exec sleep 60", &st, &cause);
	tap_ok(p != NULL, "a step starts with no deadline");
	sleep_ms(300);
	tap_ok(!pid_gone(proc_pid(p)), "no deadline: it lives");
	kill(kpid, SIGTERM);	/* a service stop is for the leader */
	sleep_ms(100);
	tap_ok(!pid_gone(kpid), "the keeper ignores SIGTERM");
	fence_keeper_free(k);
	tap_ok(run_step(loop, &st, 3000) && WIFSIGNALED(st.status),
	    "let go, the keeper stops the step");
	tap_ok(wait_gone(kpid, 3000) != -1, "and exits");
	free(cause);
	loop_free(loop);
}

/*
 * A forked leader: a keeper with the given lease (0: none), one step,
 * its pid written to fd, then renewals every 100 ms until killed.
 */
static __dead void
leader(int fd, int64_t lease)
{
	struct loop		*loop = loop_create();
	struct fence_keeper	*k;
	struct proc_fence	 fence;
	struct step		 st;
	struct proc		*p;
	char			*cause = NULL;
	pid_t			 pid = 0;

	k = fence_keeper_start(lease ? fence_now_ms() + lease : 0, &cause);
	memset(&fence, 0, sizeof fence);
	fence.keeper = k;
	if (k != NULL &&
	    (p = spawn(loop, &fence, "exec sleep 60", &st, &cause)) != NULL)
		pid = proc_pid(p);
	if (write(fd, &pid, sizeof pid) != sizeof pid)
		_exit(1);
	for (;;) {
		if (lease != 0)
			fence_keeper_renew(k, fence_now_ms() + lease);
		loop_once(loop, 0);
		sleep_ms(100);
	}
}

/* Fork a leader; its step's pid through a pipe. */
static pid_t
leader_start(int64_t lease, pid_t *step)
{
	int	 fds[2];
	pid_t	 pid;

	if (pipe(fds) != 0)
		fatal("pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		close(fds[0]);
		leader(fds[1], lease);
	}
	close(fds[1]);
	*step = 0;
	if (read(fds[0], step, sizeof *step) != sizeof *step)
		*step = 0;
	close(fds[0]);
	return (pid);
}

/* A leader SIGKILLed: the keeper stops its step at once. */
static void
test_leader_killed(void)
{
	pid_t	 lpid, step;
	int64_t	 killed, gone;

	lpid = leader_start(0, &step);
	tap_ok(step > 0, "a leader started a step");
	sleep_ms(300);
	tap_ok(!pid_gone(step), "it runs while the leader lives");
	killed = fence_now_ms();
	kill(lpid, SIGKILL);
	waitpid(lpid, NULL, 0);
	gone = wait_gone(step, 5000);
	tap_ok(gone != -1 && gone - killed <= SLACK_MS,
	    "leader SIGKILLed: its step is gone (%lld ms after)",
	    (long long)(gone - killed));
	sleep_ms(100);
	reap_all();
}

/*
 * A leader SIGSTOPped renews no more: its step is gone by the deadline,
 * though the leader itself cannot do a thing.
 */
static void
test_leader_stopped(void)
{
	pid_t	 lpid, step;
	int64_t	 stopped, gone;

	lpid = leader_start(600, &step);
	tap_ok(step > 0, "a leader with a 0.6 s lease started a step");
	sleep_ms(1500);
	tap_ok(!pid_gone(step), "renewing, its step runs past the lease");
	kill(lpid, SIGSTOP);
	stopped = fence_now_ms();
	gone = wait_gone(step, 5000);
	tap_ok(gone != -1 && gone - stopped <= 600 + 100 + SLACK_MS,
	    "leader SIGSTOPped: its step is gone by the deadline "
	    "(%lld ms after the stop)", (long long)(gone - stopped));
	tap_ok(gone != -1 && gone - stopped >= 600 - 100 - 50,
	    "and not long before it");
	kill(lpid, SIGKILL);
	kill(lpid, SIGCONT);
	waitpid(lpid, NULL, 0);
	sleep_ms(100);
	reap_all();
}

/*
 * A step's process that left its group with setsid, carrying the step's
 * marks, is gone by the deadline; a process carrying another step's
 * marks is not the keeper's.
 */
static void
test_escaped(void)
{
	extern char		**environ;
	struct loop		*loop = loop_create();
	struct fence_keeper	*k;
	struct proc_fence	 fence;
	struct proc_spec	 spec;
	struct step		 st;
	struct proc		*p;
	char			*argv[] = { (char *)"sh", (char *)"-c", NULL,
				    NULL };
	char			*marks[3], *other[3], **envp;
	char			*pidfile, *otherfile, *script, *cause = NULL;
	int64_t			 deadline, gone;
	pid_t			 escaped, bystander, pgid;
	size_t			 n, i;

	xasprintf(&marks[0], "SLUICE_STEP_ID=%ld", (long)getpid());
	marks[1] = (char *)"SLUICE_DB=test-fence";
	marks[2] = NULL;
	for (n = 0; environ[n] != NULL; n++)
		;
	envp = xcalloc(n + 3, sizeof *envp);
	for (i = 0; i < n; i++)
		envp[i] = environ[i];
	envp[n] = marks[0];
	envp[n + 1] = marks[1];

	/* Another step's process, with marks of its own: left alone. */
	xasprintf(&otherfile, "%s/bystander", tmpdir);
	xasprintf(&script, "SLUICE_STEP_ID=1 SLUICE_DB=test-fence "
	    "setsid sleep 60 & echo $! > %s", otherfile);
	other[0] = (char *)"sh";
	other[1] = (char *)"-c";
	other[2] = script;
	if (fork() == 0) {
		execv("/bin/sh", (char *const []){ other[0], other[1],
		    other[2], NULL });
		_exit(127);
	}
	bystander = read_pid(otherfile, 5000);
	free(script);

	k = keeper_start(800);
	memset(&fence, 0, sizeof fence);
	fence.keeper = k;
	fence.deadline = k->deadline;
	xasprintf(&pidfile, "%s/escaped", tmpdir);
	xasprintf(&script, "setsid sleep 60 & echo $! > %s; wait", pidfile);
	argv[2] = script;
	memset(&spec, 0, sizeof spec);
	spec.argv = argv;
	spec.envp = envp;
	spec.marks = marks;
	spec.fence = &fence;
	memset(&st, 0, sizeof st);
	p = proc_spawn(loop, &spec, NULL, step_exit, &st, &cause);
	tap_ok(p != NULL, "a step with marks starts under the keeper");
	pgid = p != NULL ? proc_pgid(p) : 0;
	escaped = read_pid(pidfile, 5000);
	sleep_ms(100);
	tap_ok(escaped > 0 && getsid(escaped) == escaped &&
	    getpgid(escaped) != pgid, "its child left the group (setsid)");

	deadline = k->deadline;
	gone = wait_gone(escaped, 5000);
	tap_ok(gone != -1 && gone <= deadline + SLACK_MS,
	    "no renewal: the process that left is gone by the deadline "
	    "(%lld ms after it)", (long long)(gone - deadline));
	tap_ok(run_step(loop, &st, 5000) && WIFSIGNALED(st.status),
	    "and so is the step");
	tap_ok(bystander > 0 && !pid_gone(bystander),
	    "another step's process is left alone");
	if (bystander > 0)
		kill(bystander, SIGKILL);

	fence_keeper_free(k);
	free(cause);
	free(script);
	free(pidfile);
	free(otherfile);
	free(marks[0]);
	free(envp);
	loop_free(loop);
	sleep_ms(100);
	reap_all();
}

/* nftw callback removing everything. */
static int
test_rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	remove(path);
	return (0);
}


/*
 * A keeper held off the CPU past the deadline reads the renewal the leader
 * sent in time before it looks at the clock: a group named to it just
 * before the renewal is not killed.  (The keeper read one message a turn
 * and looked at the clock first: it killed the group.)
 */
static void
test_renewal_waiting(void)
{
	struct fence_keeper	*k;
	pid_t			 pid, keeper;
	int			 status;

	k = keeper_start(200);
	keeper = k->pid;
	kill(k->pid, SIGSTOP);
	if ((pid = fork()) == 0) {
		setpgid(0, 0);
		for (;;)
			pause();
	}
	setpgid(pid, pid);
	tap_ok(fence_send(k->fd, '+', pid) == 0 &&
	    fence_keeper_renew(k, fence_now_ms() + 10000) == 0,
	    "a group named, then a renewal, while the keeper is stopped");
	sleep_ms(400);
	kill(k->pid, SIGCONT);
	sleep_ms(300);
	tap_ok(!pid_gone(pid), "past the first deadline, the renewal read "
	    "first: the group lives");
	fence_keeper_forget(k, pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	fence_keeper_free(k);
	waitpid(keeper, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the keeper let go exits 0");
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(120);	/* a hung case fails the run rather than blocking it */
	signal(SIGPIPE, SIG_IGN);
	if (mkdtemp(tmpdir) == NULL)
		fatal("mkdtemp");
	/* Orphans of a killed leader come back to us to be reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	test_expired_no_exec();
	test_renewals_stop();
	test_forget();
	test_keeper_gone();
	test_keeper_free();
	test_leader_killed();
	test_leader_stopped();
	test_escaped();
	test_renewal_waiting();

	nftw(tmpdir, test_rm, 16, FTW_DEPTH | FTW_PHYS);
	return (tap_done());
}
