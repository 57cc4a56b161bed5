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
 * server-int.h: what the socket's files share (server.c serves it,
 * server-relay.c answers a standby's relayed commands): a connection and
 * the server, and the calls both make.
 */

#ifndef SLUICE_ENGINE_SERVER_INT_H
#define SLUICE_ENGINE_SERVER_INT_H

#include <sys/types.h>

#include "engine/engine-int.h"

struct cJSON;

#define SERVER_CLIENTS		64	/* connections at once */
#define SERVER_CLIENTS_USER	16	/* of them, one user's */
#define SERVER_IDLE_MS		(60 * 1000)	/* unsubscribed, silent */
#define SERVER_REQUEST_MAX	(4 * 1024 * 1024)	/* one request line */
#define SERVER_OUT_MAX		(1024 * 1024)	/* unread answers, bytes */
#define SERVER_READ		65536	/* bytes read per wake-up */

struct server_client {
	struct engine_server	*srv;
	int			 fd;
	struct loop_fd		*ev;
	struct loop_timer	*idle;		/* closes a silent client */
	uid_t			 uid;
	pid_t			 pid;
	struct buf		 in;
	struct buf		 out;
	size_t			 off;		/* of out, already written */
	int			 subscribed;
	int			 notified;	/* a "changed" is unread */
	int			 closing;	/* close once out is written */
	int			 busy;		/* its lines are being applied */
	int			 held;		/* lines kept for after a wait */
	int			 eof;		/* gone during a wait */
	int64_t			 relay;		/* relay.c: inbox row whose */
						/* answer it waits for */
	int64_t			 relay_until;	/* monotonic ms */
	struct engine_read_slot	 read;		/* server-read.c */
	size_t			 read_out;	/* a read's answer: may */
						/* pass SERVER_OUT_MAX */
	TAILQ_ENTRY(server_client) entry;
};
TAILQ_HEAD(server_clients, server_client);

struct engine_server {
	struct engine		*e;
	char			*path;
	int			 fd;
	struct loop_fd		*ev;
	struct server_clients	 clients;
	int			 nclients;
	int64_t			 idle_ms;
	int			 resume;	/* server_resume is deferred */
	int			 waiting;	/* in engine_server_wait */
	int			 answers;	/* to requests with an id, unsent */
	int			 relays;	/* clients with a relay waiting */
	struct loop_timer	*look;		/* their answers, without NOTIFY */
	char			*down;		/* set: stepped down (cutoff.c), */
						/* every request but a ping */
						/* answered with this reason */
};

/* server.c */
int		 server_client_write(struct server_client *);
void		 server_client_lines(struct server_client *);
void		 server_resume(void *);
void		 server_reply(struct server_client *, struct cJSON *);
void		 server_error(struct server_client *, int, const char *);

/* server-relay.c: a standby's commands, relayed to the leader. */
void		 server_relay(struct server_client *, struct store_inbox *);
void		 server_look(void *);

#endif /* SLUICE_ENGINE_SERVER_INT_H */
