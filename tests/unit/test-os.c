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
 * test-os.c: the os layer against the real kernel: timer order and
 * re-arming, deferred calls and hooks, descriptor watchers, signals through
 * the self-pipe, child processes (output, status, EOF and reaping, groups,
 * held starts, killing, exec failures, inherited descriptors), start times
 * from /proc and the engine lock.
 */

#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"
#include "tap.h"

#define WAIT_MS		10000	/* give up on an awaited event */

/* What a child did, as the callbacks saw it. */
struct result {
	struct buf	 out;
	struct buf	 err;
	int		 status;
	int		 exits;		/* exit callbacks */
	int		 outputs;	/* output callbacks */
	int		 abandon;	/* abandon on the first output */
	int64_t		 done_us;
	int		 expect;	/* exit status, for many children */
	int		*ndone;
	struct proc	*proc;
	struct loop	*loop;
	int		 chain;		/* respawn this many more times */
};

/* A record of callback order. */
struct trace {
	char		 log[256];
	size_t		 len;
	struct loop	*loop;
	int		 n;
};

static char	 tmpdir[] = "/tmp/test-os.XXXXXX";

static int64_t	 now_us(void);
static void	 set_flag(void *);
static int	 run_until(struct loop *, int *, int64_t);
static char	*test_path(const char *);
static int	 test_rm(const char *, const struct stat *, int,
		     struct FTW *);
static void	 trace_add(struct trace *, char);
static void	 res_output(struct proc *, int, const char *, size_t, void *);
static void	 res_exit(struct proc *, int, void *);
static struct proc *spawn(struct loop *, const char **, int, const char *,
		     const char **, struct result *);
static int	 spawn_run(const char **, int, const char *, const char **,
		     struct result *);
static void	 res_free(struct result *);
static int	 wait_gone(struct loop *, pid_t);
static const char *text(const struct buf *);
static void	 tick_fire(void *);
static void	 heap_fire(void *);
static void	 defer_a(void *);
static void	 defer_b(void *);
static void	 defer_c(void *);
static void	 hook_1(void *);
static void	 hook_2(void *);
static void	 hook_3(void *);
static void	 break_cb(void *);
static void	 watch_cb(int, short, void *);
static void	 sig_cb(int, void *);
static void	 ready_output(struct proc *, int, const char *, size_t,
		     void *);
static struct proc *spawn_ready(struct loop *, const char **,
		     struct result *);
static int	 gone(pid_t);
static long	 stat_pgrp(const char *);
static void	 chain_exit(struct proc *, int, void *);
static int	 lock_other(const char *, int);

static void	 test_timer_order(void);
static void	 test_timer_rearm(void);
static void	 test_timer_stop(void);
static void	 test_timer_heap(void);
static void	 test_defer(void);
static void	 test_hooks(void);
static void	 test_break(void);
static void	 test_break_resume(void);
static void	 test_fd(void);
static void	 test_fd_delete(void);
static void	 test_signal(void);
static void	 test_signal_wake(void);
static void	 test_signal_reset(void);
static void	 test_proc_output(void);
static void	 test_proc_eof(void);
static void	 test_proc_stdin(void);
static void	 test_proc_stdin_data(void);
static void	 test_proc_talk(void);
static struct proc *spawn_data(struct loop *, const char **, const char *,
		     size_t, struct result *);
static void	 test_proc_fds(void);
static void	 test_proc_group(void);
static void	 test_proc_kill(void);
static void	 test_proc_kill_trap(void);
static void	 test_proc_kill_group(void);
static void	 test_proc_exec(void);
static void	 test_proc_fence(void);
static void	 test_proc_escaped(void);
static void	 test_proc_cwd_env(void);
static void	 test_proc_abandon(void);
static void	 test_proc_inherit(void);
static void	 test_proc_many(void);
static void	 test_proc_chain(void);
static void	 test_proc_loop_free(void);
static void	 test_procstat(void);
static void	 test_lock(void);
static void	 test_lock_setgid(void);

/* The monotonic clock in microseconds. */
static int64_t
now_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

/* Timer callback: set an int. */
static void
set_flag(void *arg)
{
	*(int *)arg = 1;
}

/* Run turns until *flag is non-zero or ms pass; the flag's final value. */
static int
run_until(struct loop *loop, int *flag, int64_t ms)
{
	struct loop_timer	*t;
	int			 expired = 0;

	t = loop_timer_create(loop, set_flag, &expired);
	loop_timer_start(t, ms);
	while (!*flag && !expired) {
		if (loop_once(loop, 1) != 0)
			break;
	}
	loop_timer_free(t);
	return (*flag);
}

/* A path inside the temporary directory. */
static char *
test_path(const char *name)
{
	char	*path;

	xasprintf(&path, "%s/%s", tmpdir, name);
	return (path);
}

/* nftw callback removing everything. */
static int
test_rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	remove(path);
	return (0);
}

/* Note one event. */
static void
trace_add(struct trace *t, char c)
{
	if (t->len < sizeof t->log - 1)
		t->log[t->len++] = c;
	t->log[t->len] = '\0';
}

/* Collect a child's output. */
static void
res_output(struct proc *p, int stream, const char *data, size_t len,
    void *arg)
{
	struct result	*r = arg;

	r->outputs++;
	buf_add(stream == 1 ? &r->out : &r->err, data, len);
	if (r->abandon)
		proc_abandon(p);
}

/* Note a child's end. */
static void
res_exit(struct proc *p, int status, void *arg)
{
	struct result	*r = arg;

	r->exits++;
	r->status = status;
	r->done_us = now_us();
	r->proc = NULL;
	if (r->ndone != NULL)
		(*r->ndone)++;
}

/* Start a child whose callbacks fill r. */
static struct proc *
spawn(struct loop *loop, const char **argv, int flags, const char *cwd,
    const char **envp, struct result *r)
{
	struct proc_spec	 spec;
	char			*cause = NULL;

	memset(r, 0, sizeof *r);
	buf_init(&r->out);
	buf_init(&r->err);
	r->loop = loop;
	memset(&spec, 0, sizeof spec);
	spec.argv = (char *const *)argv;
	spec.envp = (char *const *)envp;
	spec.cwd = cwd;
	spec.flags = flags;
	r->proc = proc_spawn(loop, &spec, res_output, res_exit, r, &cause);
	if (r->proc == NULL) {
		printf("# proc_spawn: %s\n", cause);
		free(cause);
	}
	return (r->proc);
}

/*
 * A fenced spawn runs its command while the fence's path is the file it
 * was, and runs nothing (lost set, no proc) once the name leads elsewhere.
 */
static void
test_proc_fence(void)
{
	struct proc_fence	 fence;
	struct proc_spec	 spec;
	struct result		 r;
	struct stat		 sb;
	struct loop		*loop;
	struct proc		*p;
	char			*lock, *mark, *cause = NULL;
	const char		*argv[] = { "/bin/sh", "-c", NULL, NULL };
	int			 fd;

	lock = test_path("fence.lock");
	mark = test_path("fence.mark");
	xasprintf((char **)&argv[2], "echo ran >>%s", mark);
	if ((fd = open(lock, O_RDWR|O_CREAT, 0600)) == -1 || fstat(fd, &sb))
		fatal("open %s", lock);
	memset(&fence, 0, sizeof fence);
	fence.path = lock;
	fence.dev = sb.st_dev;
	fence.ino = sb.st_ino;
	tap_ok(lock_same(fd, lock) == 1, "lock_same: the name is the file");

	loop = loop_create();
	memset(&r, 0, sizeof r);
	buf_init(&r.out);
	buf_init(&r.err);
	r.loop = loop;
	memset(&spec, 0, sizeof spec);
	spec.argv = (char *const *)argv;
	spec.fence = &fence;
	p = proc_spawn(loop, &spec, res_output, res_exit, &r, &cause);
	tap_ok(p != NULL && !fence.lost, "fence held: the child runs");
	if (p != NULL)
		run_until(loop, &r.exits, 5000);
	tap_ok(access(mark, F_OK) == 0, "fence held: its command ran");
	res_free(&r);
	unlink(mark);

	/* The name now leads to another file: what a new engine locks. */
	unlink(lock);
	close(open(lock, O_RDWR|O_CREAT, 0600));
	tap_ok(lock_same(fd, lock) == 0, "lock_same: a new file is not ours");
	p = proc_spawn(loop, &spec, res_output, res_exit, &r, &cause);
	tap_ok(p == NULL && fence.lost, "fence lost: no proc, lost set");
	tap_ok(cause != NULL && strstr(cause, "no longer the lock") != NULL,
	    "fence lost: it says why");
	tap_ok(access(mark, F_OK) != 0, "fence lost: nothing ran");
	tap_ok(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD,
	    "fence lost: the child is reaped");
	free(cause);
	unlink(lock);
	tap_ok(lock_same(fd, lock) == 0, "lock_same: a removed file is not");
	close(fd);
	loop_free(loop);
	free((char *)argv[2]);
	free(mark);
	free(lock);
}

