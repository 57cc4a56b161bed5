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
 * action.c: what the console asks the engine for, and the sluice command
 * that does the same, shown in the message line so it can be pasted into
 * a runbook.  Every request carries an id of its own, as every client's
 * does (client_request_id).  When this console is the engine the request
 * is applied in the loop at once; when another process is, it goes over
 * that engine's socket (attach.c), else to the inbox, and the answer is
 * shown when it comes, so the console never waits for it; one the
 * engine's going away lost is asked about by its id (lost.c).
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ui/ui-int.h"

#define ACTION_ANSWER_MS	15000	/* then say the engine is slow */

static void	 action_comment_done(struct ui *, const char *, void *);
static void	 action_confirm_done(struct ui *, const char *, void *);
static void	 action_target(struct ui *, const struct store_step *, char *,
		     size_t);

/* What an action waits on while a prompt or confirmation is open. */
struct action_ask {
	const char	*command;	/* approve reject cancel skip retry */
	int64_t		 workflow_id;
	int64_t		 step_id;
	char		*from;		/* retry --from */
};

/* Free an action_ask (the prompt's free callback). */
static void
action_ask_free(void *arg)
{
	struct action_ask	*a = arg;

	free(a->from);
	free(a);
}

/* Append s quoted for a POSIX shell, only when it needs it. */
void
ui_action_quote(struct buf *b, const char *s)
{
	const char	*p;
	int		 plain = *s != '\0';

	for (p = s; *p != '\0'; p++) {
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_-./:=@%+,", *p) == NULL)
			plain = 0;
	}
	if (plain) {
		buf_puts(b, s);
		return;
	}
	buf_putc(b, '\'');
	for (p = s; *p != '\0'; p++) {
		if (*p == '\'')
			buf_puts(b, "'\\''");
		else
			buf_putc(b, *p);
	}
	buf_putc(b, '\'');
}

/* "sluice [--db PATH] " then the words of a command. */
void
ui_action_echo(struct ui *ui, struct buf *b, const char *words)
{
	buf_puts(b, "sluice ");
	if (ui->cfg->db_arg != NULL) {
		buf_puts(b, "--db ");
		ui_action_quote(b, ui->cfg->db_arg);
		buf_putc(b, ' ');
	}
	buf_puts(b, words);
	ui_messages_command(ui, b->data);
}

/* Show what came of an action: the command, then the engine's answer. */
void
ui_action_answer(struct ui *ui, const char *echo, const struct engine_reply *r)
{
	if (r->code != 0)
		ui_screen_message(ui, 1, "%s: %s", echo, r->message != NULL ?
		    r->message : "refused");
	else if (r->message != NULL)
		ui_screen_message(ui, 0, "%s: %s", echo, r->message);
	else
		ui_screen_message(ui, 0, "%s: done", echo);
}

/*
 * Ask the engine (args is consumed), with a request id of its own.
 * Here: applied now.  Elsewhere: over its socket (else to the inbox),
 * answered later; an answer the engine's going away lost is asked about
 * (lost.c).  None at all (this console could not take the lock, e.g. a
 * command is applying itself): the blocking way, which is brief then.
 */
