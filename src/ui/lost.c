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
 * lost.c: the console's actions whose answer the engine's going away
 * lost.  Each was sent with a request id (client_request_id), so the
 * console asks what became of it, as "sluice approve" does
 * (client/outcome.c), but without waiting in the loop: it asks the next
 * engine over its socket once one answers (the answer comes like any
 * other), or, when this console has become the engine, reads the record
 * itself (the engine that took the request is gone: what it committed is
 * all it ever will).  Meanwhile the message line says it waits; after
 * CLIENT_OUTCOME_WAIT_MS it says how to ask later.
 */

#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

/* An action whose answer was lost, until its outcome is known. */
struct ui_lost {
	char		 id[ENGINE_REQUEST_ID_LEN + 1];
	char		*echo;		/* the command, as the message says */
	int64_t		 lost_at;	/* monotonic ms */
	int		 asking;	/* its outcome is asked on the socket */
	struct ui_lost	*next;
};

static void	 lost_remove(struct ui *, struct ui_lost *);

/* The entry for request id, or NULL. */
static struct ui_lost *
lost_find(struct ui *ui, const char *id)
{
	struct ui_lost	*l;

	for (l = ui->lost; l != NULL; l = l->next) {
		if (strcmp(l->id, id) == 0)
			return (l);
	}
	return (NULL);
}

/* Forget one entry. */
static void
lost_remove(struct ui *ui, struct ui_lost *l)
{
	struct ui_lost	**pp;

	for (pp = &ui->lost; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == l) {
			*pp = l->next;
			break;
		}
	}
	free(l->echo);
	free(l);
}

/*
 * The engine went away before it answered the action echo, sent as
 * request id: say so, and find out what became of it.
 */
void
ui_lost_add(struct ui *ui, const char *id, const char *echo)
{
	struct ui_lost	*l;

	if (id == NULL || strlen(id) > ENGINE_REQUEST_ID_LEN ||
	    lost_find(ui, id) != NULL) {
		ui_screen_message(ui, 1, "%s: the engine went away before "
		    "answering", echo);
		return;
	}
	l = xcalloc(1, sizeof *l);
	strlcpy(l->id, id, sizeof l->id);
	l->echo = xstrdup(echo);
	l->lost_at = time_mono_ms();
	l->next = ui->lost;
	ui->lost = l;
	ui_screen_message(ui, 1, "%s: the engine went away before it "
	    "answered; waiting for the engine%s", echo,
	    ui->utf8 ? "\xe2\x80\xa6" : "...");
}

/*
 * The outcome of request id came (r, from the engine's socket or the
 * record): say what became of the action.
 */
void
ui_lost_answer(struct ui *ui, const char *id, const struct engine_reply *r)
{
	struct ui_lost	*l;
	char		*words;

	if ((l = lost_find(ui, id)) == NULL)
		return;
	if (r->outcome == ENGINE_OUTCOME_NONE) {
		/* An engine too old to say, or one that refused to. */
		ui_screen_message(ui, 1, "%s: the engine cannot say what "
		    "became of request %s: %s", l->echo, id,
		    r->message != NULL ? r->message : "no outcome in its "
		    "answer");
		lost_remove(ui, l);
		return;
	}
	words = client_outcome_words(id, r);
	if (r->outcome == ENGINE_OUTCOME_APPLIED && r->code == 0)
		ui_screen_message(ui, 0, "%s: %s (%s)", l->echo,
		    r->message != NULL ? r->message : "done", words);
	else if (r->outcome == ENGINE_OUTCOME_APPLIED)
		ui_screen_message(ui, 1, "%s: %s %s", l->echo, words,
		    r->message != NULL ? r->message : "refused");
	else
		ui_screen_message(ui, 1, "%s: %s", l->echo, words);
	free(words);
	lost_remove(ui, l);
}

/* The connection an outcome was asked on closed first: ask again. */
void
ui_lost_unask(struct ui *ui, const char *id)
{
	struct ui_lost	*l;

	if ((l = lost_find(ui, id)) != NULL)
		l->asking = 0;
}

/*
 * Ask what became of each lost action, by whichever way can tell now
 * (never waiting): the engine's socket when attached, the record when
 * this console is the engine.  Called every second and on attaching.
 */
void
ui_lost_ask(struct ui *ui)
{
	struct ui_lost		*l, *next;
	struct engine_reply	 r;
	char			*cause = NULL;

	for (l = ui->lost; l != NULL; l = next) {
		next = l->next;
		if (l->asking)
			continue;
		if (ui_attach_ready(ui)) {
			ui_attach_outcome(ui, l->id);
			if (ui_attach_ready(ui))
				l->asking = 1;
			continue;
		}
		if (ui->engine != NULL) {
			memset(&r, 0, sizeof r);
			if (engine_request_outcome(ui->store,
			    (int64_t)ui->cfg->actor.uid, l->id, &r,
			    &cause) == 0)
				ui_lost_answer(ui, l->id, &r);
			else {
				ui_screen_message(ui, 1, "%s: what became of "
				    "request %s cannot be read: %s", l->echo,
				    l->id, cause);
				free(cause);
				cause = NULL;
				lost_remove(ui, l);
			}
			engine_reply_clear(&r);
			continue;
		}
		if (time_mono_ms() - l->lost_at >= CLIENT_OUTCOME_WAIT_MS) {
			ui_screen_message(ui, 1, "%s: no engine answered "
			    "within %d s to say whether it applied request %s: "
			    "ask with 'sluice request %s' once it runs",
			    l->echo, CLIENT_OUTCOME_WAIT_MS / 1000, l->id,
			    l->id);
			lost_remove(ui, l);
		}
	}
}

/* Forget them all (the console is closing). */
void
ui_lost_clear(struct ui *ui)
{
	while (ui->lost != NULL)
		lost_remove(ui, ui->lost);
}