/*
 * A grandchild that leaves the group (setsid) and keeps the pipes: the
 * child finishes a grace after it is reaped, with the output read so far;
 * a kill reaches the escaped one through its marks, and through the
 * parent links while the child lives.
 */
static void
test_proc_escaped(void)
{
	struct proc_spec	 spec;
	struct result		 r;
	struct loop		*loop;
	char			*pidf, *cmd, *cause = NULL, buf[32];
	char			*marks[] = { (char *)"SLUICE_TEST_MARK=esc", NULL };
	char			*envp[] = { (char *)"SLUICE_TEST_MARK=esc",
				    (char *)"PATH=/usr/bin:/bin", NULL };
	const char		*argv[] = { "/bin/sh", "-c", NULL, NULL };
	int64_t			 t0;
	pid_t			 esc;
	FILE			*f;
	int			 round, tick;

	pidf = test_path("escaped.pid");
	for (round = 0; round < 3; round++) {
		/* 0: the child exits; 1: killed with marks; 2: by links. */
		unlink(pidf);
		/*
		 * "out" is written before the grandchild starts: once its
		 * pid file is there, the output is in the pipe, and a kill
		 * cannot come before the echo (it did under load).
		 */
		xasprintf(&cmd, "echo out; setsid sh -c 'trap \"\" TERM; "
		    "echo $$ >%s.t; mv %s.t %s; exec sleep 30' & %s", pidf,
		    pidf, pidf, round == 0 ? "exit 0" : "exec sleep 30");
		argv[2] = cmd;
		loop = loop_create();
		memset(&r, 0, sizeof r);
		buf_init(&r.out);
		buf_init(&r.err);
		r.loop = loop;
		memset(&spec, 0, sizeof spec);
		spec.argv = (char *const *)argv;
		spec.envp = envp;
		spec.marks = round == 2 ? NULL : marks;
		spec.pipe_grace = 100;
		r.proc = proc_spawn(loop, &spec, res_output, res_exit, &r,
		    &cause);
		esc = 0;
		for (t0 = time_mono_ms(); esc == 0 &&
		    time_mono_ms() - t0 < 5000; ) {
			if ((f = fopen(pidf, "r")) != NULL) {
				if (fgets(buf, sizeof buf, f) != NULL)
					esc = (pid_t)atol(buf);
				fclose(f);
			}
			if (esc == 0)
				run_until(loop, &r.exits, 20);
		}
		tap_ok(r.proc != NULL && esc > 0,
		    "escaped %d: the grandchild started", round);
		if (round > 0)
			proc_kill(r.proc, 100);
		run_until(loop, &r.exits, 5000);
		tap_ok(r.exits == 1, "escaped %d: the child finished although "
		    "its pipes are held", round);
		tap_ok(strcmp(text(&r.out), "out\n") == 0,
		    "escaped %d: with the output read before", round);
		if (round == 0)
			tap_ok(!gone(esc), "escaped 0: a normal exit kills "
			    "nothing");
		else {
			for (t0 = time_mono_ms(); !gone(esc) &&
			    time_mono_ms() - t0 < 5000; ) {
				tick = 0;
				run_until(loop, &tick, 10);
			}
			tap_ok(gone(esc), "escaped %d: the kill reached the "
			    "escaped process", round);
		}
		if (esc > 0)
			kill(esc, SIGKILL);
		res_free(&r);
		loop_free(loop);
		free(cmd);
	}
	free(pidf);
}

/* Start a child on a loop of its own and run until it is done. */
static int
spawn_run(const char **argv, int flags, const char *cwd, const char **envp,
    struct result *r)
{
	struct loop	*loop;
	int		 ok = 0;

	loop = loop_create();
	if (spawn(loop, argv, flags, cwd, envp, r) != NULL)
		ok = run_until(loop, &r->exits, WAIT_MS);
	loop_free(loop);
	return (ok);
}

/* A buffer's text, "" when nothing was added. */
static const char *
text(const struct buf *b)
{
	return (b->data != NULL ? b->data : "");
}

/* Free what a result collected. */
static void
res_free(struct result *r)
{
	buf_free(&r->out);
	buf_free(&r->err);
}

/* Run the loop until pid no longer exists (it is reaped by the loop). */
static int
wait_gone(struct loop *loop, pid_t pid)
{
	int	tick, i;

	for (i = 0; i < WAIT_MS / 10; i++) {
		if (kill(pid, 0) == -1 && errno == ESRCH)
			return (1);
		tick = 0;
		run_until(loop, &tick, 10);
	}
	return (0);
}

/* A timer that notes when it fired and in which order. */
struct tick {
	struct trace	*trace;
	char		 name;
	int64_t		 started;
	int64_t		 fired;
	int		 count;
	int		 rearm;		/* times to re-arm itself */
	struct loop_timer *timer;
	struct loop_timer *victim;	/* stop this one when firing */
	int		 free_victim;
	int		 free_self;
};

/* Timer callback for struct tick. */
static void
tick_fire(void *arg)
{
	struct tick	*t = arg;

	t->fired = now_us();
	t->count++;
	if (t->trace != NULL)
		trace_add(t->trace, t->name);
	if (t->victim != NULL) {
		if (t->free_victim)
			loop_timer_free(t->victim);
		else
			loop_timer_stop(t->victim);
		t->victim = NULL;
	}
	if (t->rearm > 0) {
		t->rearm--;
		loop_timer_start(t->timer, 5);
	}
	if (t->free_self) {
		loop_timer_free(t->timer);
		t->timer = NULL;
	}
}

/* Timers fire in deadline order and never early. */
static void
test_timer_order(void)
{
	struct loop	*loop = loop_create();
	struct trace	 tr = { .len = 0 };
	struct tick	 ticks[4];
	int		 delays[4] = { 60, 20, 40, 0 }, i, last = 0;

	memset(ticks, 0, sizeof ticks);
	for (i = 0; i < 4; i++) {
		ticks[i].trace = &tr;
		ticks[i].name = "CABD"[i];
		ticks[i].timer = loop_timer_create(loop, tick_fire, &ticks[i]);
		ticks[i].started = now_us();
		loop_timer_start(ticks[i].timer, delays[i]);
		tap_ok(loop_timer_pending(ticks[i].timer),
		    "timer %c pending once started", ticks[i].name);
	}
	run_until(loop, &ticks[0].count, WAIT_MS);
	tap_is(tr.log, "DABC", "timers fire in deadline order");
	for (i = 0; i < 4; i++) {
		tap_ok(ticks[i].fired - ticks[i].started >=
		    (int64_t)delays[i] * 1000, "timer %c not early (%lld us)",
		    ticks[i].name,
		    (long long)(ticks[i].fired - ticks[i].started));
		tap_ok(!loop_timer_pending(ticks[i].timer),
		    "timer %c not pending after firing", ticks[i].name);
		loop_timer_free(ticks[i].timer);
	}

	/* Equal delays fire in the order they were started. */
	tr.len = 0;
	for (i = 0; i < 4; i++) {
		memset(&ticks[i], 0, sizeof ticks[i]);
		ticks[i].trace = &tr;
		ticks[i].name = "wxyz"[i];
		ticks[i].timer = loop_timer_create(loop, tick_fire, &ticks[i]);
	}
	for (i = 3; i >= 0; i--)
		loop_timer_start(ticks[i].timer, 0);
	loop_once(loop, 0);
	tap_is(tr.log, "zyxw", "0 ms timers fire next turn, in start order");
	for (i = 0; i < 4; i++) {
		last += ticks[i].count;
		loop_timer_free(ticks[i].timer);
	}
	tap_is_int(last, 4, "each fired once");
	loop_free(loop);
}

