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
 * exec-log.c: a step's log, kept in the database up to the per-step
 * limit.  Most output is written in the turn it comes (the console shows
 * it live), but a runner that says ENGINE_RUNNER_LOG_LATER (an MCP
 * exchange: a few short lines at each stage of the protocol) would make a
 * commit of its own for each line.  Its lines wait in memory and go into
 * the next transaction the engine makes anyway (the step's end at the
 * latest), or after a second, or once enough of them wait.  A crash can
 * lose those lines, never a state change: every change of a row is
 * written and committed as before.
 */

#include <stdlib.h>
#include <string.h>

#include "engine/engine-int.h"

/* Waiting lines of one step, at most, before they are written at once. */
#define ENGINE_LOG_LATER_MAX	(64 * 1024)

struct engine_logline {
	int64_t				 at;	/* wall ms it came */
	char				 stream[8];
	size_t				 len;
	TAILQ_ENTRY(engine_logline)	 entry;
	char				 data[];
};

static void	engine_log_write(struct engine *, struct estep *, int64_t,
		    const char *, const char *, size_t);
static void	engine_log_later(struct engine *, struct estep *,
		    const char *, const char *, size_t);

/* Write a chunk now, up to the per-step limit, then say it was cut. */
static void
engine_log_write(struct engine *e, struct estep *es, int64_t at,
    const char *stream, const char *data, size_t len)
{
	char		*note;
	size_t		 room;
	struct buf	 m;

	if (es->log_cut)
		return;
	/* Whole lines (an MCP exchange's) are masked here as text. */
	buf_init(&m);
	if (!mask_empty(es->wf->mask)) {
		mask_buf(es->wf->mask, &m, data, len);
		data = m.data;
		len = m.len;
	}
	engine_txn(e);
	room = (size_t)(e->opts.log_max - es->log_bytes);
	if (len > room) {
		if (room > 0 && store_log_add(e->store, es->id, at, stream,
		    data, room) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		es->log_bytes += (int64_t)room;
		es->log_cut = 1;
		xasprintf(&note, STORE_LOG_CUT " a step keeps at most %lld "
		    "bytes of log]\n", (long long)e->opts.log_max);
		data = note;
		len = strlen(note);
		stream = "sluice";
	} else
		note = NULL;
	if (store_log_add(e->store, es->id, at, stream, data, len) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (note == NULL)
		es->log_bytes += (int64_t)len;
	free(note);
	buf_free(&m);
}

/* Keep a chunk in memory until the engine commits anyway. */
static void
engine_log_later(struct engine *e, struct estep *es, const char *stream,
    const char *data, size_t len)
{
	struct engine_logline	*l;

	l = xmalloc(sizeof *l + len);
	l->at = time_now_ms();
	strlcpy(l->stream, stream, sizeof l->stream);
	l->len = len;
	memcpy(l->data, data, len);
	if (TAILQ_EMPTY(&es->loglater)) {
		TAILQ_INIT(&es->loglater);	/* a step starts zeroed */
		TAILQ_INSERT_TAIL(&e->loglater, es, lentry);
		if (e->logrec != NULL && !loop_timer_pending(e->logrec))
			loop_timer_start(e->logrec, ENGINE_HEARTBEAT_MS);
	}
	TAILQ_INSERT_TAIL(&es->loglater, l, entry);
	es->loglater_len += len;
	if (es->loglater_len > ENGINE_LOG_LATER_MAX)
		engine_exec_log_flush(e, es);
}

/* A chunk of a step's log: written now, or later if its runner says so. */
void
engine_exec_log(struct engine *e, struct estep *es, const char *stream,
    const char *data, size_t len)
{
	int	 later;

	if (es->log_cut)
		return;
	later = es->runner != NULL &&
	    (es->runner->flags & ENGINE_RUNNER_LOG_LATER) && e->logrec != NULL;
#ifdef SLUICE_TEST_CLOCK
	/* Test builds: the commits test shows what writing now costs. */
	if (getenv("SLUICE_TEST_LOG_NOW") != NULL)
		later = 0;
#endif
	if (later)
		engine_log_later(e, es, stream, data, len);
	else
		engine_log_write(e, es, time_now_ms(), stream, data, len);
}

/* Write what waits of a step's log, in the open transaction (or a new one). */
void
engine_exec_log_flush(struct engine *e, struct estep *es)
{
	struct engine_logline	*l;

	if (TAILQ_EMPTY(&es->loglater))
		return;
	TAILQ_REMOVE(&e->loglater, es, lentry);
	while ((l = TAILQ_FIRST(&es->loglater)) != NULL) {
		TAILQ_REMOVE(&es->loglater, l, entry);
		engine_log_write(e, es, l->at, l->stream, l->data, l->len);
		free(l);
	}
	es->loglater_len = 0;
}

/* Before a commit: every step's waiting lines go into it. */
void
engine_logs_flush(struct engine *e)
{
	struct estep	*es;

	while ((es = TAILQ_FIRST(&e->loglater)) != NULL)
		engine_exec_log_flush(e, es);
}

/* Lines have waited a second with nothing committed: commit them. */
void
engine_logs_due(void *arg)
{
	struct engine	*e = arg;

	if (!TAILQ_EMPTY(&e->loglater))
		engine_txn(e);
}

/* A step is forgotten: lines still waiting (only at close) are dropped. */
void
engine_exec_log_drop(struct engine *e, struct estep *es)
{
	struct engine_logline	*l;

	if (TAILQ_EMPTY(&es->loglater))
		return;
	TAILQ_REMOVE(&e->loglater, es, lentry);
	while ((l = TAILQ_FIRST(&es->loglater)) != NULL) {
		TAILQ_REMOVE(&es->loglater, l, entry);
		free(l);
	}
	es->loglater_len = 0;
}
