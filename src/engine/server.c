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
 * server.c: the engine's socket, DB.sock beside the database, served on
 * the engine's loop by every engine (headless, or hosted by a console).
 * A client writes one JSON object per line and reads one per line back:
 *
 *	{"command": "approve", "workflow_id": 0, "step_id": 7,
 *	 "args": {"comment": "ok"}, "tty": "/dev/pts/3", "host": "ws1",
 *	 "via": "mcp"}
 *	{"code": 0, "message": "approved ...", "workflow_id": 3}
 *
 * Commands are applied through engine_apply at once, as the inbox's are,
 * and answered once the turn's transaction has committed (so an answer
 * is never ahead of the database).  "ping" answers with the engine's pid
 * and host and who the caller is; "subscribe" answers, then pushes
 * {"event": "changed"} after every commit, for attached consoles.  The
 * caller is whoever the kernel says (SO_PEERCRED); its tty and host are
 * only its report.  Nothing here blocks: reads and writes are
 * non-blocking and bounded.  No one caller can take the socket from the
 * others (sluice(1), "Commands and the socket"): each user may hold a
 * few connections, with one always kept for root and the engine's own
 * account; a connection that asks nothing for a while and is not
 * subscribed is closed; a client that lets its answers pile up unread is
 * dropped.  Refusals and closings say why in one line when the client can
 * still hear it.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"
#include "engine/server-int.h"

static nfds_t	 server_poll_ready(struct engine_server *, struct pollfd *,
		    struct server_client **);
static void	 server_accept(int, short, void *);
static void	 server_client_io(int, short, void *);
static int	 server_admit(struct engine_server *, uid_t, char **);
static void	 server_refuse(int, const char *);
static void	 server_client_idle(void *);
static void	 server_client_free(struct server_client *);
static void	 server_client_read(struct server_client *);
static void	 server_client_line(struct server_client *, char *);
static void	 server_wait_read(struct server_client *);
static void	 server_send_some(struct server_client *);

/*
 * Listen on the database's socket.  Without one (a path too long, a
 * directory we cannot write) the engine still runs and clients use the
 * inbox; *cause says why.
 */
int
engine_server_open(struct engine *e, char **cause)
{
	struct engine_server	*srv;
	int			 fd;

	srv = xcalloc(1, sizeof *srv);
	srv->e = e;
	srv->path = sock_path(e->dbpath);
	srv->idle_ms = SERVER_IDLE_MS;
#ifdef SLUICE_TEST_CLOCK
	{
		const char	*v = getenv("SLUICE_TEST_SOCKET_IDLE_MS");
		int64_t		 n;

		if (v != NULL && str_parse_int64(v, &n) == 0 && n > 0)
			srv->idle_ms = n;	/* tests need not wait a minute */
	}
#endif
	TAILQ_INIT(&srv->clients);
	if ((fd = sock_listen(srv->path, cause)) == -1) {
		free(srv->path);
		free(srv);
		return (-1);
	}
	srv->fd = fd;
	srv->ev = loop_fd_add(e->loop, fd, POLLIN, server_accept, srv);
	srv->look = loop_timer_create(e->loop, server_look, srv);
	e->server = srv;
	log_debug("%s: listening on %s", __func__, srv->path);
	return (0);
}

/* Why this engine has no socket, or NULL when it has one. */
const char *
engine_server_error(const struct engine *e)
{
	return (e->server != NULL ? NULL : e->server_cause);
}

/* Stop serving: every client is closed and the socket file removed. */
void
engine_server_close(struct engine *e)
{
	struct engine_server	*srv = e->server;
	struct server_client	*c;

	if (srv == NULL)
		return;
	while ((c = TAILQ_FIRST(&srv->clients)) != NULL)
		server_client_free(c);
	engine_read_close(e);
	loop_timer_free(srv->look);
	loop_fd_del(srv->ev);
	close(srv->fd);
	unlink(srv->path);
	free(srv->path);
	free(srv);
	e->server = NULL;
}

/*
 * After the turn's commit (committed set when something was written):
 * send the answers that waited for it, and tell subscribers.
 */
