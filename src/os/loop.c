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
 * loop.c: the one event loop, in the manner of redis's ae.c.  The poll set
 * is kept between turns and changed in place; timers sit in a min-heap on
 * the monotonic clock; deferred calls wait in a FIFO ring; before-sleep
 * hooks run in registration order.  A turn runs the deferred calls, then
 * the hooks, then polls (not at all if work is still queued), then
 * dispatches the ready descriptors and the timers that are due.  Callbacks
 * may add, change and remove watchers and timers at any time, their own
 * included: removed watchers are only marked, and swept before the next
 * poll, so nothing is dispatched after it was deleted.
 *
 * A barrier (loop_barrier) holds back all but the watchers and signals
 * marked to pass it: before any other watcher, signal, timer or deferred
 * call is dispatched, the barrier's callback runs and lifts it.  The
 * engine sets one while a commit runs on its own thread, so that only
 * its children's ends are seen meanwhile (hooks are not held back).
 */

#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/util.h"
#include "os/os.h"
#include "os/os-int.h"

/* Reported whatever a watcher asked for. */
#define LOOP_ALWAYS	(POLLHUP|POLLERR|POLLNVAL)

/* A timer that is not in the heap. */
#define LOOP_NOHEAP	((size_t)-1)

/* A watched descriptor; its pollfd sits at the same index in the loop. */
struct loop_fd {
	struct loop	*loop;
	int		 fd;
	short		 events;
	int		 dead;		/* swept before the next poll */
	int		 pass;		/* dispatched past a barrier */
	u_int		 idx;
	loop_fd_cb	 cb;
	void		*arg;
};

/* A one-shot timer; pending while it is in the heap. */
struct loop_timer {
	struct loop	*loop;
	int64_t		 when;		/* monotonic microseconds */
	uint64_t	 seq;		/* order of starting, breaks ties */
	size_t		 idx;		/* heap index or LOOP_NOHEAP */
	loop_cb		 cb;
	void		*arg;
};

/* A deferred call or a before-sleep hook. */
struct loop_call {
	loop_cb		 cb;
	void		*arg;
};

struct loop {
	struct loop_fd	**fds;		/* parallel to pfds */
	struct pollfd	 *pfds;
	u_int		  nfds;
	u_int		  fdalloc;
	u_int		  ndead;

	struct loop_timer **heap;
	size_t		  nheap;
	size_t		  heapalloc;
	uint64_t	  seq;

	struct loop_call *calls;	/* a ring */
	size_t		  callhead;
	size_t		  ncalls;
	size_t		  callalloc;

	struct loop_call *hooks;
	size_t		  nhooks;
	size_t		  hookalloc;
	int		  inhooks;
	int		  hookdead;

	int		  stopped;
	int		  inturn;	/* loop_once on the stack */
	loop_cb		  barrier;	/* lifts the barrier, NULL: none */
	void		 *barrier_arg;
	struct signal_set *signals;
	struct proc_set	 *procs;
};

static int64_t	loop_now_us(void);
static int	loop_timeout(struct loop *);
static void	loop_fd_sweep(struct loop *);
static void	loop_fd_dispatch(struct loop *, u_int);
static int	loop_timer_before(const struct loop_timer *,
		    const struct loop_timer *);
static void	loop_heap_set(struct loop *, size_t, struct loop_timer *);
static void	loop_heap_up(struct loop *, size_t);
static void	loop_heap_down(struct loop *, size_t);
static void	loop_heap_remove(struct loop_timer *);
static void	loop_timer_dispatch(struct loop *);
static void	loop_calls_grow(struct loop *);
static void	loop_calls_drain(struct loop *);
static void	loop_hooks_run(struct loop *);
static void	loop_hooks_sweep(struct loop *);

/* The monotonic clock in microseconds, so a timer never fires early. */
static int64_t
loop_now_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

/* Make an empty loop. */
struct loop *
loop_create(void)
{
	return (xcalloc(1, sizeof (struct loop)));
}