void
ui_action_send(struct ui *ui, const char *command, int64_t wf, int64_t step,
    cJSON *args, const char *echo)
{
	struct engine_request	 q;
	struct engine_reply	 r;
	struct ui_pending	*p;
	char			*cause = NULL, rid[ENGINE_REQUEST_ID_LEN + 1];
	int64_t			 id;

	memset(&q, 0, sizeof q);
	memset(&r, 0, sizeof r);
	client_request_id(&q, rid);	/* as every client's request has */
	q.command = command;
	q.workflow_id = wf;
	q.step_id = step;
	q.args_json = json_print(args);
	q.secret = cJSON_GetObjectItemCaseSensitive(args, "secret_input") !=
	    NULL;
	cJSON_Delete(args);
	if (ui->engine != NULL) {
		engine_request_apply(ui->engine, &ui->cfg->actor, &q, &r);
		ui_action_answer(ui, echo, &r);
	} else if (ui_attach_ready(ui) || ui_attach_open(ui) == 0) {
		ui_attach_send(ui, &q, echo);
	} else if (ui->readonly) {
		ui_screen_message(ui, 1, "%s: no engine answers and the "
		    "database is not yours to write: start its engine "
		    "(systemctl start sluice-engine)", echo);
	} else if (ui->lease.pid != 0 && q.secret) {
		/* The inbox is the shared database: never there. */
		ui_screen_message(ui, 1, "%s: secret inputs reach the engine "
		    "only over its socket, which does not answer", echo);
	} else if (ui->lease.pid != 0) {
		if (client_post(ui->store, &ui->cfg->actor, &q, &id,
		    &cause) != 0) {
			ui_screen_message(ui, 1, "%s: %s", echo, cause);
			free(cause);
		} else {
			p = xcalloc(1, sizeof *p);
			p->inbox_id = id;
			p->echo = xstrdup(echo);
			p->sent_at = time_mono_ms();
			p->next = ui->pending;
			ui->pending = p;
			ui_screen_message(ui, 0, "%s: sent to the engine",
			    echo);
		}
	} else if (client_submit(ui->store, ui->cfg->tools, &ui->cfg->opts,
	    &ui->cfg->actor, &q, &r, &cause) != 0) {
		ui_screen_message(ui, 1, "%s: %s", echo, cause);
		free(cause);
	} else
		ui_action_answer(ui, echo, &r);
	engine_reply_clear(&r);
	if (q.secret)
		explicit_bzero((char *)q.args_json, strlen(q.args_json));
	free((char *)q.args_json);
}

/* Pick up the engine's answers to what this console sent. */
void
ui_action_poll(struct ui *ui)
{
	struct ui_pending	**pp, *p;
	struct store_inbox	*got;
	struct engine_reply	 r;
	char			*cause = NULL;
	int			 done;

	for (pp = &ui->pending; (p = *pp) != NULL;) {
		done = ui->quit;
		if (!done && store_inbox_get(ui->store, p->inbox_id, &got,
		    &cause) == 0) {
			if (strcmp(got->state, "new") != 0) {
				memset(&r, 0, sizeof r);
				if (engine_reply_read(got->reply, &r) == 0)
					ui_action_answer(ui, p->echo, &r);
				engine_reply_clear(&r);
				done = 1;
			} else if (time_mono_ms() - p->sent_at >
			    ACTION_ANSWER_MS) {
				ui_screen_message(ui, 1, "%s: no answer from "
				    "the engine yet; it stays queued", p->echo);
				done = 1;
			}
			store_inbox_free(got);
		} else if (!done) {
			free(cause);
			cause = NULL;
			done = 1;
		}
		if (done) {
			*pp = p->next;
			free(p->echo);
			free(p);
		} else
			pp = &p->next;
	}
}

/* A comment was typed (or the prompt cancelled): send the action. */
static void
action_comment_done(struct ui *ui, const char *text, void *arg)
{
	struct action_ask	*a = arg;
	struct buf		 words, echo;
	cJSON			*args;
	int64_t			 id;

	if (text == NULL) {
		ui_screen_message(ui, 0, "%s: not sent", a->command);
		return;
	}
	if (!authority_has_reason(text) && strcmp(a->command, "approve") != 0 &&
	    strcmp(a->command, "cancel") != 0) {
		ui_screen_message(ui, 1, "%s: a reason is required; not sent",
		    a->command);
		return;
	}
	id = a->step_id != 0 ? a->step_id : a->workflow_id;
	buf_init(&words);
	buf_printf(&words, "%s %lld", a->command, (long long)id);
	args = cJSON_CreateObject();
	if (*text != '\0') {
		cJSON_AddStringToObject(args, "comment", text);
		buf_puts(&words, " -m ");
		ui_action_quote(&words, text);
	}
	buf_init(&echo);
	ui_action_echo(ui, &echo, words.data);
	ui_action_send(ui, a->command, a->workflow_id, a->step_id, args,
	    echo.data);
	buf_free(&words);
	buf_free(&echo);
}

/*
 * What a prompt acts on, whole: "workflow 6 rolling-restart, step restart
 * before batch 2 of 3 (step 44)", so two runs of one template at the
 * same gate never read the same.
 */