void
engine_server_flush(struct engine *e, int committed)
{
	struct engine_server	*srv = e->server;
	struct server_client	*c, *c1;

	if (srv == NULL)
		return;
#ifdef SLUICE_TEST_CLOCK
	/* Committed, not yet answered: where a lost answer is tested. */
	if (committed && srv->answers > 0)
		engine_test_hold("answer");
#endif
	srv->answers = 0;
	/* Adopted from the standby: relayed commands this turn applied. */
	if (committed && srv->relays > 0 && !e->standby)
		engine_server_relays(e);
	TAILQ_FOREACH_SAFE(c, &srv->clients, entry, c1) {
		if (committed && c->subscribed && !c->notified) {
			buf_puts(&c->out, "{\"event\":\"changed\"}\n");
			c->notified = 1;
		}
		if (c->out.len > c->off)
			(void)server_client_write(c);
	}
}

/*
 * Whether no client waits for output (an answer, a push): then a commit
 * may wait a moment for the next turn's (engine_turn_end) without
 * keeping anyone waiting.
 */
int
engine_server_quiet(const struct engine *e)
{
	const struct engine_server	*srv = e->server;
	const struct server_client	*c;

	if (srv == NULL)
		return (1);
	if (srv->answers > 0)
		return (0);
	TAILQ_FOREACH(c, &srv->clients, entry) {
		if (c->out.len > c->off)
			return (0);
	}
	return (1);
}

/*
 * Poll, without waiting, the socket and every client whose lines may be
 * read now (cs[i] is pfd[i]'s client, NULL for the socket); the number
 * of descriptors polled, 0 if none is ready.
 */
static nfds_t
server_poll_ready(struct engine_server *srv, struct pollfd *pfd,
    struct server_client **cs)
{
	struct server_client	*c;
	nfds_t			 n = 0;

	pfd[n].fd = srv->fd;
	pfd[n].events = POLLIN;
	cs[n++] = NULL;
	TAILQ_FOREACH(c, &srv->clients, entry) {
		if (c->busy || c->held || c->eof || c->closing ||
		    c->relay != 0 || n == SERVER_CLIENTS + 1)
			continue;
		pfd[n].fd = c->fd;
		pfd[n].events = POLLIN;
		cs[n++] = c;
	}
	return (poll(pfd, n, 0) > 0 ? n : 0);
}

/*
 * Whether a request waits unread: a newcomer on the socket, or a line
 * from a client other than the one being answered.  Long work (a prune
 * batch) asks between its slices and gives way.  One poll that does not
 * wait.
 */
int
engine_server_pending(struct engine *e)
{
	struct pollfd		 pfd[SERVER_CLIENTS + 1];
	struct server_client	*cs[SERVER_CLIENTS + 1];

	if (e->server == NULL || e->server->waiting)
		return (0);
	return (server_poll_ready(e->server, pfd, cs) != 0);
}

/*
 * Deferred by work that gave way (engine_server_pending): take the
 * newcomers and apply the lines that wait now, before the turn commits,
 * so their changes share the commit the work makes anyway and their
 * answers go out with it.  A line that has not come yet waits for the
 * loop as usual.
 */
void
engine_server_take(void *arg)
{
	struct engine		*e = arg;
	struct engine_server	*srv = e->server;
	struct pollfd		 pfd[SERVER_CLIENTS + 1];
	struct server_client	*cs[SERVER_CLIENTS + 1], *c;
	nfds_t			 n, i;

	if (srv == NULL || srv->waiting)
		return;
	if (server_poll_ready(srv, pfd, cs) != 0 && pfd[0].revents != 0)
		server_accept(srv->fd, POLLIN, srv);
	n = server_poll_ready(srv, pfd, cs);
	for (i = 1; i < n; i++) {
		if (pfd[i].revents == 0)
			continue;
		/* Applying one line may have closed another client. */
		TAILQ_FOREACH(c, &srv->clients, entry) {
			if (c == cs[i])
				break;
		}
		if (c != NULL && !c->busy)
			server_client_io(c->fd, pfd[i].revents, c);
	}
}