/*
 * Free the loop with its watchers and its children's bookkeeping.  Timers
 * belong to whoever created them: pending ones are only unhooked, so
 * freeing them afterwards is still safe.
 */
void
loop_free(struct loop *loop)
{
	u_int	i;
	size_t	j;

	if (loop == NULL)
		return;
	proc_set_free(loop->procs);
	loop->procs = NULL;
	signal_set_free(loop->signals);
	loop->signals = NULL;
	for (i = 0; i < loop->nfds; i++)
		free(loop->fds[i]);
	for (j = 0; j < loop->nheap; j++) {
		loop->heap[j]->idx = LOOP_NOHEAP;
		loop->heap[j]->loop = NULL;
	}
	free(loop->fds);
	free(loop->pfds);
	free(loop->heap);
	free(loop->calls);
	free(loop->hooks);
	free(loop);
}

/* Run turns until loop_break; -1 if poll() fails. */
int
loop_run(struct loop *loop)
{
	while (!loop->stopped) {
		if (loop_once(loop, 1) != 0)
			return (-1);
	}
	return (0);
}

/*
 * One turn: deferred calls, hooks, poll (waiting only if block is set and
 * nothing is queued), then ready descriptors and due timers.  A signal
 * that interrupts poll() is picked up in the same turn by polling again
 * without waiting, since its byte is then in the self-pipe.
 */
int
loop_once(struct loop *loop, int block)
{
	u_int	npolled;
	int	timeout, n;

	if (loop->inturn)
		fatalx("%s: called from inside a turn", __func__);
	loop->inturn = 1;
	loop_calls_drain(loop);
	loop_hooks_run(loop);
	if (loop->ndead != 0)
		loop_fd_sweep(loop);

	timeout = 0;
	if (block && !loop->stopped)
		timeout = loop_timeout(loop);
	npolled = loop->nfds;
	n = poll(loop->pfds, npolled, timeout);
	if (n == -1 && errno == EINTR)
		n = poll(loop->pfds, npolled, 0);
	if (n == -1 && errno != EINTR) {
		loop->inturn = 0;
		return (-1);
	}
	if (n > 0)
		loop_fd_dispatch(loop, npolled);
	loop_timer_dispatch(loop);
	loop->inturn = 0;
	return (0);
}

/* Make loop_run return after the current turn. */
void
loop_break(struct loop *loop)
{
	loop->stopped = 1;
}

/*
 * Let loop_once sleep again after loop_break: a caller that goes on
 * turning the loop by hand (waiting for steps to end) must not poll with
 * a zero timeout, which spins.
 */
void
loop_resume(struct loop *loop)
{
	loop->stopped = 0;
}

/* Whether loop_break has been called. */
int
loop_stopped(const struct loop *loop)
{
	return (loop->stopped);
}

/* How long poll() may sleep: until the first timer, 0 if work is queued. */
static int
loop_timeout(struct loop *loop)
{
	int64_t	wait;

	if (loop->ncalls != 0)
		return (0);
	if (loop->nheap == 0)
		return (-1);
	wait = loop->heap[0]->when - loop_now_us();
	if (wait <= 0)
		return (0);
	wait = (wait + 999) / 1000;
	if (wait > INT_MAX)
		return (INT_MAX);
	return ((int)wait);
}

/* Start watching fd; events 0 keeps it out of the poll set for now. */
struct loop_fd *
loop_fd_add(struct loop *loop, int fd, short events, loop_fd_cb cb,
    void *arg)
{
	struct loop_fd	*w;
	struct pollfd	*pfd;

	if (fd < 0)
		fatalx("%s: bad descriptor %d", __func__, fd);
	if (loop->nfds == loop->fdalloc) {
		loop->fdalloc = loop->fdalloc == 0 ? 16 : loop->fdalloc * 2;
		loop->fds = xreallocarray(loop->fds, loop->fdalloc,
		    sizeof *loop->fds);
		loop->pfds = xreallocarray(loop->pfds, loop->fdalloc,
		    sizeof *loop->pfds);
	}
	w = xcalloc(1, sizeof *w);
	w->loop = loop;
	w->fd = fd;
	w->cb = cb;
	w->arg = arg;
	w->idx = loop->nfds++;
	loop->fds[w->idx] = w;
	pfd = &loop->pfds[w->idx];
	pfd->revents = 0;
	loop_fd_events(w, events);
	return (w);
}

