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
 * attach.c: a console attached to an engine in another process, over its
 * socket (DB.sock).  It subscribes, so the engine tells it after every
 * commit that the database changed (the views read again then, rather
 * than polling); it sends its actions on the same connection and shows
 * each answer when it comes, in order, without waiting for it (an
 * answer lost with the engine is asked about, lost.c); and a
 * ping now and then, only while nothing else was heard, keeps "engine:
 * pid N on HOST" and "(silent Ns)" truthful.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ui/ui-int.h"

#define ATTACH_PING_MS		2000	/* ping after this much quiet */
#define ATTACH_LINE_MAX		(64 * 1024)	/* an answer line, at most */
#define ATTACH_ACTION		0	/* what a wait is for: an action */
#define ATTACH_PING		1
#define ATTACH_OUTCOME		2	/* what became of a lost one */
#define ATTACH_OUT_MAX		(8 * 1024 * 1024)	/* unsent requests */

/* An answer this console waits for, in the order it asked. */
struct attach_wait {
	char			*echo;		/* NULL: subscribe or ping */
	char			*request;	/* the action's id, or outcome's */
	int			 ping;
	int			 outcome;	/* what became of request */
	TAILQ_ENTRY(attach_wait) entry;
};

struct ui_attach {
	int			 fd;
	struct loop_fd		*ev;
	struct buf		 in;
	struct buf		 out;
	size_t			 off;
	int64_t			 heard_at;	/* monotonic ms */
	int64_t			 asked_at;	/* the oldest unanswered */
	int			 pinging;
	int64_t			 pid;
	char			*host;
	TAILQ_HEAD(, attach_wait) waits;
};

static void	 attach_io(int, short, void *);
static void	 attach_write(struct ui *);
static void	 attach_line(struct ui *, const char *);
static void	 attach_queue(struct ui *, const char *, const char *,
		     const char *, int);
static void	 attach_wait_free(struct attach_wait *);

/*
 * Attach to the engine's socket when one answers; 0 when attached (or
 * already), -1 when no engine listens.
 */
int
ui_attach_open(struct ui *ui)
{
	struct ui_attach	*a;
	int			 fd;

	if (ui->attach != NULL)
		return (0);
	if ((fd = client_sock_connect(store_path(ui->store))) == -1)
		return (-1);
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == -1) {
		close(fd);
		return (-1);
	}
	a = xcalloc(1, sizeof *a);
	a->fd = fd;
	buf_init(&a->in);
	buf_init(&a->out);
	TAILQ_INIT(&a->waits);
	a->heard_at = time_mono_ms();
	ui->attach = a;
	a->ev = loop_fd_add(ui->loop, fd, POLLIN, attach_io, ui);
	attach_queue(ui, "{\"command\":\"subscribe\"}\n", NULL, NULL,
	    ATTACH_ACTION);
	attach_queue(ui, "{\"command\":\"ping\"}\n", NULL, NULL,
	    ATTACH_PING);
	log_debug("%s: attached to the engine's socket", __func__);
	if (ui->attach != NULL)
		ui_lost_ask(ui);	/* answers the last engine lost */
	return (0);
}

/* Let the connection go; answers still awaited are reported lost. */
void
ui_attach_close(struct ui *ui)
{
	struct ui_attach	*a = ui->attach;
	struct attach_wait	*w;

	if (a == NULL)
		return;
	/* Gone first, so what follows asks no question of it. */
	ui->attach = NULL;
	while ((w = TAILQ_FIRST(&a->waits)) != NULL) {
		TAILQ_REMOVE(&a->waits, w, entry);
		if (w->outcome)
			ui_lost_unask(ui, w->request);
		else if (w->echo != NULL && !ui->quit)
			ui_lost_add(ui, w->request, w->echo);
		attach_wait_free(w);
	}
	loop_fd_del(a->ev);
	close(a->fd);
	buf_free(&a->in);
	buf_free(&a->out);
	free(a->host);
	free(a);
}

/* Free a wait. */
static void
attach_wait_free(struct attach_wait *w)
{
	free(w->echo);
	free(w->request);
	free(w);
}

/* Is this console attached (actions go over the socket)? */
int
ui_attach_ready(const struct ui *ui)
{
	return (ui->attach != NULL);
}

/*
 * Has the engine said who it is on this connection?  Then its socket, not
 * the lease row, tells the header about it.
 */
int
ui_attach_known(const struct ui *ui)
{
	return (ui->attach != NULL && ui->attach->pid != 0);
}

/* The header's engine state when attached: pid, host, silence. */
int
ui_attach_state(struct ui *ui, struct buf *b)
{
	struct ui_attach	*a = ui->attach;
	int64_t			 quiet;

	if (a == NULL || a->pid == 0)
		return (-1);
	buf_printf(b, "engine: pid %lld on %s", (long long)a->pid,
	    a->host != NULL ? a->host : "?");
	quiet = time_mono_ms() - a->heard_at;
	if (ui_attach_silent(ui))
		buf_printf(b, " (silent %llds)", (long long)(quiet / 1000));
	return (0);
}

/* Has the engine left a question unanswered so long it looks dead? */
int
ui_attach_silent(const struct ui *ui)
{
	const struct ui_attach	*a = ui->attach;

	return (a != NULL && a->asked_at != 0 &&
	    time_mono_ms() - a->asked_at > UI_STALE_MS);
}

/* Every second: ping when it has been quiet, so silence is noticed. */
void
ui_attach_tick(struct ui *ui)
{
	struct ui_attach	*a = ui->attach;

	if (a == NULL || a->pinging)
		return;
	if (time_mono_ms() - a->heard_at >= ATTACH_PING_MS)
		attach_queue(ui, "{\"command\":\"ping\"}\n", NULL, NULL,
		    ATTACH_PING);
}