/*
 * Whether a client of uid may have one more connection: NULL, or why not
 * in *why.  Root and the engine's own account always get one, so neither
 * members nor anyone else can lock them out.
 */
static int
server_admit(struct engine_server *srv, uid_t uid, char **why)
{
	struct server_client	*c;
	int			 mine = 0, all = 0;

	/*
	 * One that hung up counts no more: it is freed once a wait for the
	 * database is over (engine_server_wait), which may be long.
	 */
	TAILQ_FOREACH(c, &srv->clients, entry) {
		if (c->eof)
			continue;
		all++;
		if (c->uid == uid)
			mine++;
	}
	if (mine == 0 && (uid == 0 || uid == geteuid()))
		return (0);
	if (mine >= SERVER_CLIENTS_USER) {
		xasprintf(why, "you have %d connections to the engine, the "
		    "most one user may have; close one and try again", mine);
		return (-1);
	}
	if (all >= SERVER_CLIENTS) {
		xasprintf(why, "the engine has too many clients (%d); try "
		    "again", SERVER_CLIENTS);
		return (-1);
	}
	return (0);
}

/* Tell a client we will not serve why, in one line, and close it. */
static void
server_refuse(int fd, const char *why)
{
	cJSON	*o;
	char	*text, *line;

	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "code", 1);
	cJSON_AddStringToObject(o, "message", why);
	if ((text = cJSON_PrintUnformatted(o)) == NULL)
		fatalx("%s: out of memory", __func__);
	cJSON_Delete(o);
	xasprintf(&line, "%s\n", text);
	cJSON_free(text);
	(void)!send(fd, line, strlen(line), MSG_NOSIGNAL|MSG_DONTWAIT);
	free(line);
	close(fd);
}

/* A client is connecting: take it, unless its user or we have too many. */
static void
server_accept(int fd, short revents, void *arg)
{
	struct engine_server	*srv = arg;
	struct server_client	*c;
	uid_t			 uid;
	pid_t			 pid;
	char			*why = NULL;
	int			 cfd;

	(void)revents;
	if ((cfd = sock_accept(fd)) == -1) {
		if (errno != EAGAIN && errno != EINTR)
			log_debug("%s: accept: %s", __func__, strerror(errno));
		return;
	}
	if (sock_peer(cfd, &uid, &pid) != 0) {
		log_debug("%s: SO_PEERCRED: %s", __func__, strerror(errno));
		close(cfd);
		return;
	}
	if (server_admit(srv, uid, &why) != 0) {
		log_debug("%s: uid %lu (pid %ld) refused: %s", __func__,
		    (unsigned long)uid, (long)pid, why);
		server_refuse(cfd, why);
		free(why);
		return;
	}
	c = xcalloc(1, sizeof *c);
	c->srv = srv;
	c->fd = cfd;
	c->uid = uid;
	c->pid = pid;
	buf_init(&c->in);
	buf_init(&c->out);
	c->ev = loop_fd_add(srv->e->loop, cfd, POLLIN, server_client_io, c);
	c->idle = loop_timer_create(srv->e->loop, server_client_idle, c);
	loop_timer_start(c->idle, srv->idle_ms);
	engine_read_slot_init(srv->e, &c->read);
	TAILQ_INSERT_TAIL(&srv->clients, c, entry);
	srv->nclients++;
}

/*
 * A client asked nothing for idle_ms and is not subscribed, or its
 * answers have waited that long unread: close it, saying why if it can
 * still hear it.
 */
static void
server_client_idle(void *arg)
{
	struct server_client	*c = arg;
	char			*why;

	if (c->srv->resume) {
		/* The engine was waiting for the database, not the client. */
		loop_timer_start(c->idle, c->srv->idle_ms);
		return;
	}
	if (c->subscribed && c->off >= c->out.len)
		return;
	if (c->off < c->out.len) {
		log_debug("%s: client pid %ld has not read its answers for "
		    "%lld ms; dropped", __func__, (long)c->pid,
		    (long long)c->srv->idle_ms);
		server_client_free(c);
		return;
	}
	log_debug("%s: client pid %ld idle; closed", __func__, (long)c->pid);
	xasprintf(&why, "closed: no request for %lld s (the limit for a "
	    "connection that is not subscribed)",
	    (long long)(c->srv->idle_ms + 999) / 1000);
	server_error(c, 1, why);
	free(why);
	(void)!send(c->fd, c->out.data + c->off, c->out.len - c->off,
	    MSG_NOSIGNAL|MSG_DONTWAIT);
	server_client_free(c);
}