/* Re-arming moves a pending timer; a timer may re-arm itself. */
static void
test_timer_rearm(void)
{
	struct loop	*loop = loop_create();
	struct tick	 a, b;

	memset(&a, 0, sizeof a);
	a.timer = loop_timer_create(loop, tick_fire, &a);
	a.started = now_us();
	loop_timer_start(a.timer, 2000);
	loop_timer_start(a.timer, 20);
	run_until(loop, &a.count, WAIT_MS);
	tap_ok(a.count == 1 && a.fired - a.started >= 20000 &&
	    a.fired - a.started < 2000000,
	    "re-arming a pending timer moves it (%lld us)",
	    (long long)(a.fired - a.started));
	loop_timer_start(a.timer, 2000);
	loop_timer_start(a.timer, 4000);
	loop_timer_stop(a.timer);
	tap_ok(!loop_timer_pending(a.timer), "stopped after re-arming twice");

	a.count = 0;
	a.rearm = 2;
	a.started = now_us();
	loop_timer_start(a.timer, 5);
	while (a.count < 3 && now_us() - a.started < WAIT_MS * 1000LL)
		loop_once(loop, 1);
	tap_ok(a.count == 3 && a.fired - a.started >= 15000,
	    "a timer re-arms itself from its callback");

	/* Re-armed with 0 ms from its callback: fires once per turn. */
	memset(&b, 0, sizeof b);
	b.rearm = 100;
	b.timer = loop_timer_create(loop, tick_fire, &b);
	loop_timer_start(b.timer, 0);
	loop_once(loop, 0);
	tap_is_int(b.count, 1, "0 ms re-arm waits for the next turn");
	b.rearm = 0;
	loop_timer_free(a.timer);
	loop_timer_free(b.timer);
	loop_free(loop);
}

/* Stopping and freeing timers, also from callbacks, also their own. */
static void
test_timer_stop(void)
{
	struct loop	*loop = loop_create();
	struct tick	 a, b, c, d, end;
	int		 zero = 0;

	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	memset(&c, 0, sizeof c);
	memset(&d, 0, sizeof d);
	memset(&end, 0, sizeof end);
	a.timer = loop_timer_create(loop, tick_fire, &a);
	b.timer = loop_timer_create(loop, tick_fire, &b);
	c.timer = loop_timer_create(loop, tick_fire, &c);
	d.timer = loop_timer_create(loop, tick_fire, &d);
	end.timer = loop_timer_create(loop, tick_fire, &end);

	a.victim = b.timer;		/* both due in the same turn */
	c.victim = d.timer;
	c.free_victim = 1;
	c.free_self = 1;
	loop_timer_start(a.timer, 10);
	loop_timer_start(b.timer, 10);
	loop_timer_start(c.timer, 10);
	loop_timer_start(d.timer, 10);
	loop_timer_start(end.timer, 30);
	loop_timer_stop(end.timer);
	loop_timer_stop(end.timer);
	tap_ok(!loop_timer_pending(end.timer), "stopped timer not pending");
	loop_timer_start(end.timer, 40);
	run_until(loop, &end.count, WAIT_MS);
	tap_is_int(a.count, 1, "timer a fired");
	tap_is_int(b.count, 0, "timer stopped by another's callback in the "
	    "same turn did not fire");
	tap_is_int(c.count, 1, "timer freeing itself fired once");
	tap_is_int(d.count, 0,
	    "timer freed by another's callback did not fire");
	tap_ok(!loop_timer_pending(b.timer), "stopped timer b not pending");
	run_until(loop, &zero, 20);
	tap_is_int(b.count + end.count, 1, "nothing fires later");
	loop_timer_free(a.timer);
	loop_timer_free(b.timer);
	loop_timer_free(end.timer);
	loop_timer_stop(NULL);
	loop_timer_free(NULL);

	/* A pending timer may outlive its loop and be freed after it. */
	a.timer = loop_timer_create(loop, tick_fire, &a);
	loop_timer_start(a.timer, 1000);
	loop_free(loop);
	loop_timer_free(a.timer);
	tap_ok(1, "timer freed after its loop");
}

/* Many timers, some stopped: fired in order, none stopped, none twice. */
struct heapt {
	int64_t		 when;
	int		 stopped;
	int		 fired;
	int64_t		*last;
	int		*bad;
	int		*count;
};

/* Timer callback for the heap test. */
static void
heap_fire(void *arg)
{
	struct heapt	*h = arg;

	if (h->stopped || h->fired || h->when < *h->last)
		(*h->bad)++;
	h->fired++;
	*h->last = h->when;
	(*h->count)++;
}

/* Push many timers through the heap. */
static void
test_timer_heap(void)
{
	struct loop		 *loop = loop_create();
	struct heapt		  h[600];
	struct loop_timer	 *t[600];
	int64_t			  last = 0, base;
	int			  i, bad = 0, count = 0, want = 0, ms;

	/*
	 * Delays are whole tens of ms so that starting them all (well under
	 * 10 ms) cannot reorder them: the order is delay, then start order.
	 */
	srandom(42);
	base = now_us();
	for (i = 0; i < 600; i++) {
		memset(&h[i], 0, sizeof h[i]);
		h[i].last = &last;
		h[i].bad = &bad;
		h[i].count = &count;
		t[i] = loop_timer_create(loop, heap_fire, &h[i]);
		ms = (random() % 8) * 10;
		h[i].when = ms * 10000 + i;
		loop_timer_start(t[i], ms);
	}
	for (i = 0; i < 600; i += 3) {
		loop_timer_stop(t[i]);
		h[i].stopped = 1;
	}
	for (i = 1; i < 600; i += 3) {
		ms = (random() % 8) * 10;
		h[i].when = ms * 10000 + 600 + i;
		loop_timer_start(t[i], ms);
	}
	for (i = 0; i < 600; i++)
		want += !h[i].stopped;
	while (count < want && now_us() - base < WAIT_MS * 1000LL)
		loop_once(loop, 1);
	tap_is_int(count, want, "600 timers, 200 stopped: the rest fired");
	tap_is_int(bad, 0, "none out of order, stopped or twice");
	for (i = 0; i < 600; i++)
		loop_timer_free(t[i]);
	loop_free(loop);
}

/* Deferred call A: queues C behind B. */
static void
defer_a(void *arg)
{
	struct trace	*t = arg;

	trace_add(t, 'A');
	loop_defer(t->loop, defer_c, t);
}

/* Deferred call B. */
static void
defer_b(void *arg)
{
	trace_add(arg, 'B');
}

/* Deferred call C. */
static void
defer_c(void *arg)
{
	trace_add(arg, 'C');
}

/* Hook 1: defers more work on its first run only. */
static void
hook_1(void *arg)
{
	struct trace	*t = arg;

	trace_add(t, '1');
	if (t->n++ == 0)
		loop_defer(t->loop, defer_b, t);
}

/* Hook 2: removes hook 3 and itself. */
static void
hook_2(void *arg)
{
	struct trace	*t = arg;

	trace_add(t, '2');
	loop_hook_del(t->loop, hook_3, t);
	loop_hook_del(t->loop, hook_2, t);
}

/* Hook 3. */
static void
hook_3(void *arg)
{
	trace_add(arg, '3');
}

/* Deferred calls run first, in order, including ones queued meanwhile. */
static void
test_defer(void)
{
	struct loop	*loop = loop_create();
	struct trace	 t;
	int		 i;

	memset(&t, 0, sizeof t);
	t.loop = loop;
	loop_defer(loop, defer_a, &t);
	loop_defer(loop, defer_b, &t);
	tap_is(t.log, "", "deferred calls wait for the loop");
	loop_once(loop, 0);
	tap_is(t.log, "ABC", "deferred calls run in order, late ones in the "
	    "same drain");

	/* Enough to wrap and grow the ring. */
	t.len = 0;
	for (i = 0; i < 10; i++)
		loop_defer(loop, defer_b, &t);
	loop_once(loop, 0);
	for (i = 0; i < 40; i++)
		loop_defer(loop, i % 2 ? defer_b : defer_c, &t);
	loop_once(loop, 0);
	tap_ok(t.len == 50 && strncmp(t.log + 10, "CBCBCBCB", 8) == 0 &&
	    strcmp(t.log + 42, "CBCBCBCB") == 0,
	    "50 deferred calls through a growing ring, in order");
	loop_free(loop);
}

/* Hooks run after deferred calls, in order; one that defers loops again. */
static void
test_hooks(void)
{
	struct loop	*loop = loop_create();
	struct trace	 t;
	int64_t		 start;

	memset(&t, 0, sizeof t);
	t.loop = loop;
	loop_hook_add(loop, hook_1, &t);
	loop_hook_add(loop, hook_2, &t);
	loop_hook_add(loop, hook_3, &t);
	loop_defer(loop, defer_c, &t);

	/* hook_1 defers B: with no timers or fds, poll must not sleep. */
	start = now_us();
	loop_once(loop, 1);
	tap_is(t.log, "C12", "deferred calls, then hooks in order; a hook "
	    "removed by an earlier one does not run");
	tap_ok(now_us() - start < 5 * 1000000,
	    "a turn whose hook deferred work did not sleep");
	loop_once(loop, 0);
	tap_is(t.log, "C12B1", "work deferred by a hook runs next turn");
	loop_hook_del(loop, hook_1, &t);
	loop_hook_del(loop, hook_1, &t);
	loop_once(loop, 0);
	tap_is(t.log, "C12B1", "removed hooks do not run");
	loop_free(loop);
}