/* Send an action; its answer shows in the message line when it comes. */
void
ui_attach_send(struct ui *ui, const struct engine_request *q, const char *echo)
{
	char	*line;

	ui_screen_message(ui, 0, "%s: sent to the engine", echo);
	line = engine_request_line(&ui->cfg->actor, q);
	attach_queue(ui, line, echo, q->request, ATTACH_ACTION);
	free(line);
}

/* Ask what became of request id; its answer goes to lost.c. */
void
ui_attach_outcome(struct ui *ui, const char *id)
{
	struct engine_request	 q;
	char			*line;

	memset(&q, 0, sizeof q);
	q.command = "outcome";
	q.request = id;
	line = engine_request_line(&ui->cfg->actor, &q);
	attach_queue(ui, line, NULL, id, ATTACH_OUTCOME);
	free(line);
}

/*
 * Queue a request line and what its answer is for: an action (echo, its
 * request id), a ping, or an outcome (of request).  A connection that
 * fails as it is written is closed, and its waits go as it says.
 */
static void
attach_queue(struct ui *ui, const char *line, const char *echo,
    const char *request, int what)
{
	struct ui_attach	*a = ui->attach;
	struct attach_wait	*w;

	if (a == NULL)
		return;
	w = xcalloc(1, sizeof *w);
	w->echo = echo != NULL ? xstrdup(echo) : NULL;
	w->request = request != NULL ? xstrdup(request) : NULL;
	w->ping = what == ATTACH_PING;
	w->outcome = what == ATTACH_OUTCOME;
	if (w->ping)
		a->pinging = 1;
	if (TAILQ_EMPTY(&a->waits))
		a->asked_at = time_mono_ms();
	TAILQ_INSERT_TAIL(&a->waits, w, entry);
	buf_puts(&a->out, line);
	attach_write(ui);
}

/* Write what is queued without blocking. */
static void
attach_write(struct ui *ui)
{
	struct ui_attach	*a = ui->attach;
	ssize_t			 n;

	while (a->off < a->out.len) {
		n = send(a->fd, a->out.data + a->off, a->out.len - a->off,
		    MSG_NOSIGNAL|MSG_DONTWAIT);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN &&
		    a->out.len - a->off < ATTACH_OUT_MAX) {
			loop_fd_events(a->ev, POLLIN|POLLOUT);
			return;
		}
		if (n <= 0) {
			ui_attach_close(ui);
			return;
		}
		a->off += (size_t)n;
	}
	buf_reset(&a->out);
	a->off = 0;
	loop_fd_events(a->ev, POLLIN);
}

/* The socket is ready: write the rest, read answers and events. */
static void
attach_io(int fd, short revents, void *arg)
{
	struct ui		*ui = arg;
	struct ui_attach	*a = ui->attach;
	char			 chunk[16384], *nl, *line;
	size_t			 used;
	ssize_t			 n;

	if (revents & POLLOUT) {
		attach_write(ui);
		if ((a = ui->attach) == NULL)
			return;
	}
	if (!(revents & (POLLIN|POLLHUP|POLLERR)))
		return;
	n = recv(fd, chunk, sizeof chunk, MSG_DONTWAIT);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0 || a->in.len + (size_t)n > ATTACH_LINE_MAX) {
		ui_attach_close(ui);
		ui_dirty(ui);
		return;
	}
	buf_add(&a->in, chunk, (size_t)n);
	used = 0;
	while ((nl = memchr(a->in.data + used, '\n', a->in.len - used)) !=
	    NULL) {
		*nl = '\0';
		line = a->in.data + used;
		used = (size_t)(nl - a->in.data) + 1;
		attach_line(ui, line);
		if ((a = ui->attach) == NULL)
			return;
	}
	memmove(a->in.data, a->in.data + used, a->in.len - used);
	a->in.len -= used;
	a->in.data[a->in.len] = '\0';
}

/* One line from the engine: an event, or the answer to the oldest ask. */
static void
attach_line(struct ui *ui, const char *line)
{
	struct ui_attach	*a = ui->attach;
	struct attach_wait	*w;
	struct engine_reply	 r;
	cJSON			*o, *v;

	a->heard_at = time_mono_ms();
	ui_dirty(ui);
	if ((o = cJSON_Parse(line)) == NULL)
		return;
	if (cJSON_GetObjectItemCaseSensitive(o, "event") != NULL) {
		cJSON_Delete(o);
		ui_changed(ui);
		return;
	}
	if ((w = TAILQ_FIRST(&a->waits)) == NULL) {
		cJSON_Delete(o);
		return;
	}
	TAILQ_REMOVE(&a->waits, w, entry);
	a->asked_at = TAILQ_EMPTY(&a->waits) ? 0 : time_mono_ms();
	if (w->ping) {
		a->pinging = 0;
		v = cJSON_GetObjectItemCaseSensitive(o, "pid");
		if (cJSON_IsNumber(v))
			a->pid = (int64_t)v->valuedouble;
		v = cJSON_GetObjectItemCaseSensitive(o, "host");
		if (cJSON_IsString(v)) {
			free(a->host);
			a->host = xstrdup(v->valuestring);
		}
	} else if (w->outcome) {
		memset(&r, 0, sizeof r);
		if (engine_reply_read(line, &r) == 0)
			ui_lost_answer(ui, w->request, &r);
		else
			ui_lost_unask(ui, w->request);
		engine_reply_clear(&r);
	} else if (w->echo != NULL) {
		memset(&r, 0, sizeof r);
		if (engine_reply_read(line, &r) == 0)
			ui_action_answer(ui, w->echo, &r);
		engine_reply_clear(&r);
	}
	cJSON_Delete(o);
	attach_wait_free(w);
}