/* Close a client and forget it. */
static void
server_client_free(struct server_client *c)
{
	if (c->relay != 0)
		c->srv->relays--;	/* its row stays: the leader applies it */
	TAILQ_REMOVE(&c->srv->clients, c, entry);
	c->srv->nclients--;
	loop_fd_del(c->ev);
	loop_timer_free(c->idle);
	engine_read_slot_clear(&c->read);
	close(c->fd);
	buf_free(&c->in);
	buf_free(&c->out);
	free(c);
}

/* The client's descriptor is ready. */
static void
server_client_io(int fd, short revents, void *arg)
{
	struct server_client	*c = arg;

	(void)fd;
	if ((revents & POLLOUT) && server_client_write(c) != 0)
		return;		/* freed */
	if (revents & (POLLIN|POLLHUP|POLLERR))
		server_client_read(c);
}

/*
 * Read what is there (a bounded amount per wake-up) and act on each whole
 * line.  A line over SERVER_REQUEST_MAX is refused and the client closed.
 * Reading goes on while answers wait to be written, so a client that
 * sends and never reads fills its answers up to SERVER_OUT_MAX and is
 * dropped, instead of holding its connection stalled for ever.
 */
static void
server_client_read(struct server_client *c)
{
	char	 chunk[SERVER_READ];
	ssize_t	 n;

	n = recv(c->fd, chunk, sizeof chunk, MSG_DONTWAIT);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		server_client_free(c);
		return;
	}
	if (c->closing)
		return;		/* say nothing more; close once written */
	if (!c->subscribed && c->off >= c->out.len)
		loop_timer_start(c->idle, c->srv->idle_ms);
	buf_add(&c->in, chunk, (size_t)n);
	if (c->held || c->relay != 0)
		return;		/* applied in order once it is over */
	server_client_lines(c);
}

/*
 * Apply each whole line read.  While they are applied the engine may wait
 * for the database (engine_server_wait), which must then leave c->in
 * alone: busy says so.
 */
void
server_client_lines(struct server_client *c)
{
	char	*nl, *line;
	size_t	 used;

	c->busy = 1;
	used = 0;
	while (!c->closing && c->relay == 0 && (nl = memchr(c->in.data + used,
	    '\n',
	    c->in.len - used)) != NULL) {
		*nl = '\0';
		line = c->in.data + used;
		used = (size_t)(nl - c->in.data) + 1;
		server_client_line(c, line);
	}
	c->busy = 0;
	if (used > 0) {
		memmove(c->in.data, c->in.data + used, c->in.len - used);
		c->in.len -= used;
		c->in.data[c->in.len] = '\0';
	}
	if (!c->closing && c->in.len > SERVER_REQUEST_MAX) {
		server_error(c, 2, "request too long (more than 4 MiB)");
		c->closing = 1;
	}
	/* Answers go out after the commit (engine_server_flush). */
}

/*
 * The engine waits for the database (engine_busy.c), in the middle of
 * whatever it was doing: for up to ms, keep the socket alive without
 * applying anything.  Newcomers are taken, pings answered (saying what
 * the engine waits for) and members' reads too (they run on a connection
 * of their own, which the lock waited for does not stop); any other
 * request is read and kept, with what its client sends after it, until
 * server_resume applies them once the wait is over.  No client is freed
 * meanwhile, since the caller may be applying one of their lines.  A read
 * answered here that works long calls back (server-read.c): that inner
 * call only sleeps.
 */