/* Deferred call that stops the loop. */
static void
break_cb(void *arg)
{
	struct loop	*loop = arg;

	tap_ok(!loop_stopped(loop), "not stopped before loop_break");
	loop_break(loop);
}

/* loop_break from a deferred call ends loop_run without a sleep. */
static void
test_break(void)
{
	struct loop	*loop = loop_create();

	loop_defer(loop, break_cb, loop);
	tap_is_int(loop_run(loop), 0, "loop_run returns 0 after loop_break");
	tap_ok(loop_stopped(loop), "loop_stopped after loop_break");
	loop_free(loop);
	test_break_resume();
}

/*
 * After loop_break, a caller turning the loop by hand (the console waiting
 * for its steps) must sleep until something happens: with the loop still
 * broken every turn polled with a zero timeout and the process spun.
 */
static void
test_break_resume(void)
{
	struct loop		*loop = loop_create();
	struct loop_timer	*t;
	int			 fired = 0, turns = 0;
	int64_t			 start;

	t = loop_timer_create(loop, set_flag, &fired);
	loop_break(loop);
	loop_resume(loop);
	tap_ok(!loop_stopped(loop), "loop_resume undoes loop_break");
	loop_timer_start(t, 100);
	start = time_mono_ms();
	while (!fired && turns < 1000) {
		loop_once(loop, 1);
		turns++;
	}
	tap_ok(fired && turns <= 2, "after loop_resume a turn sleeps until "
	    "the timer (%d turns)", turns);
	tap_ok(time_mono_ms() - start >= 90, "... 100 ms later");
	loop_timer_free(t);
	loop_free(loop);
}

/* A descriptor watcher's record. */
struct watch {
	int		 calls;
	short		 revents;
	int		 readit;
	struct loop_fd	*w;
	struct loop_fd	*victim;
	int		 delself;
};

/* Watcher callback: note, drain, maybe delete. */
static void
watch_cb(int fd, short revents, void *arg)
{
	struct watch	*w = arg;
	char		 buf[64];

	w->calls++;
	w->revents = revents;
	if (w->readit && (revents & POLLIN))
		(void)read(fd, buf, sizeof buf);
	if (w->victim != NULL) {
		loop_fd_del(w->victim);
		w->victim = NULL;
	}
	if (w->delself) {
		loop_fd_del(w->w);
		w->w = NULL;
	}
}

/* A pipe through the loop: readable, paused, resumed, hung up. */
static void
test_fd(void)
{
	struct loop	*loop = loop_create();
	struct watch	 r, wr;
	int		 fds[2];

	if (pipe(fds) != 0)
		fatal("pipe");
	memset(&r, 0, sizeof r);
	memset(&wr, 0, sizeof wr);
	r.readit = 1;
	r.w = loop_fd_add(loop, fds[0], POLLIN, watch_cb, &r);
	loop_once(loop, 0);
	tap_is_int(r.calls, 0, "empty pipe: no callback");
	if (write(fds[1], "x", 1) != 1)
		fatal("write");
	loop_once(loop, 0);
	tap_ok(r.calls == 1 && r.revents == POLLIN, "readable pipe: POLLIN");

	r.readit = 0;
	if (write(fds[1], "y", 1) != 1)
		fatal("write");
	loop_fd_events(r.w, 0);
	loop_once(loop, 0);
	tap_is_int(r.calls, 1, "events 0 pauses the watcher");
	loop_fd_events(r.w, POLLIN);
	loop_once(loop, 0);
	tap_is_int(r.calls, 2, "resumed watcher sees the data");

	wr.w = loop_fd_add(loop, fds[1], POLLOUT, watch_cb, &wr);
	loop_once(loop, 0);
	tap_ok(wr.calls == 1 && wr.revents == POLLOUT,
	    "writable end: POLLOUT");
	loop_fd_del(wr.w);
	close(fds[1]);
	r.readit = 1;
	r.calls = 0;
	loop_once(loop, 0);
	loop_once(loop, 0);
	tap_ok(r.calls >= 1 && (r.revents & POLLHUP),
	    "closed writer: POLLHUP reported though not asked for");
	loop_fd_del(r.w);
	close(fds[0]);
	loop_free(loop);
}

/* Deleting watchers inside callbacks: never dispatched afterwards. */
static void
test_fd_delete(void)
{
	struct loop	*loop = loop_create();
	struct watch	 a, b, c;
	int		 p1[2], p2[2], i;

	if (pipe(p1) != 0 || pipe(p2) != 0)
		fatal("pipe");
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	memset(&c, 0, sizeof c);
	a.w = loop_fd_add(loop, p1[0], POLLIN, watch_cb, &a);
	b.w = loop_fd_add(loop, p2[0], POLLIN, watch_cb, &b);
	a.victim = b.w;
	a.delself = 1;
	if (write(p1[1], "x", 1) != 1 || write(p2[1], "x", 1) != 1)
		fatal("write");
	loop_once(loop, 0);
	tap_is_int(a.calls, 1, "first ready watcher called");
	tap_is_int(b.calls, 0, "watcher deleted earlier in the same turn is "
	    "not called");
	loop_once(loop, 0);
	tap_ok(a.calls == 1 && b.calls == 0, "deleted watchers stay quiet");

	/* Reuse the descriptor at once, and many adds and deletes. */
	c.w = loop_fd_add(loop, p2[0], POLLIN, watch_cb, &c);
	loop_once(loop, 0);
	tap_is_int(c.calls, 1, "new watcher on the same descriptor works");
	loop_fd_del(c.w);
	for (i = 0; i < 100; i++)
		loop_fd_del(loop_fd_add(loop, p1[0], POLLIN, watch_cb, &a));
	loop_once(loop, 0);
	tap_is_int(a.calls, 1, "100 added-and-deleted watchers never called");
	close(p1[0]);
	close(p1[1]);
	close(p2[0]);
	close(p2[1]);
	loop_free(loop);
}

/* A signal callback's record. */
struct sigrec {
	int		 count[NSIG];
	int		 last;
	char		 order[16];
	size_t		 len;
};

/* Signal callback: count, in the loop. */
static void
sig_cb(int signo, void *arg)
{
	struct sigrec	*s = arg;

	s->count[signo]++;
	s->last = signo;
	if (s->len < sizeof s->order - 1)
		s->order[s->len++] = signo == SIGUSR1 ? 'U' : 'H';
}

/* raise() reaches the callback in the loop, not in the handler. */
static void
test_signal(void)
{
	struct loop		*loop = loop_create();
	struct sigrec		 s;
	struct sigaction	 sa, hup;

	memset(&s, 0, sizeof s);
	/* What SIGHUP was before (ignored under nohup), to be put back. */
	sigaction(SIGHUP, NULL, &hup);
	tap_is_int(loop_signal(loop, SIGUSR1, sig_cb, &s), 0,
	    "loop_signal SIGUSR1");
	tap_is_int(loop_signal(loop, SIGHUP, sig_cb, &s), 0,
	    "loop_signal SIGHUP");
	tap_ok(loop_signal(loop, SIGKILL, sig_cb, &s) == -1 &&
	    errno == EINVAL, "SIGKILL refused");
	sigaction(SIGUSR1, NULL, &sa);
	tap_ok((sa.sa_flags & SA_RESTART) && sa.sa_handler != SIG_DFL,
	    "handler installed with SA_RESTART");

	raise(SIGUSR1);
	tap_is_int(s.count[SIGUSR1], 0, "callback not run in the handler");
	loop_once(loop, 0);
	tap_ok(s.count[SIGUSR1] == 1 && s.last == SIGUSR1,
	    "callback run by the loop with the signal number");
	raise(SIGUSR1);
	raise(SIGHUP);
	loop_once(loop, 0);
	tap_ok(s.count[SIGUSR1] == 2 && s.count[SIGHUP] == 1,
	    "two signals in one turn both delivered");
	tap_is(s.order, "UUH", "in the order they came");
	loop_once(loop, 0);
	tap_ok(s.count[SIGUSR1] == 2 && s.count[SIGHUP] == 1,
	    "nothing delivered twice");

	tap_is_int(loop_signal(loop, SIGHUP, NULL, NULL), 0,
	    "SIGHUP callback removed");
	sigaction(SIGHUP, NULL, &sa);
	tap_ok(sa.sa_handler == hup.sa_handler,
	    "SIGHUP disposition put back (as it was before)");
	loop_free(loop);
	sigaction(SIGUSR1, NULL, &sa);
	tap_ok(sa.sa_handler == SIG_DFL, "loop_free puts SIGUSR1 back");
}