static void
action_target(struct ui *ui, const struct store_step *s, char *buf,
    size_t len)
{
	struct store_workflow	*w = NULL;
	char			*cause = NULL;

	if (store_workflow_get(ui->store, s->workflow_id, &w, &cause) != 0)
		free(cause);
	snprintf(buf, len, "workflow %lld %s, step %s%s%s (step %lld)",
	    (long long)s->workflow_id, w != NULL ? w->name : "?", s->name,
	    s->label != NULL ? " " : "", s->label != NULL ? s->label : "",
	    (long long)s->id);
	if (w != NULL)
		store_workflow_free(w);
}

/* y and n: check the step is a waiting gate, then ask for the comment. */
void
ui_action_approve(struct ui *ui, int64_t step, int approve)
{
	struct store_step	*s;
	struct action_ask	*a;
	char			*cause = NULL, prompt[512], target[384];

	if (step == 0 || store_step_get(ui->store, step, &s, &cause) != 0) {
		free(cause);
		ui_screen_message(ui, 1, "no gate selected");
		return;
	}
	if (s->status != STEP_WAITING) {
		ui_screen_message(ui, 1, "step %lld (%s) is %s, not a waiting "
		    "gate", (long long)step, s->name,
		    status_step_name(s->status));
		store_step_free(s);
		return;
	}
	a = xcalloc(1, sizeof *a);
	a->command = approve ? "approve" : "reject";
	a->step_id = step;
	a->workflow_id = s->workflow_id;
	action_target(ui, s, target, sizeof target);
	snprintf(prompt, sizeof prompt, approve ?
	    "approve %s - comment, optional: " :
	    "reject %s - reason, required: ", target);
	store_step_free(s);
	ui_prompt_open(ui, prompt, NULL, 0, action_comment_done, a,
	    action_ask_free);
}

/* s: skip a step (a reason is required). */
void
ui_action_skip(struct ui *ui, int64_t step)
{
	struct store_step	*s;
	struct action_ask	*a;
	char			*cause = NULL, prompt[512], target[384];

	if (step == 0 || store_step_get(ui->store, step, &s, &cause) != 0) {
		free(cause);
		ui_screen_message(ui, 1, "no step selected");
		return;
	}
	a = xcalloc(1, sizeof *a);
	a->command = "skip";
	a->step_id = step;
	a->workflow_id = s->workflow_id;
	action_target(ui, s, target, sizeof target);
	snprintf(prompt, sizeof prompt, "skip %s, %s - reason, required: ",
	    target, status_step_name(s->status));
	store_step_free(s);
	ui_prompt_open(ui, prompt, NULL, 0, action_comment_done, a,
	    action_ask_free);
}

/* A yes/no question was answered: send the action it asked about. */
static void
action_confirm_done(struct ui *ui, const char *answer, void *arg)
{
	struct action_ask	*a = arg;
	struct buf		 words, echo;
	cJSON			*args;

	if (answer == NULL || *answer != 'y') {
		ui_screen_message(ui, 0, "%s: not sent", a->command);
		return;
	}
	buf_init(&words);
	if (a->step_id != 0) {
		/* One for-each item, as cancel --step sends it. */
		buf_printf(&words, "%s --step %lld", a->command,
		    (long long)a->step_id);
		buf_init(&echo);
		ui_action_echo(ui, &echo, words.data);
		ui_action_send(ui, a->command, 0, a->step_id,
		    cJSON_CreateObject(), echo.data);
		buf_free(&words);
		buf_free(&echo);
		return;
	}
	buf_printf(&words, "%s %lld", a->command, (long long)a->workflow_id);
	args = cJSON_CreateObject();
	if (a->from != NULL) {
		cJSON_AddStringToObject(args, "from", a->from);
		buf_puts(&words, " --from ");
		ui_action_quote(&words, a->from);
	}
	buf_init(&echo);
	ui_action_echo(ui, &echo, words.data);
	ui_action_send(ui, a->command, a->workflow_id, 0, args, echo.data);
	buf_free(&words);
	buf_free(&echo);
}