void
engine_server_wait(struct engine *e, int ms)
{
	struct engine_server	*srv = e->server;
	struct server_client	*c, **cs;
	struct pollfd		*pfd;
	int			 n, i;

	if (srv == NULL || srv->waiting) {
		(void)poll(NULL, 0, ms);
		return;
	}
	srv->waiting = 1;
	pfd = xcalloc((size_t)srv->nclients + 1, sizeof *pfd);
	cs = xcalloc((size_t)srv->nclients + 1, sizeof *cs);
	pfd[0].fd = srv->fd;
	pfd[0].events = POLLIN;
	n = 1;
	TAILQ_FOREACH(c, &srv->clients, entry) {
		if (c->busy || c->held || c->eof || c->closing ||
		    c->relay != 0)
			continue;
		pfd[n].fd = c->fd;
		pfd[n].events = POLLIN;
		cs[n++] = c;
	}
	if (poll(pfd, (nfds_t)n, ms) > 0) {
		for (i = 1; i < n; i++) {
			if (pfd[i].revents != 0)
				server_wait_read(cs[i]);
		}
		if (pfd[0].revents & POLLIN)
			server_accept(srv->fd, POLLIN, srv);
	}
	free(cs);
	free(pfd);
	srv->waiting = 0;
}

/* Send what of the queued output the socket takes now, not waiting. */
static void
server_send_some(struct server_client *c)
{
	ssize_t	 n;

	if (c->off >= c->out.len)
		return;
	n = send(c->fd, c->out.data + c->off, c->out.len - c->off,
	    MSG_NOSIGNAL|MSG_DONTWAIT);
	if (n > 0)
		c->off += (size_t)n;
}

/*
 * During a wait: read what a client sent, answer its pings and reads,
 * keep the rest.
 */
static void
server_wait_read(struct server_client *c)
{
	struct engine_server	*srv = c->srv;
	char			 chunk[SERVER_READ], *nl;
	const cJSON		*cmd;
	cJSON			*req;
	size_t			 len;
	ssize_t			 n;
	int			 ping, quiet;

	/*
	 * Output already queued may answer a request of the turn under way,
	 * whose commit is what is waited for: it goes after the commit
	 * (engine_server_flush), and what is answered now waits behind it.
	 */
	quiet = c->off >= c->out.len;
	n = recv(c->fd, chunk, sizeof chunk, MSG_DONTWAIT);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0)
		c->eof = 1;
	else
		buf_add(&c->in, chunk, (size_t)n);
	while (!c->held && c->in.len > 0 &&
	    (nl = memchr(c->in.data, '\n', c->in.len)) != NULL) {
		*nl = '\0';
		req = cJSON_Parse(c->in.data);
		cmd = cJSON_GetObjectItemCaseSensitive(req, "command");
		ping = cJSON_IsString(cmd) && (strcmp(cmd->valuestring,
		    "ping") == 0 || (engine_read_command(cmd->valuestring) &&
		    !srv->e->reading && srv->down == NULL));
		cJSON_Delete(req);
		if (srv->down != NULL && !ping)
			server_error(c, 1, srv->down);
		else if (!ping) {
			*nl = '\n';
			c->held = 1;
			break;
		} else
			server_client_line(c, c->in.data);
		len = (size_t)(nl - c->in.data) + 1;
		memmove(c->in.data, c->in.data + len, c->in.len - len);
		c->in.len -= len;
		c->in.data[c->in.len] = '\0';
	}
	if (quiet)
		server_send_some(c);
	if ((c->held || c->eof || c->in.len > 0) && !srv->resume) {
		srv->resume = 1;
		loop_defer(srv->e->loop, server_resume, srv);
	}
}

/*
 * The engine steps down (cutoff.c): from now on every request but a ping
 * is answered with why.  Answers queued and not sent may be of the turn
 * that was undone, whose commit never came: they are dropped, never
 * sent, and their clients, and those whose request was being applied,
 * get why instead (one that has part of a line already is closed).  An
 * answer dropped so may have been committed before: the request's
 * outcome, asked of the next leader, says.
 */
