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
 * commit-thread.c: a turn's commit made on a thread of its own, so that
 * its fsync does not stop the loop while step processes end.  Fanning
 * out short processes, a commit's fsync is longer than a process: made on
 * the loop, both job slots would idle through it.
 *
 * While the commit runs, the store is the thread's alone, and the loop
 * has a barrier (loop_barrier): only step processes' output and ends, and
 * SIGCHLD, are seen.  A process that ends frees its slot, which takes the
 * next start committed earlier (engine_spawn: the transaction under way
 * holds the write lock and its start checked the epoch, so the lease
 * needs no look at the database meanwhile); the ended step's own row
 * waits for the commit (engine_exec_exit).  Anything else (a client, a
 * timer, output that must be logged, another signal) first waits for the
 * commit (engine_commit_join), which then does what follows any commit
 * (engine_committed): the starts it recorded may begin and the clients it
 * answered hear it, never before.  So nothing is acknowledged and no
 * process starts before the commit that records it, as on the loop.
 */

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine-int.h"

struct engine_committer {
	pthread_t	 thread;
	pthread_mutex_t	 lock;
	pthread_cond_t	 cond;
	struct store	*store;
	int		 go;		/* a commit to make */
	int		 done;		/* made: rc and cause say how */
	int		 quit;
	int		 rc;
	char		*cause;
	int		 fds[2];	/* a byte when done wakes the loop */
	struct loop_fd	*w;
};

static void	*engine_committer_main(void *);
static void	 engine_committer_done(int, short, void *);
static void	 engine_committer_barrier(void *);
#ifdef SLUICE_TEST_CLOCK
static void	 engine_committer_hold(void);
#endif

/* Start the thread; -1 and why if it cannot be (commits stay on the loop). */
int
engine_committer_open(struct engine *e, char **cause)
{
	struct engine_committer	*c;
	sigset_t		 all, old;
	int			 rc;

	c = xcalloc(1, sizeof *c);
	c->store = e->store;
	if (pipe2(c->fds, O_NONBLOCK|O_CLOEXEC) != 0) {
		xasprintf(cause, "pipe: %s", strerror(errno));
		free(c);
		return (-1);
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	/* Signals are the loop's: the thread takes none. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&c->thread, NULL, engine_committer_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		xasprintf(cause, "pthread_create: %s", strerror(rc));
		close(c->fds[0]);
		close(c->fds[1]);
		pthread_mutex_destroy(&c->lock);
		pthread_cond_destroy(&c->cond);
		free(c);
		return (-1);
	}
	c->w = loop_fd_add(e->loop, c->fds[0], POLLIN, engine_committer_done,
	    e);
	loop_fd_pass(c->w);
	e->committer = c;
	return (0);
}

/* Wait for a commit under way, then end the thread. */
void
engine_committer_close(struct engine *e)
{
	struct engine_committer	*c = e->committer;

	if (c == NULL)
		return;
	engine_commit_join(e);
	pthread_mutex_lock(&c->lock);
	c->quit = 1;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	loop_fd_del(c->w);
	close(c->fds[0]);
	close(c->fds[1]);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	free(c);
	e->committer = NULL;
}

/* The thread: make each commit it is given, and say so. */
static void *
engine_committer_main(void *arg)
{
	struct engine_committer	*c = arg;
	char			*cause;
	int			 rc;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->go && !c->quit)
			pthread_cond_wait(&c->cond, &c->lock);
		if (!c->go)
			break;
		c->go = 0;
		pthread_mutex_unlock(&c->lock);
#ifdef SLUICE_TEST_CLOCK
		engine_committer_hold();
#endif
		cause = NULL;
		rc = store_commit(c->store, &cause);
		pthread_mutex_lock(&c->lock);
		c->rc = rc;
		c->cause = cause;
		c->done = 1;
		pthread_cond_broadcast(&c->cond);
		if (write(c->fds[1], "c", 1) == -1) {
			/* Full: the loop is already woken. */
		}
	}
	pthread_mutex_unlock(&c->lock);
	return (NULL);
}

/*
 * Hand the turn's transaction (its logs flushed, in_txn cleared) to the
 * thread to commit, and hold the loop back behind a barrier until it has.
 */
void
engine_committer_start(struct engine *e)
{
	struct engine_committer	*c = e->committer;

	e->committing = 1;
	loop_barrier(e->loop, engine_committer_barrier, e);
	pthread_mutex_lock(&c->lock);
	c->go = 1;
	c->done = 0;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

/*
 * Wait for the commit under way, if any, lift the barrier and do what
 * follows a commit; the steps that ended meanwhile are written next turn.
 */
void
engine_commit_join(struct engine *e)
{
	struct engine_committer	*c = e->committer;
	char			 buf[16];
	char			*cause;
	int			 rc;

	if (!e->committing)
		return;
	pthread_mutex_lock(&c->lock);
	while (!c->done)
		pthread_cond_wait(&c->cond, &c->lock);
	c->done = 0;
	rc = c->rc;
	cause = c->cause;
	c->cause = NULL;
	pthread_mutex_unlock(&c->lock);
	while (read(c->fds[0], buf, sizeof buf) > 0)
		;
	e->committing = 0;
	loop_barrier(e->loop, NULL, NULL);
	if (rc != 0)
		engine_store_fatal(e, cause);
	free(cause);
	engine_committed(e);
	if (!TAILQ_EMPTY(&e->ended))
		loop_defer(e->loop, engine_exec_ended_run, e);
}

/* The thread says its commit is made. */
static void
engine_committer_done(int fd, short revents, void *arg)
{
	(void)fd;
	(void)revents;
	engine_commit_join(arg);
}

/* The loop would dispatch what the barrier holds back: wait first. */
static void
engine_committer_barrier(void *arg)
{
	engine_commit_join(arg);
}

#ifdef SLUICE_TEST_CLOCK
/*
 * Test builds only: with $SLUICE_TEST_COMMIT_HOLD naming a file, the
 * first commit made on the thread makes FILE.held, then waits until FILE
 * exists, so a test can watch what the loop does meanwhile.
 */
static void
engine_committer_hold(void)
{
	static int	 held;
	const char	*path = getenv("SLUICE_TEST_COMMIT_HOLD");
	char		*mark;
	int		 fd;

	if (held || path == NULL || *path == '\0')
		return;
	held = 1;
	xasprintf(&mark, "%s.held", path);
	if ((fd = open(mark, O_WRONLY|O_CREAT|O_CLOEXEC, 0600)) != -1)
		close(fd);
	free(mark);
	while (access(path, F_OK) != 0)
		(void)poll(NULL, 0, 10);
}
#endif