/* A signal wakes a loop blocked in poll() with nothing else to do. */
static void
test_signal_wake(void)
{
	struct loop		*loop = loop_create();
	struct sigrec		 s;
	struct timespec		 ts = { 0, 50 * 1000 * 1000 };
	pid_t			 pid, parent = getpid();
	int64_t			 start;

	memset(&s, 0, sizeof s);
	loop_signal(loop, SIGUSR1, sig_cb, &s);
	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0) {
		nanosleep(&ts, NULL);	/* the stimulus, not a wait */
		kill(parent, SIGUSR1);
		_exit(0);
	}
	start = now_us();
	while (s.count[SIGUSR1] == 0 && now_us() - start < WAIT_MS * 1000LL)
		loop_once(loop, 1);
	tap_is_int(s.count[SIGUSR1], 1, "blocked loop woken by a signal");
	waitpid(pid, NULL, 0);
	loop_free(loop);
}

/* loop_signal_reset puts defaults back (checked in a child). */
static void
test_signal_reset(void)
{
	struct loop		*loop = loop_create();
	struct sigrec		 s;
	struct sigaction	 sa;
	pid_t			 pid;
	int			 status;

	memset(&s, 0, sizeof s);
	loop_signal(loop, SIGUSR2, sig_cb, &s);
	loop_signal(loop, SIGTERM, sig_cb, &s);
	loop_signal(loop, SIGWINCH, sig_cb, &s);
	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0) {
		loop_signal_reset();
		sigaction(SIGUSR2, NULL, &sa);
		if (sa.sa_handler != SIG_DFL)
			_exit(1);
		sigaction(SIGTERM, NULL, &sa);
		if (sa.sa_handler != SIG_DFL)
			_exit(2);
		sigaction(SIGWINCH, NULL, &sa);
		_exit(sa.sa_handler != SIG_DFL ? 3 : 0);
	}
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "loop_signal_reset sets handled signals to SIG_DFL");
	raise(SIGTERM);
	loop_once(loop, 0);
	tap_is_int(s.count[SIGTERM], 1, "SIGTERM caught through the loop");
	loop_free(loop);
}

/* stdout and stderr apart, and the exit status. */
static void
test_proc_output(void)
{
	const char	*echo[] = { "echo", "hi", NULL };
	const char	*both[] = { "sh", "-c",
			    "echo out; echo err >&2; echo more; exit 3", NULL };
	const char	*big[] = { "head", "-c", "1000000", "/dev/zero",
			    NULL };
	struct result	 r;

	tap_ok(spawn_run(echo, 0, NULL, NULL, &r), "echo hi finished");
	tap_is(text(&r.out), "hi\n", "echo hi: stdout captured");
	tap_is(text(&r.err), "", "echo hi: nothing on stderr");
	tap_ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
	    "echo hi: exit 0");
	tap_is_int(r.exits, 1, "exit callback once");
	res_free(&r);

	tap_ok(spawn_run(both, 0, NULL, NULL, &r), "sh finished");
	tap_is(text(&r.out), "out\nmore\n", "stdout apart");
	tap_is(text(&r.err), "err\n", "stderr apart");
	tap_ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3,
	    "exit status 3 propagated");
	res_free(&r);

	tap_ok(spawn_run(big, 0, NULL, NULL, &r), "head finished");
	tap_is_int(r.out.len, 1000000, "1 MB of output, all of it");
	res_free(&r);
}

/* The exit callback waits for reaping and both EOFs, whichever is last. */
static void
test_proc_eof(void)
{
	const char	*late_err[] = { "sh", "-c",
			    "exec 1>&-; sleep 0.1; echo x >&2", NULL };
	const char	*closed[] = { "sh", "-c",
			    "exec 1>&- 2>&-; sleep 0.1; exit 4", NULL };
	const char	*grand[] = { "sh", "-c",
			    "(sleep 0.15; echo late) & echo early", NULL };
	struct result	 r;
	int64_t		 start;

	start = now_us();
	tap_ok(spawn_run(late_err, 0, NULL, NULL, &r), "early stdout EOF");
	tap_ok(r.exits == 1 && strcmp(text(&r.err), "x\n") == 0 &&
	    r.done_us - start >= 100000,
	    "exit callback after stderr's EOF, not stdout's");
	res_free(&r);

	start = now_us();
	tap_ok(spawn_run(closed, 0, NULL, NULL, &r), "both pipes closed early");
	tap_ok(r.exits == 1 && WEXITSTATUS(r.status) == 4 &&
	    r.done_us - start >= 100000,
	    "exit callback waits for the reap after both EOFs");
	res_free(&r);

	start = now_us();
	tap_ok(spawn_run(grand, 0, NULL, NULL, &r),
	    "grandchild holding stdout");
	tap_is(text(&r.out), "early\nlate\n",
	    "exit callback waits for the grandchild's EOF");
	tap_ok(r.done_us - start >= 150000 && WEXITSTATUS(r.status) == 0,
	    "and reports the child's status");
	res_free(&r);
}

/* The child's stdin is /dev/null. */
static void
test_proc_stdin(void)
{
	const char	*rl[] = { "readlink", "/proc/self/fd/0", NULL };
	const char	*cat[] = { "cat", NULL };
	struct result	 r;

	tap_ok(spawn_run(rl, 0, NULL, NULL, &r), "readlink finished");
	tap_is(text(&r.out), "/dev/null\n", "stdin is /dev/null");
	res_free(&r);
	tap_ok(spawn_run(cat, 0, NULL, NULL, &r) && r.out.len == 0 &&
	    WEXITSTATUS(r.status) == 0, "cat sees EOF at once");
	res_free(&r);
}

/* Start a child with data for its stdin, its callbacks filling r. */
static struct proc *
spawn_data(struct loop *loop, const char **argv, const char *data,
    size_t len, struct result *r)
{
	struct proc_spec	 spec;
	char			*cause = NULL;

	memset(r, 0, sizeof *r);
	buf_init(&r->out);
	buf_init(&r->err);
	r->loop = loop;
	memset(&spec, 0, sizeof spec);
	spec.argv = (char *const *)argv;
	spec.stdin_data = data;
	spec.stdin_len = len;
	r->proc = proc_spawn(loop, &spec, res_output, res_exit, r, &cause);
	if (r->proc == NULL) {
		printf("# proc_spawn: %s\n", cause);
		free(cause);
	}
	return (r->proc);
}

/*
 * Data for a child's stdin arrives whole, then EOF; a child that never
 * reads it never holds up the loop, and one that exits without reading
 * costs no SIGPIPE even where SIGPIPE is not ignored.
 */
static void
test_proc_stdin_data(void)
{
	const char	*cat[] = { "cat", NULL };
	const char	*wc[] = { "wc", "-c", NULL };
	const char	*quit[] = { "sh", "-c", "exit 3", NULL };
	const char	*deaf[] = { "sleep", "0.5", NULL };
	struct loop	*loop = loop_create();
	struct loop_timer *t;
	struct result	 r;
	size_t		 big = 1024 * 1024;
	char		*data;
	int		 fired = 0;

	spawn_data(loop, cat, "hello\n", 6, &r);
	tap_ok(run_until(loop, &r.exits, WAIT_MS), "cat with stdin data ended");
	tap_is(text(&r.out), "hello\n", "cat read the data, then EOF");
	res_free(&r);
	spawn_data(loop, cat, "", 0, &r);
	tap_ok(run_until(loop, &r.exits, WAIT_MS) && r.out.len == 0,
	    "empty stdin data: EOF at once");
	res_free(&r);

	data = xmalloc(big);
	memset(data, 'x', big);
	spawn_data(loop, wc, data, big, &r);
	tap_ok(run_until(loop, &r.exits, WAIT_MS), "wc of 1 MiB ended");
	tap_is(text(&r.out), "1048576\n", "all of 1 MiB came through");
	res_free(&r);

	signal(SIGPIPE, SIG_DFL);
	spawn_data(loop, quit, data, big, &r);
	tap_ok(run_until(loop, &r.exits, WAIT_MS) && WIFEXITED(r.status) &&
	    WEXITSTATUS(r.status) == 3, "a child that never reads exits; "
	    "we survive SIGPIPE's default");
	res_free(&r);
	signal(SIGPIPE, SIG_IGN);

	t = loop_timer_create(loop, set_flag, &fired);
	loop_timer_start(t, 50);
	spawn_data(loop, deaf, data, big, &r);
	run_until(loop, &fired, WAIT_MS);
	tap_ok(fired && r.exits == 0, "timers fire while a child leaves its "
	    "stdin unread");
	tap_ok(run_until(loop, &r.exits, WAIT_MS), "and it ends on its own");
	res_free(&r);
	loop_timer_free(t);
	free(data);
	loop_free(loop);
}