/* Change what a watcher waits for, in place. */
void
loop_fd_events(struct loop_fd *w, short events)
{
	struct pollfd	*pfd;

	if (w->dead)
		return;
	w->events = events;
	pfd = &w->loop->pfds[w->idx];
	pfd->events = events;
	pfd->fd = events != 0 ? w->fd : -1;
}

/* Stop watching: marked now, freed before the next poll. */
void
loop_fd_del(struct loop_fd *w)
{
	struct pollfd	*pfd;

	if (w == NULL || w->dead)
		return;
	w->dead = 1;
	pfd = &w->loop->pfds[w->idx];
	pfd->fd = -1;
	pfd->revents = 0;
	w->loop->ndead++;
}

/* Free deleted watchers and close the gaps they left. */
static void
loop_fd_sweep(struct loop *loop)
{
	struct loop_fd	*w;
	u_int		 i, j;

	for (i = j = 0; i < loop->nfds; i++) {
		w = loop->fds[i];
		if (w->dead) {
			free(w);
			continue;
		}
		if (i != j) {
			loop->fds[j] = w;
			loop->pfds[j] = loop->pfds[i];
			w->idx = j;
		}
		j++;
	}
	loop->nfds = j;
	loop->ndead = 0;
}

/*
 * Call back the watchers poll() found ready.  Indexes are stable during
 * dispatch (sweeping waits for the next turn); revents is narrowed to what
 * the watcher still wants, since an earlier callback may have changed it.
 */
static void
loop_fd_dispatch(struct loop *loop, u_int npolled)
{
	struct loop_fd	*w;
	u_int		 i;
	short		 revents;

	for (i = 0; i < npolled; i++) {
		revents = loop->pfds[i].revents;
		if (revents == 0)
			continue;
		loop->pfds[i].revents = 0;
		w = loop->fds[i];
		if (w->dead || w->events == 0)
			continue;
		revents &= (w->events | LOOP_ALWAYS);
		if (revents == 0)
			continue;
		if (!w->pass)
			loop_barrier_cross(loop);
		w->cb(w->fd, revents, w->arg);
	}
}

/* Make a timer, not yet pending. */
struct loop_timer *
loop_timer_create(struct loop *loop, loop_cb cb, void *arg)
{
	struct loop_timer	*t;

	t = xcalloc(1, sizeof *t);
	t->loop = loop;
	t->idx = LOOP_NOHEAP;
	t->cb = cb;
	t->arg = arg;
	return (t);
}

/* Fire after ms milliseconds (0 or less: next turn), re-arming if pending. */
void
loop_timer_start(struct loop_timer *t, int64_t ms)
{
	struct loop	*loop = t->loop;

	if (loop == NULL)
		return;
	if (t->idx != LOOP_NOHEAP)
		loop_heap_remove(t);
	if (ms < 0)
		ms = 0;
	if (ms > INT64_MAX / 2000)
		ms = INT64_MAX / 2000;
	t->when = loop_now_us() + ms * 1000;
	t->seq = loop->seq++;
	if (loop->nheap == loop->heapalloc) {
		loop->heapalloc = loop->heapalloc == 0 ? 16 :
		    loop->heapalloc * 2;
		loop->heap = xreallocarray(loop->heap, loop->heapalloc,
		    sizeof *loop->heap);
	}
	loop_heap_set(loop, loop->nheap++, t);
	loop_heap_up(loop, t->idx);
}

/* Cancel a pending timer; harmless if it is not pending. */
void
loop_timer_stop(struct loop_timer *t)
{
	if (t != NULL && t->idx != LOOP_NOHEAP)
		loop_heap_remove(t);
}

/* Whether the timer will fire. */
int
loop_timer_pending(const struct loop_timer *t)
{
	return (t->idx != LOOP_NOHEAP);
}