void
engine_server_down(struct engine *e, const char *why)
{
	struct engine_server	*srv = e->server;
	struct server_client	*c, *c1;

	if (srv == NULL)
		return;
	free(srv->down);
	xasprintf(&srv->down, "not leading: this node stepped down: %s", why);
	TAILQ_FOREACH_SAFE(c, &srv->clients, entry, c1) {
		if (c->off > 0 && c->off < c->out.len) {
			server_client_free(c);
			continue;
		}
		if (c->busy || c->off < c->out.len) {
			buf_reset(&c->out);
			c->off = 0;
			c->busy = 0;
			server_error(c, 1, srv->down);
		}
	}
}

/*
 * Stepped down (cutoff.c), between waits: what a client sent before is
 * answered with the reason too, what is queued goes out, and a client
 * that is done goes.  The engine never returns to the loop from there,
 * so no line of a client freed here is being applied.
 */
void
engine_server_down_tidy(struct engine *e)
{
	struct engine_server	*srv = e->server;
	struct server_client	*c, *c1;

	if (srv == NULL || srv->down == NULL)
		return;
	TAILQ_FOREACH_SAFE(c, &srv->clients, entry, c1) {
		if (c->held) {
			c->held = 0;
			buf_reset(&c->in);
			server_error(c, 1, srv->down);
		}
		server_send_some(c);
		if ((c->eof || c->closing) && c->off >= c->out.len)
			server_client_free(c);
	}
}

/* The wait is over: apply what clients sent meanwhile, in order. */
void
server_resume(void *arg)
{
	struct engine_server	*srv = arg;
	struct server_client	*c, *c1;

	srv->resume = 0;
	TAILQ_FOREACH_SAFE(c, &srv->clients, entry, c1) {
		if (c->busy || c->relay != 0)
			continue;
		if (c->held || c->in.len > 0) {
			c->held = 0;
			server_client_lines(c);
		}
		if (c->eof && !c->busy && c->off >= c->out.len)
			server_client_free(c);
	}
}

/*
 * Write what is queued without blocking; wait for POLLOUT for the rest.
 * A client that lets SERVER_OUT_MAX pile up, or writes nothing of it for
 * idle_ms (server_client_idle), is not reading: drop it.  Returns -1 when
 * the client was freed.
 */
int
server_client_write(struct server_client *c)
{
	ssize_t	 n;
	int	 moved = 0;

	while (c->off < c->out.len) {
		n = send(c->fd, c->out.data + c->off, c->out.len - c->off,
		    MSG_NOSIGNAL|MSG_DONTWAIT);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN) {
			if (c->out.len - c->off > SERVER_OUT_MAX +
			    c->read_out) {
				log_debug("%s: client pid %ld does not read; "
				    "dropped", __func__, (long)c->pid);
				server_client_free(c);
				return (-1);
			}
			/* The clock runs while nothing of it moves. */
			if (moved || !loop_timer_pending(c->idle))
				loop_timer_start(c->idle, c->srv->idle_ms);
			loop_fd_events(c->ev, c->closing ? POLLOUT :
			    POLLIN|POLLOUT);
			return (0);
		}
		if (n <= 0) {
			server_client_free(c);
			return (-1);
		}
		c->off += (size_t)n;
		moved = 1;
	}
	buf_reset(&c->out);
	c->off = 0;
	c->notified = 0;
	c->read_out = 0;
	if (c->closing) {
		server_client_free(c);
		return (-1);
	}
	if (c->subscribed)
		loop_timer_stop(c->idle);
	else
		loop_timer_start(c->idle, c->srv->idle_ms);
	loop_fd_events(c->ev, POLLIN);
	return (0);
}

/* Queue one answer line (o is consumed). */
void
server_reply(struct server_client *c, cJSON *o)
{
	char	*text;

	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (text == NULL)
		fatalx("%s: out of memory", __func__);
	buf_puts(&c->out, text);
	buf_putc(&c->out, '\n');
	cJSON_free(text);
}

/* Queue a refusal of the request itself. */
void
server_error(struct server_client *c, int code, const char *message)
{
	cJSON	*o;

	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "code", code);
	cJSON_AddStringToObject(o, "message", message);
	server_reply(c, o);
}