/*
 * PROC_F_TALK: stdin stays open between writes, so a child can answer
 * each before the next is sent (an MCP server), and ends only on close.
 */
static void
test_proc_talk(void)
{
	const char	*cat[] = { "cat", NULL };
	const char	*wc[] = { "wc", "-c", NULL };
	struct loop	*loop = loop_create();
	struct proc	*p;
	struct result	 r;
	size_t		 big = 1024 * 1024;
	char		*data;
	int		 tick, i;

	p = spawn(loop, cat, PROC_F_TALK, NULL, NULL, &r);
	tap_ok(p != NULL && proc_write(p, "one\n", 4) == 0, "talk: a write");
	for (i = 0; i < WAIT_MS / 10 && r.out.len < 4 && r.exits == 0; i++) {
		tick = 0;
		run_until(loop, &tick, 10);
	}
	tap_ok(r.exits == 0 && strcmp(text(&r.out), "one\n") == 0,
	    "talk: answered, stdin still open");
	proc_write(p, "two\n", 4);
	for (i = 0; i < WAIT_MS / 10 && r.out.len < 8 && r.exits == 0; i++) {
		tick = 0;
		run_until(loop, &tick, 10);
	}
	tap_is(text(&r.out), "one\ntwo\n", "talk: a second exchange");
	proc_write(p, "three\n", 6);
	proc_write_close(p);
	tap_ok(proc_write(p, "x", 1) == -1, "talk: nothing is taken after "
	    "close");
	tap_ok(run_until(loop, &r.exits, WAIT_MS) &&
	    strcmp(text(&r.out), "one\ntwo\nthree\n") == 0,
	    "talk: what was queued before close is written, then EOF");
	res_free(&r);

	data = xmalloc(big);
	memset(data, 'x', big);
	p = spawn(loop, wc, PROC_F_TALK, NULL, NULL, &r);
	proc_write(p, data, big / 2);
	proc_write(p, data, big / 2);
	proc_write_close(p);
	tap_ok(run_until(loop, &r.exits, WAIT_MS), "talk: wc of 1 MiB ended");
	tap_is(text(&r.out), "1048576\n", "talk: all of it came through");
	res_free(&r);
	free(data);
	loop_free(loop);
}

/*
 * No descriptor of ours reaches the child: not one deliberately left
 * without close-on-exec, not another child's pipes.
 */
static void
test_proc_fds(void)
{
	const char	*fds[] = { "sh", "-c",
			    "for i in $(seq 3 40); do [ -e /proc/self/fd/$i ] "
			    "&& echo $i; done; exit 0", NULL };
	const char	*slp[] = { "sleep", "100", NULL };
	struct loop	*loop = loop_create();
	struct result	 r, other;
	int		 leak, lock, cause_ok;
	char		*db, *cause = NULL;

	if ((leak = open("/dev/null", O_RDONLY)) == -1 || dup2(leak, 17) == -1)
		fatal("open");
	db = test_path("fds.db");
	cause_ok = lock_take(db, &lock, &cause) == LOCK_TAKEN;
	spawn(loop, slp, 0, NULL, NULL, &other);
	spawn(loop, fds, 0, NULL, NULL, &r);
	run_until(loop, &r.exits, WAIT_MS);
	tap_ok(cause_ok && r.exits == 1, "fd lister finished");
	tap_is(text(&r.out), "", "child has no descriptors above 2");
	res_free(&r);

	proc_kill(other.proc, 1000);
	run_until(loop, &other.exits, WAIT_MS);
	res_free(&other);
	lock_release(lock);
	free(db);
	close(leak);
	close(17);
	loop_free(loop);
}

/* Read a process's pgrp (field 5 of /proc/PID/stat) from its text. */
static long
stat_pgrp(const char *text)
{
	const char	*cp;
	long		 ppid, pgrp;
	char		 state;

	if ((cp = strrchr(text, ')')) == NULL ||
	    sscanf(cp + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3)
		return (-1);
	return (pgrp);
}

/* Each child leads its own process group, unless asked not to. */
static void
test_proc_group(void)
{
	const char	*st[] = { "sh", "-c", "cat /proc/$$/stat", NULL };
	struct loop	*loop = loop_create();
	struct result	 r;
	pid_t		 pid;

	spawn(loop, st, 0, NULL, NULL, &r);
	pid = proc_pid(r.proc);
	tap_ok(proc_pgid(r.proc) == pid, "proc_pgid is the pid");
	run_until(loop, &r.exits, WAIT_MS);
	tap_is_int(stat_pgrp(text(&r.out)), pid, "child is its group's leader");
	res_free(&r);

	spawn(loop, st, PROC_F_NOPGRP, NULL, NULL, &r);
	tap_ok(proc_pgid(r.proc) == getpgrp(), "NOPGRP: proc_pgid is ours");
	run_until(loop, &r.exits, WAIT_MS);
	tap_is_int(stat_pgrp(text(&r.out)), getpgrp(),
	    "NOPGRP: child stays in our group");
	res_free(&r);
	loop_free(loop);
}

/* Whether a process has died: gone from /proc, or a zombie. */
static int
gone(pid_t pid)
{
	char	 path[64], buf[512], *cp;
	FILE	*f;
	size_t	 n;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return (1);
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	cp = strrchr(buf, ')');
	return (cp != NULL && cp[1] == ' ' && cp[2] == 'Z');
}

/* Output callback: collect, and say "ready" once a line has come. */
static void
ready_output(struct proc *p, int stream, const char *data, size_t len,
    void *arg)
{
	struct result	*r = arg;

	res_output(p, stream, data, len, arg);
	if (r->out.len != 0 && memchr(r->out.data, '\n', r->out.len) != NULL)
		r->expect = 1;
}

/* Start a child and wait until it has printed a line. */
static struct proc *
spawn_ready(struct loop *loop, const char **argv, struct result *r)
{
	struct proc_spec	 spec;
	char			*cause = NULL;

	memset(r, 0, sizeof *r);
	buf_init(&r->out);
	buf_init(&r->err);
	memset(&spec, 0, sizeof spec);
	spec.argv = (char *const *)argv;
	r->proc = proc_spawn(loop, &spec, ready_output, res_exit, r, &cause);
	if (r->proc == NULL) {
		printf("# proc_spawn: %s\n", cause);
		free(cause);
		return (NULL);
	}
	run_until(loop, &r->expect, WAIT_MS);
	return (r->proc);
}

/* proc_kill: SIGTERM first. */
static void
test_proc_kill(void)
{
	const char	*slp[] = { "sh", "-c", "echo ready; exec sleep 100",
			    NULL };
	struct loop	*loop = loop_create();
	struct result	 r;
	int64_t		 start;

	if (spawn_ready(loop, slp, &r) == NULL || !r.expect) {
		tap_ok(0, "sleep ready");
		loop_free(loop);
		return;
	}
	tap_is_int(proc_running(loop), 1, "sleep running");
	start = now_us();
	proc_kill(r.proc, 5000);
	proc_kill(r.proc, 10000);
	run_until(loop, &r.exits, WAIT_MS);
	if (!tap_ok(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGTERM,
	    "sleep killed by SIGTERM"))
		printf("# status %#x\n", r.status);
	tap_ok(r.done_us - start < 5000000, "well before the grace ran out");
	tap_is_int(proc_running(loop), 0, "nothing running after the kill");
	res_free(&r);
	loop_free(loop);
}

/* A child ignoring SIGTERM gets SIGKILL after the grace, not before. */
static void
test_proc_kill_trap(void)
{
	const char	*trap[] = { "sh", "-c",
			    "trap '' TERM; echo ready; sleep 100", NULL };
	struct loop	*loop = loop_create();
	struct result	 r;
	int64_t		 start;

	if (spawn_ready(loop, trap, &r) == NULL || !r.expect) {
		tap_ok(0, "trapping child ready");
		loop_free(loop);
		return;
	}
	start = now_us();
	proc_kill(r.proc, 200);
	proc_kill(r.proc, 60000);	/* must not push the SIGKILL back */
	run_until(loop, &r.exits, WAIT_MS);
	tap_ok(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL,
	    "TERM-trapping child killed by SIGKILL");
	tap_ok(r.done_us - start >= 200000 && r.done_us - start < 5000000,
	    "after the 200 ms grace (%lld ms), not the later one",
	    (long long)(r.done_us - start) / 1000);
	res_free(&r);

	/* A second call may bring the SIGKILL forward. */
	if (spawn_ready(loop, trap, &r) == NULL || !r.expect) {
		tap_ok(0, "trapping child ready");
		loop_free(loop);
		return;
	}
	start = now_us();
	proc_kill(r.proc, 60000);
	proc_kill(r.proc, 0);
	run_until(loop, &r.exits, WAIT_MS);
	tap_ok(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL &&
	    r.done_us - start < 5000000,
	    "shorter grace brings SIGKILL forward");
	res_free(&r);
	loop_free(loop);
}

/* Killing the group reaches grandchildren too. */
static void
test_proc_kill_group(void)
{
	const char	*tree[] = { "sh", "-c",
			    "sleep 100 & echo $!; wait", NULL };
	struct loop	*loop = loop_create();
	struct result	 r;
	pid_t		 grand;
	int		 zero = 0, i;

	if (spawn_ready(loop, tree, &r) == NULL || !r.expect) {
		tap_ok(0, "child with grandchild ready");
		loop_free(loop);
		return;
	}
	grand = (pid_t)strtol(text(&r.out), NULL, 10);
	tap_ok(grand > 0 && kill(grand, 0) == 0, "grandchild alive");
	tap_ok(procstat_group_alive(proc_pgid(r.proc)), "group alive");
	proc_kill(r.proc, 5000);
	run_until(loop, &r.exits, WAIT_MS);
	tap_ok(r.exits == 1 && WIFSIGNALED(r.status) &&
	    WTERMSIG(r.status) == SIGTERM, "child killed by SIGTERM");
	/* The grandchild is reaped by init (or not): dead either way. */
	for (i = 0; i < WAIT_MS / 10 && !gone(grand); i++)
		run_until(loop, &zero, 10);
	tap_ok(gone(grand), "grandchild killed with the group");
	res_free(&r);
	loop_free(loop);
}

/* Exec failures: 127 and a message on stderr. */
static void
test_proc_exec(void)
{
	const char	*abs[] = { "/nonexistent/prog", NULL };
	const char	*rel[] = { "sluice-no-such-command", "x", NULL };
	const char	*mine[] = { "mytool", "a", "b", NULL };
	const char	*bare[] = { "bare", "arg", NULL };
	const char	*noexec[] = { "noexec", NULL };
	const char	*env[] = { NULL, NULL };
	struct result	 r;
	char		*dir, *path;
	FILE		*f;

	tap_ok(spawn_run(abs, 0, NULL, NULL, &r), "missing program finished");
	tap_ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127,
	    "missing program: exit 127");
	tap_is(text(&r.err), "sluice: cannot run /nonexistent/prog: "
	    "No such file or directory\n", "missing program: message");
	res_free(&r);

	tap_ok(spawn_run(rel, 0, NULL, NULL, &r) &&
	    WEXITSTATUS(r.status) == 127, "unknown command: exit 127");
	tap_is(text(&r.err), "sluice: cannot run sluice-no-such-command: "
	    "No such file or directory\n", "unknown command: message");
	res_free(&r);

	/* The child's own PATH is searched, not ours. */
	dir = test_path("bin");
	mkdir(dir, 0700);
	xasprintf(&path, "%s/mytool", dir);
	if ((f = fopen(path, "w")) == NULL)
		fatal("fopen");
	fprintf(f, "#!/bin/sh\necho mine \"$@\"\n");
	fclose(f);
	chmod(path, 0755);
	free(path);
	xasprintf(&path, "%s/bare", dir);
	if ((f = fopen(path, "w")) == NULL)
		fatal("fopen");
	fprintf(f, "echo bare \"$@\"\n");
	fclose(f);
	chmod(path, 0755);
	free(path);
	xasprintf(&path, "%s/noexec", dir);
	if ((f = fopen(path, "w")) == NULL)
		fatal("fopen");
	fclose(f);
	free(path);
	xasprintf(&path, "PATH=/nonexistent::%s:/usr/bin:/bin", dir);
	env[0] = path;

	tap_ok(spawn_run(mine, 0, NULL, env, &r), "tool found");
	tap_is(text(&r.out), "mine a b\n", "found through the child's PATH");
	res_free(&r);
	tap_ok(spawn_run(bare, 0, NULL, env, &r), "script without #!");
	tap_is(text(&r.out), "bare arg\n", "script without #! run by sh");
	res_free(&r);
	tap_ok(spawn_run(noexec, 0, NULL, env, &r) &&
	    WEXITSTATUS(r.status) == 127, "not executable: exit 127");
	tap_is(text(&r.err), "sluice: cannot run noexec: Permission denied\n",
	    "not executable: EACCES");
	res_free(&r);
	free(path);
	free(dir);
}