/* Stop and free a timer; safe from inside its own callback. */
void
loop_timer_free(struct loop_timer *t)
{
	if (t == NULL)
		return;
	loop_timer_stop(t);
	free(t);
}

/* Heap order: earlier deadline first, then the one started first. */
static int
loop_timer_before(const struct loop_timer *a, const struct loop_timer *b)
{
	if (a->when != b->when)
		return (a->when < b->when);
	return (a->seq < b->seq);
}

/* Put a timer at a heap slot, keeping its index in step. */
static void
loop_heap_set(struct loop *loop, size_t i, struct loop_timer *t)
{
	loop->heap[i] = t;
	t->idx = i;
}

/* Move the timer at i towards the root while it is due earlier. */
static void
loop_heap_up(struct loop *loop, size_t i)
{
	struct loop_timer	*t = loop->heap[i];
	size_t			 parent;

	while (i > 0) {
		parent = (i - 1) / 2;
		if (!loop_timer_before(t, loop->heap[parent]))
			break;
		loop_heap_set(loop, i, loop->heap[parent]);
		i = parent;
	}
	loop_heap_set(loop, i, t);
}

/* Move the timer at i towards the leaves while a child is due earlier. */
static void
loop_heap_down(struct loop *loop, size_t i)
{
	struct loop_timer	*t = loop->heap[i];
	size_t			 child;

	for (;;) {
		child = 2 * i + 1;
		if (child >= loop->nheap)
			break;
		if (child + 1 < loop->nheap &&
		    loop_timer_before(loop->heap[child + 1], loop->heap[child]))
			child++;
		if (!loop_timer_before(loop->heap[child], t))
			break;
		loop_heap_set(loop, i, loop->heap[child]);
		i = child;
	}
	loop_heap_set(loop, i, t);
}

/* Take a timer out of the heap in O(log n). */
static void
loop_heap_remove(struct loop_timer *t)
{
	struct loop		*loop = t->loop;
	struct loop_timer	*last;
	size_t			 i = t->idx;

	t->idx = LOOP_NOHEAP;
	last = loop->heap[--loop->nheap];
	if (last == t)
		return;
	loop_heap_set(loop, i, last);
	if (i > 0 && loop_timer_before(last, loop->heap[(i - 1) / 2]))
		loop_heap_up(loop, i);
	else
		loop_heap_down(loop, i);
}

/*
 * Fire the due timers in deadline order.  Timers started during this pass
 * (even with 0 ms) wait for the next turn, so a callback re-arming itself
 * cannot keep the loop here.
 */
static void
loop_timer_dispatch(struct loop *loop)
{
	struct loop_timer	*t;
	int64_t			 now;
	uint64_t		 limit = loop->seq;

	if (loop->nheap == 0)
		return;
	now = loop_now_us();
	while (loop->nheap != 0) {
		t = loop->heap[0];
		if (t->when > now || t->seq >= limit)
			break;
		loop_barrier_cross(loop);
		if (loop->nheap == 0 || loop->heap[0] != t)
			continue;	/* the barrier's callback moved it */
		loop_heap_remove(t);
		t->cb(t->arg);
	}
}

/* Double the deferred-call ring, unrolling it to start at 0. */
static void
loop_calls_grow(struct loop *loop)
{
	struct loop_call	*calls;
	size_t			 alloc, i;

	alloc = loop->callalloc == 0 ? 16 : loop->callalloc * 2;
	calls = xreallocarray(NULL, alloc, sizeof *calls);
	for (i = 0; i < loop->ncalls; i++)
		calls[i] = loop->calls[(loop->callhead + i) % loop->callalloc];
	free(loop->calls);
	loop->calls = calls;
	loop->callalloc = alloc;
	loop->callhead = 0;
}

/* Queue a call for this turn (or the next, if the turn is past them). */
void
loop_defer(struct loop *loop, loop_cb cb, void *arg)
{
	struct loop_call	*c;

	if (loop->ncalls == loop->callalloc)
		loop_calls_grow(loop);
	c = &loop->calls[(loop->callhead + loop->ncalls) % loop->callalloc];
	c->cb = cb;
	c->arg = arg;
	loop->ncalls++;
}