/*
 * One request line: ping, subscribe, outcome (what became of an earlier
 * request), or a command for engine_apply.
 */
static void
server_client_line(struct server_client *c, char *line)
{
	struct engine		*e = c->srv->e;
	struct engine_wire	 w;
	struct store_inbox	 m;
	struct engine_reply	 r;
	struct passwd		*pw;
	cJSON			*o;
	const char		*waiting;
	int64_t			 since;
	size_t			 len;
	cJSON			*req;
	char			*who, *why;

	if (engine_request_decode(line, &w, &why) != 0) {
		server_error(c, 2, why);
		free(why);
		return;
	}
	if ((pw = getpwuid(c->uid)) != NULL)
		who = xstrdup(pw->pw_name);
	else
		xasprintf(&who, "%lu", (unsigned long)c->uid);

	if (strcmp(w.command, "ping") == 0) {
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "code", 0);
		cJSON_AddNumberToObject(o, "pid", (double)getpid());
		cJSON_AddStringToObject(o, "host", user_self()->host);
		cJSON_AddNumberToObject(o, "uid", (double)c->uid);
		cJSON_AddStringToObject(o, "user", who);
		if (e->standby || e->leader != NULL) {
			cJSON_AddStringToObject(o, "node", engine_node_name());
			cJSON_AddStringToObject(o, "role", e->standby ?
			    "standby" : c->srv->down != NULL ? "stepped down" :
			    "leader");
		}
		if (c->srv->down != NULL)
			cJSON_AddStringToObject(o, "down", c->srv->down);
		if ((waiting = engine_busy_what(&since)) != NULL) {
			cJSON_AddStringToObject(o, "waiting", waiting);
			cJSON_AddNumberToObject(o, "waiting_since",
			    (double)since);
		}
		server_reply(c, o);
	} else if (engine_read_command(w.command)) {
		/* Its SQL and values are not the wire's: read them here. */
		req = cJSON_Parse(line);
		/* A big row may pass the unread limit: it is being read. */
		len = c->out.len;
		server_reply(c, engine_read_apply(&c->read, w.command, req));
		c->read_out += c->out.len - len;
		cJSON_Delete(req);
	} else if (strcmp(w.command, "subscribe") == 0) {
		c->subscribed = 1;	/* idle for good reason: stays */
		server_error(c, 0, "subscribed");
	} else if (strcmp(w.command, "outcome") == 0 && e->standby) {
		/* Read here: a standby has no engine to stop on failure. */
		if (w.request == NULL) {
			server_error(c, 2, "outcome: which request? ($.request "
			    "is missing)");
		} else if (engine_request_outcome(e->store, (int64_t)c->uid,
		    w.request, &r, &why) != 0) {
			server_error(c, 1, why);
			free(why);
		} else
			server_reply(c, engine_reply_json(&r));
		engine_reply_clear(&r);
	} else if (strcmp(w.command, "outcome") == 0) {
		engine_outcome(e, (int64_t)c->uid, w.request, &r);
		server_reply(c, engine_reply_json(&r));
		engine_reply_clear(&r);
	} else {
		memset(&m, 0, sizeof m);
		m.uid = (int64_t)c->uid;
		m.who = who;
		m.tty = w.tty;
		m.host = w.host;
		m.via = w.via;
		m.command = w.command;
		m.workflow_id = w.workflow_id;
		m.step_id = w.step_id;
		m.args_json = w.args_json;
		m.request = w.request;
		if (e->standby || e->leader != NULL)
			m.node = (char *)engine_node_name();
		log_debug("%s: %s from uid %lu (pid %ld)", __func__, m.command,
		    (unsigned long)c->uid, (long)c->pid);
		if (e->standby) {
			server_relay(c, &m);
			free(who);
			engine_wire_clear(&w);
			return;
		}
#ifdef SLUICE_TEST_CLOCK
		engine_test_hold("apply");
#endif
		engine_apply(e, &m, &r);
		if (m.request != NULL)
			c->srv->answers++;
		server_reply(c, engine_reply_json(&r));
		engine_reply_clear(&r);
	}
	free(who);
	engine_wire_clear(&w);
}