/* The working directory and the environment are the spec's. */
static void
test_proc_cwd_env(void)
{
	const char	*pwd[] = { "pwd", NULL };
	const char	*foo[] = { "sh", "-c", "echo $FOO-$HOME", NULL };
	const char	*env[] = { "FOO=bar", "PATH=/usr/bin:/bin", NULL };
	struct result	 r;
	char		 real[PATH_MAX], *want;

	if (realpath(tmpdir, real) == NULL)
		fatal("realpath");
	xasprintf(&want, "%s\n", real);
	tap_ok(spawn_run(pwd, 0, real, NULL, &r), "pwd finished");
	tap_is(text(&r.out), want, "cwd honoured");
	res_free(&r);
	free(want);

	tap_ok(spawn_run(pwd, 0, "/nonexistent", NULL, &r) &&
	    WEXITSTATUS(r.status) == 127, "bad cwd: exit 127");
	tap_is(text(&r.err), "sluice: cannot change directory to /nonexistent: "
	    "No such file or directory\n", "bad cwd: message");
	res_free(&r);

	tap_ok(spawn_run(foo, 0, NULL, env, &r), "env finished");
	tap_is(text(&r.out), "bar-\n", "environment is exactly envp");
	res_free(&r);
}

/* Abandoning from the output callback: nothing more, nothing leaked. */
static void
test_proc_abandon(void)
{
	const char	*two[] = { "sh", "-c",
			    "echo a; sleep 0.1; echo b; exit 0", NULL };
	const char	*held[] = { "sh", "-c", "sleep 0.2 & exit 0", NULL };
	struct loop	*loop = loop_create();
	struct result	 r;
	pid_t		 pid;
	int64_t		 start;
	int		 zero = 0;

	spawn(loop, two, 0, NULL, NULL, &r);
	r.abandon = 1;
	pid = proc_pid(r.proc);
	tap_ok(wait_gone(loop, pid), "child abandoned from its output callback "
	    "ended");
	tap_ok(r.outputs == 1 && r.exits == 0,
	    "one output, no exit callback after abandon");
	res_free(&r);

	/* Abandon once reaped while a grandchild still holds the pipes. */
	spawn(loop, held, 0, NULL, NULL, &r);
	start = now_us();
	while (proc_running(loop) != 0 && now_us() - start < WAIT_MS * 1000LL)
		loop_once(loop, 1);
	tap_ok(proc_running(loop) == 0 && r.exits == 0,
	    "reaped, pipes held open: no exit callback yet");
	proc_abandon(r.proc);
	run_until(loop, &zero, 300);
	tap_ok(r.exits == 0 && r.outputs == 0,
	    "abandoned reaped child: no callbacks");
	res_free(&r);
	loop_free(loop);
}

/* PROC_F_INHERIT: no pipes, done when reaped. */
static void
test_proc_inherit(void)
{
	const char	*ex[] = { "sh", "-c", "exit 5", NULL };
	struct result	 r;

	tap_ok(spawn_run(ex, PROC_F_INHERIT|PROC_F_NOPGRP, NULL, NULL, &r),
	    "inheriting child finished");
	tap_ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 5 &&
	    r.outputs == 0, "inheriting child: status, no output");
	res_free(&r);
}

/* 200 children at once, all reaped with their own statuses. */
static void
test_proc_many(void)
{
	static struct result	 r[200];
	struct loop		*loop = loop_create();
	const char		*argv[200][4];
	char			 cmd[200][32];
	int			 i, ndone = 0, bad = 0, started = 0;
	int64_t			 start;

	for (i = 0; i < 200; i++) {
		snprintf(cmd[i], sizeof cmd[i], "echo %d; exit %d", i, i % 97);
		argv[i][0] = "sh";
		argv[i][1] = "-c";
		argv[i][2] = cmd[i];
		argv[i][3] = NULL;
		if (spawn(loop, argv[i], 0, NULL, NULL, &r[i]) != NULL)
			started++;
		r[i].ndone = &ndone;
	}
	tap_is_int(started, 200, "200 children started");
	start = now_us();
	while (ndone < started && now_us() - start < 3 * WAIT_MS * 1000LL)
		loop_once(loop, 1);
	tap_is_int(ndone, 200, "200 exit callbacks");
	for (i = 0; i < 200; i++) {
		if (r[i].exits != 1 || !WIFEXITED(r[i].status) ||
		    WEXITSTATUS(r[i].status) != i % 97 ||
		    atoi(text(&r[i].out)) != i)
			bad++;
		res_free(&r[i]);
	}
	tap_is_int(bad, 0, "each with its own status and output");
	tap_is_int(proc_running(loop), 0, "none left running");
	loop_free(loop);
}