/* Run deferred calls in order until none are left, new ones included. */
static void
loop_calls_drain(struct loop *loop)
{
	struct loop_call	c;

	if (loop->ncalls != 0)
		loop_barrier_cross(loop);
	while (loop->ncalls != 0) {
		c = loop->calls[loop->callhead];
		loop->callhead = (loop->callhead + 1) % loop->callalloc;
		loop->ncalls--;
		c.cb(c.arg);
	}
}

/*
 * Set a barrier (cb) or lift it (NULL): until lifted, only watchers and
 * signals marked to pass it are dispatched; anything else first calls cb,
 * which must lift it.
 */
void
loop_barrier(struct loop *loop, loop_cb cb, void *arg)
{
	loop->barrier = cb;
	loop->barrier_arg = arg;
}

/* A watcher that is dispatched past a barrier. */
void
loop_fd_pass(struct loop_fd *w)
{
	w->pass = 1;
}

/* About to dispatch what a barrier holds back: lift it first. */
void
loop_barrier_cross(struct loop *loop)
{
	if (loop->barrier == NULL)
		return;
	loop->barrier(loop->barrier_arg);
	if (loop->barrier != NULL)
		fatalx("%s: the barrier was not lifted", __func__);
}

/* Add a hook run before every poll, after those added earlier. */
void
loop_hook_add(struct loop *loop, loop_cb cb, void *arg)
{
	if (loop->nhooks == loop->hookalloc) {
		loop->hookalloc = loop->hookalloc == 0 ? 4 :
		    loop->hookalloc * 2;
		loop->hooks = xreallocarray(loop->hooks, loop->hookalloc,
		    sizeof *loop->hooks);
	}
	loop->hooks[loop->nhooks].cb = cb;
	loop->hooks[loop->nhooks].arg = arg;
	loop->nhooks++;
}

/* Remove a hook; from inside a hook, it is blanked and swept afterwards. */
void
loop_hook_del(struct loop *loop, loop_cb cb, void *arg)
{
	size_t	i;

	for (i = 0; i < loop->nhooks; i++) {
		if (loop->hooks[i].cb == cb && loop->hooks[i].arg == arg)
			break;
	}
	if (i == loop->nhooks)
		return;
	if (loop->inhooks) {
		loop->hooks[i].cb = NULL;
		loop->hookdead = 1;
		return;
	}
	memmove(&loop->hooks[i], &loop->hooks[i + 1],
	    (loop->nhooks - i - 1) * sizeof *loop->hooks);
	loop->nhooks--;
}

/* Run the hooks present when the pass began, in order. */
static void
loop_hooks_run(struct loop *loop)
{
	size_t	i, n = loop->nhooks;

	loop->inhooks = 1;
	for (i = 0; i < n; i++) {
		if (loop->hooks[i].cb != NULL)
			loop->hooks[i].cb(loop->hooks[i].arg);
	}
	loop->inhooks = 0;
	if (loop->hookdead)
		loop_hooks_sweep(loop);
}

/* Drop hooks blanked during the pass. */
static void
loop_hooks_sweep(struct loop *loop)
{
	size_t	i, j;

	for (i = j = 0; i < loop->nhooks; i++) {
		if (loop->hooks[i].cb != NULL)
			loop->hooks[j++] = loop->hooks[i];
	}
	loop->nhooks = j;
	loop->hookdead = 0;
}

/* signal.c's state for this loop. */
struct signal_set *
loop_get_signals(const struct loop *loop)
{
	return (loop->signals);
}

/* Keep signal.c's state with the loop. */
void
loop_set_signals(struct loop *loop, struct signal_set *set)
{
	loop->signals = set;
}

/* proc.c's state for this loop. */
struct proc_set *
loop_get_procs(const struct loop *loop)
{
	return (loop->procs);
}

/* Keep proc.c's state with the loop. */
void
loop_set_procs(struct loop *loop, struct proc_set *set)
{
	loop->procs = set;
}