/*
 * c on a for-each item that has not ended: cancel that item alone (as
 * cancel --step does), after a confirmation that names it.  0 when step
 * is no such item.
 */
static int
action_cancel_item(struct ui *ui, int64_t step)
{
	struct store_step	*s;
	struct action_ask	*a;
	char			*cause = NULL, q[512], target[384];

	if (step == 0 || store_step_get(ui->store, step, &s, &cause) != 0) {
		free(cause);
		return (0);
	}
	if (s->item_of == 0 || s->item_index < 0 ||
	    status_step_ended(s->status)) {
		store_step_free(s);
		return (0);
	}
	a = xcalloc(1, sizeof *a);
	a->command = "cancel";
	a->workflow_id = s->workflow_id;
	a->step_id = step;
	action_target(ui, s, target, sizeof target);
	snprintf(q, sizeof q, "Cancel item %s of %s? Its process is killed; "
	    "it counts as a failed item, the rest goes on. y/n ",
	    s->label != NULL ? s->label : "?", target);
	store_step_free(s);
	ui_confirm_open(ui, q, "yn", action_confirm_done, a, action_ask_free);
	return (1);
}

/*
 * c: cancel, after a confirmation that names the run; on a for-each item
 * that has not ended (step), only that item.
 */
void
ui_action_cancel(struct ui *ui, int64_t wf, int64_t step)
{
	struct store_workflow	*w;
	struct action_ask	*a;
	char			*cause = NULL, q[256];

	if (action_cancel_item(ui, step))
		return;
	if (store_workflow_get(ui->store, wf, &w, &cause) != 0) {
		ui_screen_message(ui, 1, "%s", cause);
		free(cause);
		return;
	}
	a = xcalloc(1, sizeof *a);
	a->command = "cancel";
	a->workflow_id = wf;
	/* In the words the header and lists use: "waiting", not "running". */
	snprintf(q, sizeof q, "Cancel workflow %lld %s (%s)? No more of its "
	    "steps start%s. y/n ", (long long)wf, w->name,
	    state_name(store_workflow_state(w)), w->status == RUN_RUNNING ?
	    "; any step still running is killed" : "");
	store_workflow_free(w);
	ui_confirm_open(ui, q, "yn", action_confirm_done, a, action_ask_free);
}

/* R: retry, after showing which steps will run again. */
void
ui_action_retry(struct ui *ui, int64_t wf, const char *from)
{
	struct action_ask	*a;
	struct buf		 q;
	char			*cause = NULL;

	buf_init(&q);
	if (engine_retry_preview(ui->store, wf, from, &q, &cause) != 0) {
		ui_screen_message(ui, 1, "%s", cause);
		free(cause);
		buf_free(&q);
		return;
	}
	a = xcalloc(1, sizeof *a);
	a->command = "retry";
	a->workflow_id = wf;
	a->from = from != NULL ? xstrdup(from) : NULL;
	buf_puts(&q, " Retry? y/n ");
	ui_confirm_open(ui, q.data, "yn", action_confirm_done, a,
	    action_ask_free);
	buf_free(&q);
}

/* p: pause a running workflow, resume a paused one. */
void
ui_action_pause(struct ui *ui, int64_t wf)
{
	struct store_workflow	*w;
	struct buf		 words, echo;
	const char		*command;
	char			*cause = NULL;

	if (store_workflow_get(ui->store, wf, &w, &cause) != 0) {
		ui_screen_message(ui, 1, "%s", cause);
		free(cause);
		return;
	}
	command = w->paused ? "resume" : "pause";
	store_workflow_free(w);
	buf_init(&words);
	buf_printf(&words, "%s %lld", command, (long long)wf);
	buf_init(&echo);
	ui_action_echo(ui, &echo, words.data);
	ui_action_send(ui, command, wf, 0, cJSON_CreateObject(), echo.data);
	buf_free(&words);
	buf_free(&echo);
}

/* Forget answers still awaited (the console is closing). */
void
ui_action_clear(struct ui *ui)
{
	struct ui_pending	*p;

	while ((p = ui->pending) != NULL) {
		ui->pending = p->next;
		free(p->echo);
		free(p);
	}
}