/* Exit callback that starts the next child, as the engine does. */
static void
chain_exit(struct proc *p, int status, void *arg)
{
	const char		*tru[] = { "true", NULL };
	struct result		*r = arg;
	struct proc_spec	 spec;
	char			*cause = NULL;

	r->exits++;
	if (status != 0)
		r->expect++;
	if (r->chain-- <= 0)
		return;
	memset(&spec, 0, sizeof spec);
	spec.argv = (char *const *)tru;
	if (proc_spawn(r->loop, &spec, NULL, chain_exit, r, &cause) == NULL) {
		free(cause);
		r->chain = 0;
	}
}

/* A chain of children, each started from its predecessor's exit. */
static void
test_proc_chain(void)
{
	struct loop	*loop = loop_create();
	struct result	 r;
	int64_t		 start;

	memset(&r, 0, sizeof r);
	r.loop = loop;
	r.chain = 100;
	start = now_us();
	chain_exit(NULL, 0, &r);
	r.exits = 0;
	while (r.exits < 100 && now_us() - start < 3 * WAIT_MS * 1000LL)
		loop_once(loop, 1);
	tap_ok(r.exits == 100 && r.expect == 0,
	    "100 children in a chain, all exit 0");
	printf("# chain: %lld us per child, spawn to spawn\n",
	    (long long)(now_us() - start) / 100);
	loop_free(loop);
}

/* Freeing a loop with a child still running forgets it safely. */
static void
test_proc_loop_free(void)
{
	const char	*slp[] = { "sleep", "100", NULL };
	struct loop	*loop = loop_create();
	struct result	 r;
	pid_t		 pid;
	int		 status;

	spawn(loop, slp, 0, NULL, NULL, &r);
	pid = proc_pid(r.proc);
	loop_free(loop);
	kill(pid, SIGKILL);
	tap_ok(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status),
	    "child of a freed loop still ours to reap");
	tap_is_int(r.exits, 0, "no callback after loop_free");
	res_free(&r);
}

/* Start times from /proc: plausible, stable, and tied to one process. */
static void
test_procstat(void)
{
	const char	*slp[] = { "sleep", "100", NULL };
	struct loop	*loop = loop_create();
	struct result	 r;
	int64_t		 self, now, child;
	pid_t		 pid, pgid;

	self = procstat_start_time(getpid());
	now = time_now_ms();
	tap_ok(self > now - 3600 * 1000 && self <= now + 2000,
	    "own start time is plausible (%lld ms ago)",
	    (long long)(now - self));
	tap_ok(procstat_start_time(getpid()) == self, "and stable");
	tap_ok(procstat_same(getpid(), self), "procstat_same for ourselves");
	tap_ok(!procstat_same(getpid(), self + 1), "not with start + 1");
	tap_ok(!procstat_same(getpid(), 0), "not with start 0");
	tap_ok(procstat_start_time(0) == 0 && procstat_start_time(-1) == 0,
	    "no start time for pid 0 or -1");
	tap_ok(procstat_group_alive(getpgrp()), "our group is alive");
	tap_ok(!procstat_group_alive(0), "group 0 is not asked about");

	spawn(loop, slp, 0, NULL, NULL, &r);
	pid = proc_pid(r.proc);
	pgid = proc_pgid(r.proc);
	child = proc_start_time(r.proc);
	tap_ok(child >= self && child <= time_now_ms() + 2000,
	    "child's start time recorded at spawn");
	tap_ok(procstat_same(pid, child), "procstat_same for a live child");
	tap_ok(procstat_group_alive(pgid), "child's group alive");
	proc_kill(r.proc, 1000);
	run_until(loop, &r.exits, WAIT_MS);
	tap_ok(!procstat_same(pid, child), "not once reaped");
	tap_ok(!procstat_group_alive(pgid), "child's group gone once reaped");
	res_free(&r);
	loop_free(loop);
}

/* Run lock_take or lock_probe in another process; its result. */
static int
lock_other(const char *db, int probe)
{
	pid_t	pid;
	int	fd, rc, status;
	char	*cause = NULL;

	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0) {
		if (probe)
			_exit(lock_probe(db));
		rc = lock_take(db, &fd, &cause);
		_exit(rc == LOCK_TAKEN ? 10 : rc == LOCK_HELD ? 11 : 12);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return (-1);
	return (WEXITSTATUS(status));
}

/* The engine lock: one holder, seen by probes, dropped on release. */
static void
test_lock(void)
{
	struct stat	 sb;
	char		*db, *path, *cause = NULL;
	int		 fd, fd2, rc;

	db = test_path("lock.db");
	xasprintf(&path, "%s.lock", db);
	tap_is_int(lock_probe(db), 0, "probe without a lock file: not held");
	rc = lock_take(db, &fd, &cause);
	tap_ok(rc == LOCK_TAKEN && fd >= 0, "lock taken");
	tap_ok(stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0600,
	    "lock file DB.lock, mode 0600");
	tap_ok(fcntl(fd, F_GETFD) & FD_CLOEXEC, "lock fd is close-on-exec");
	tap_is_int(lock_probe(db), 1, "probe sees it held");
	tap_is_int(lock_other(db, 1), 1, "probe from another process too");
	tap_is_int(lock_other(db, 0), 11, "another process gets LOCK_HELD");
	rc = lock_take(db, &fd2, &cause);
	tap_ok(rc == LOCK_HELD && fd2 == -1,
	    "a second lock_take in this process: LOCK_HELD");
	lock_release(fd);
	tap_is_int(lock_probe(db), 0, "probe after release: not held");
	tap_is_int(lock_other(db, 0), 10, "another process takes it now");
	rc = lock_take(db, &fd, &cause);
	tap_is_int(rc, LOCK_TAKEN, "taken again");
	lock_release(fd);
	lock_release(-1);
	free(path);
	free(db);

	rc = lock_take("/nonexistent/dir/x.db", &fd, &cause);
	tap_ok(rc == -1 && cause != NULL && fd == -1,
	    "lock in a missing directory: error");
	if (cause != NULL)
		printf("# %s\n", cause);
	free(cause);
}

/* In a setgid directory the lock file is 0660 and the group's. */
static void
test_lock_setgid(void)
{
	struct stat	 dsb, sb;
	char		*dir, *db, *path, *cause = NULL;
	int		 fd;

	dir = test_path("shared");
	if (mkdir(dir, 0770) != 0 || chmod(dir, 02770) != 0 ||
	    stat(dir, &dsb) != 0 || !(dsb.st_mode & S_ISGID)) {
		tap_ok(1, "# SKIP cannot make a setgid directory");
		free(dir);
		return;
	}
	xasprintf(&db, "%s/s.db", dir);
	xasprintf(&path, "%s.lock", db);
	tap_is_int(lock_take(db, &fd, &cause), LOCK_TAKEN,
	    "lock in a setgid directory");
	tap_ok(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0660 &&
	    sb.st_gid == dsb.st_gid, "lock file 0660 with the directory's "
	    "group");
	lock_release(fd);
	free(path);
	free(db);
	free(dir);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(120);	/* a hung case fails the run rather than blocking it */
	signal(SIGPIPE, SIG_IGN);
	if (mkdtemp(tmpdir) == NULL)
		fatal("mkdtemp");

	test_timer_order();
	test_timer_rearm();
	test_timer_stop();
	test_timer_heap();
	test_defer();
	test_hooks();
	test_break();
	test_fd();
	test_fd_delete();
	test_signal();
	test_signal_wake();
	test_signal_reset();

	test_proc_output();
	test_proc_eof();
	test_proc_stdin();
	test_proc_stdin_data();
	test_proc_talk();
	test_proc_fds();
	test_proc_group();
	test_proc_kill();
	test_proc_kill_trap();
	test_proc_kill_group();
	test_proc_exec();
	test_proc_fence();
	test_proc_escaped();
	test_proc_cwd_env();
	test_proc_abandon();
	test_proc_inherit();
	test_proc_many();
	test_proc_chain();
	test_proc_loop_free();

	test_procstat();
	test_lock();
	test_lock_setgid();

	nftw(tmpdir, test_rm, 16, FTW_DEPTH|FTW_PHYS);
	return (tap_done());
}
