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
 * server-relay.c: the socket of a standby (relay.c) relays each command
 * to the leader and answers its client once the leader answered, in
 * order with what the client sent after it; taking over, the engine
 * adopts the socket with its clients, and answers what was relayed.
 */

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"
#include "engine/server-int.h"

/*
 * A standby relays a command to the leader (relay.c) and keeps the
 * client's later lines until the answer comes (engine_server_relays),
 * so its requests are still answered in order.
 */
void
server_relay(struct server_client *c, struct store_inbox *m)
{
	struct engine_server	*srv = c->srv;
	char			*cause = NULL, *why;
	int64_t			 id;

	if (engine_relay_secret(m->args_json)) {
		server_error(c, 4, ENGINE_CLUSTER_SECRETS);
		return;
	}
	if (engine_relay_post(srv->e, m, &id, &cause) != 0) {
		xasprintf(&why, "cannot relay the command to the leader: %s",
		    cause);
		server_error(c, 1, why);
		free(why);
		free(cause);
		return;
	}
#ifdef SLUICE_TEST_CLOCK
	engine_test_hold("relayed");
#endif
	c->relay = id;
	c->relay_until = time_mono_ms() + RELAY_WAIT_MS;
	if (srv->relays++ == 0)
		loop_timer_start(srv->look, RELAY_LOOK_MS);
}

/* Now and then, NOTIFY or not: the answers to relayed commands. */
void
server_look(void *arg)
{
	struct engine_server	*srv = arg;

	engine_server_relays(srv->e);
	if (srv->relays > 0)
		loop_timer_start(srv->look, RELAY_LOOK_MS);
}

/*
 * Answer the clients whose relayed commands the leader answered, or that
 * waited RELAY_WAIT_MS for it (relay-late.c: withdrawn, or its outcome
 * unknown), then go on with what each sent after.
 */
void
engine_server_relays(struct engine *e)
{
	struct engine_server	*srv = e->server;
	struct server_client	*c, *c1;
	struct engine_reply	 r;
	int			 rc;

	if (srv == NULL || srv->relays == 0)
		return;
	TAILQ_FOREACH_SAFE(c, &srv->clients, entry, c1) {
		if (c->relay == 0)
			continue;
		if ((rc = engine_relay_answer(e, c->relay, &r)) != 0)
			server_reply(c, engine_reply_json(&r));
		else if (time_mono_ms() >= c->relay_until) {
			engine_relay_late(e, c->relay, &r);
			server_reply(c, engine_reply_json(&r));
		} else
			continue;
		engine_reply_clear(&r);
		c->relay = 0;
		srv->relays--;
		if (server_client_write(c) != 0)
			continue;	/* freed */
		if (c->in.len == 0)
			continue;
		if (e->standby)
			server_client_lines(c);
		else if (!srv->resume) {
			/* After the leader's commit: in a turn of its own. */
			srv->resume = 1;
			loop_defer(e->loop, server_resume, srv);
		}
	}
}

/*
 * This standby leads now: its socket, with every client as it is, is the
 * engine's.  A relayed command still waiting is answered once the
 * engine's first turn has applied it (engine_server_flush).
 */
void
engine_server_adopt(struct engine *e, struct engine *standby)
{
	struct engine_server	*srv = standby->server;
	struct server_client	*c;

	standby->server = NULL;
	if (srv == NULL)
		return;
	srv->e = e;
	TAILQ_FOREACH(c, &srv->clients, entry)
		c->read.e = e;
	engine_read_adopt(e, standby);
	e->server = srv;
}
