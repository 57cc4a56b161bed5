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
 * keys.c: the key table.  One row per key and the views it works in; the
 * footer, the help view and the KEYS section of sluice(1) are all this
 * table (a test holds the man page to it).  A key goes first to the
 * overlay on top (a prompt takes every key), then to the page's own
 * handler (moving, Enter), then to this table.
 */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"
#include "ui/curses-lib.h"

#define V(k)		VIEW_BIT(VIEW_ ## k)
#define NAV		(VIEW_PAGES | V(HELP))

static void	 key_help(struct ui *, struct view *);
static void	 key_command(struct ui *, struct view *);
static void	 key_filter(struct ui *, struct view *);
static void	 key_view(struct ui *, struct view *);
static void	 key_back(struct ui *, struct view *);
static void	 key_redraw(struct ui *, struct view *);
static void	 key_approve(struct ui *, struct view *);
static void	 key_reject(struct ui *, struct view *);
static void	 key_cancel(struct ui *, struct view *);
static void	 key_retry(struct ui *, struct view *);
static void	 key_skip(struct ui *, struct view *);
static void	 key_pause(struct ui *, struct view *);
static void	 key_run(struct ui *, struct view *);
static void	 key_edit(struct ui *, struct view *);
static void	 key_versions(struct ui *, struct view *);
static void	 key_messages(struct ui *, struct view *);
static void	 key_copy(struct ui *, struct view *);
static void	 key_run_diff(struct ui *, struct view *);
static void	 key_timeline(struct ui *, struct view *);
static void	 key_log(struct ui *, struct view *);
static void	 key_follow(struct ui *, struct view *);
static void	 key_suspend(struct ui *, struct view *);
static int	 key_target(struct ui *, struct view *, int64_t *, int64_t *);

static int	 key_pressed;	/* the key being dispatched */

const struct ui_key ui_keys[] = {
	{ 'j', "j Down", NAV, NULL, "move down", NULL },
	{ 'k', "k Up", NAV, NULL, "move up", NULL },
	{ KEY_FN(KEY_NPAGE), "PgDn Space", NAV, NULL, "a page down", NULL },
	{ KEY_FN(KEY_PPAGE), "PgUp", NAV, NULL, "a page up", NULL },
	{ 'g', "g Home", NAV, NULL, "to the first row", NULL },
	{ 'G', "G End", NAV, NULL, "to the last row", NULL },
	{ K_ENTER, "Enter", VIEW_TOPS | V(RUN), "open",
	    "open: a workflow's run view, a step's details, a gate's "
	    "detail, a collapsed fan-out", NULL },
	{ 'q', "q", VIEW_PAGES | V(HELP), "back",
	    "back; on a top view, quit (asks first when this console runs "
	    "the engine and steps are running)", key_back },
	{ K_ESC, "Esc", VIEW_PAGES | V(HELP), NULL, "back (clears a filter "
	    "first)", key_back },
	{ '?', "?", VIEW_PAGES, "help", "this help", key_help },
	{ '/', "/", VIEW_PAGES & ~(V(DIFF) | V(STEP)), "filter", "filter the "
	    "list as you type (the log: search); Enter keeps it, Esc clears "
	    "it and puts the cursor back", key_filter },
	{ ':', ":", VIEW_PAGES, NULL, "command line: :workflows :gates "
	    ":templates :schedules :audit :run NAME :versions NAME :open ID "
	    ":q (Tab completes names, again for the next one)", key_command },
	{ '1', "1", VIEW_PAGES, NULL, "the Workflows view", key_view },
	{ '2', "2", VIEW_PAGES, NULL, "the Gates view", key_view },
	{ '3', "3", VIEW_PAGES, NULL, "the Templates view", key_view },
	{ '4', "4", VIEW_PAGES, NULL, "the Schedules view", key_view },
	{ '5', "5", VIEW_PAGES, NULL, "the Audit view", key_view },
	{ 'y', "y", V(GATES) | V(RUN) | V(STEP), "approve",
	    "approve the gate (an optional comment)", key_approve },
	{ 'n', "n", V(GATES) | V(RUN) | V(STEP), "reject",
	    "reject the gate (a comment is required)", key_reject },
	{ 'n', "n", V(LOG), "next", "the next match of the search",
	    NULL },
	{ 'N', "N", V(LOG), NULL, "the previous match of the search", NULL },
	{ '<', "< Left", V(LOG), NULL, "scroll the log sideways to the left",
	    NULL },
	{ '>', "> Right", V(LOG), NULL, "scroll the log sideways to the "
	    "right", NULL },
	{ 'c', "c", V(WORKFLOWS) | V(RUN) | V(GATES), "cancel",
	    "cancel the workflow (asks first); on a for-each item that has "
	    "not ended, only that item", key_cancel },
	{ 'R', "R", V(WORKFLOWS) | V(RUN), "retry", "retry the workflow "
	    "from its failed steps, or in the run view from the selected "
	    "step (shows which steps run again and asks)", key_retry },
	{ 's', "s", V(RUN) | V(STEP) | V(GATES), "skip",
	    "skip the step: it counts as done with result null (a reason "
	    "is required)", key_skip },
	{ 'p', "p", V(WORKFLOWS) | V(RUN) | V(SCHEDULES), "pause",
	    "pause or resume the workflow (or the schedule)", key_pause },
	{ 'r', "r", V(TEMPLATES) | V(WORKFLOWS) | V(SCHEDULES), "run",
	    "run a template through a form of its inputs, each with its "
	    "type and rule beside it (Space chooses from a list or flips a "
	    "toggle; a refused value is shown under its field; RUN BY says "
	    "who may) (Workflows: the selected run's template and input; "
	    "Schedules: fire now); a secret input shows a * for each "
	    "character typed, is never filled in from an earlier run and is "
	    "sent apart (-i KEY=@-)",
	    key_run },
	{ 'd', "d", V(SCHEDULES), "delete", "delete the schedule (asks "
	    "first)", NULL },
	{ 'e', "e", V(TEMPLATES), "edit", "edit the template in $VISUAL or "
	    "$EDITOR (the engine keeps running)", key_edit },
	{ 'v', "v", V(TEMPLATES), "versions", "the template's versions, "
	    "with who saved them and how their runs went", key_versions },
	{ K_ENTER, "Enter", V(VERSIONS), "diff", "what the version changed "
	    "from the one before it", NULL },
	{ 'd', "d", V(VERSIONS), "diff to latest", "what changed from the "
	    "version to the latest", NULL },
	{ 'D', "D", V(STEP), NULL, "what the run's template changed since "
	    "the version that last ran to completion", key_run_diff },
	{ 't', "t", V(RUN), "timeline", "the run's timeline (a Gantt chart) "
	    "on or off", key_timeline },
	{ 'l', "l", V(RUN) | V(STEP), "log", "the step's log in a pager",
	    key_log },
	{ 'f', "f", V(RUN) | V(LOG), "follow", "follow the running or "
	    "failing step (the log: its end)", key_follow },
	{ 'm', "m", VIEW_PAGES, NULL, "every message of this session, in "
	    "full (also :messages)", key_messages },
	{ 'Y', "Y", VIEW_PAGES, NULL, "copy the last echoed command to the "
	    "clipboard (OSC 52; also :copy)", key_copy },
	{ K_CTRL('L'), "C-l", VIEW_PAGES | V(HELP), NULL, "redraw the screen",
	    key_redraw },
	{ K_CTRL('C'), "C-c", VIEW_PAGES | V(HELP), NULL, "quit (as q on a "
	    "top view)", key_back },
	{ K_CTRL('Z'), "C-z", VIEW_PAGES | V(HELP), NULL, "suspend, when "
	    "another process runs the engine", key_suspend },
};
const size_t ui_nkeys = nitems(ui_keys);

/* A key's name for messages. */
const char *
ui_keys_name(int key, char *buf, size_t len)
{
	size_t	 i;

	for (i = 0; i < ui_nkeys; i++) {
		if (ui_keys[i].key == key) {
			snprintf(buf, len, "%s", ui_keys[i].label);
			return (buf);
		}
	}
	if (key >= 0x20 && key < 0x7f)
		snprintf(buf, len, "%c", key);
	else if (key >= 0 && key < 0x20)
		snprintf(buf, len, "C-%c", key + 0x60);
	else
		snprintf(buf, len, "#%x", (unsigned)key);
	return (buf);
}

/*
 * The footer's keys, most important first: what acts on the selected
 * row, then moving between pages; keys not named here follow in table
 * order, and "? help" always ends the line.
 */
static const int footer_order[] = {
	K_ENTER, 'y', 'n', 'R', 'c', 's', 'p', 'r', 'e', 'v', 'd', 'D', 'l',
	'f', 't', '/', 'q'
};

/*
 * The run keys by the run's status, as the engine would answer them:
 * retry by the engine's own rule (flow_retry_refusal), or a running
 * run's failed for-each items; pause or resume a running one; cancel one
 * that has not ended.  A queued or scheduled run can only be cancelled.
 */
static int
key_works_run(struct view *page, int key)
{
	enum run_status	 st;
	char		*why = NULL;
	int		 known, started, ok;

	switch (page->ops->kind) {
	case VIEW_WORKFLOWS:
		known = ui_workflows_status(page, &st, &started);
		break;
	case VIEW_RUN:
		known = ui_run_status(page, &st, &started);
		break;
	default:
		return (1);
	}
	if (!known)
		return (0);
	switch (key) {
	case 'R':
		if (st == RUN_RUNNING)
			return (1);
		ok = flow_retry_refusal(0, st, started, &why) == 0;
		free(why);
		return (ok);
	case 'p':
		return (st == RUN_RUNNING);
	default:
		return (st == RUN_RUNNING || st == RUN_QUEUED ||
		    st == RUN_SCHEDULED);
	}
}

/*
 * Whether a key does something on the page as it is now: y and n only on
 * a waiting gate, s only on a failed or waiting step.  Keys not named
 * here always do.
 */
static int
key_works(struct view *page, int key)
{
	enum step_status	 st;
	int			 gate, known;

	if (key == 'R' || key == 'p' || key == 'c')
		return (key_works_run(page, key));
	if (key != 'y' && key != 'n' && key != 's')
		return (1);
	switch (page->ops->kind) {
	case VIEW_GATES:
		return (1);
	case VIEW_RUN:
		known = ui_run_state(page, &st, &gate);
		break;
	case VIEW_STEP:
		known = ui_step_state(page, &st, &gate);
		break;
	default:
		return (1);
	}
	if (!known)
		return (0);
	if (key == 's')
		return (st == STEP_FAILED || st == STEP_WAITING);
	return (gate && st == STEP_WAITING);
}

/* Whether key i is in the footer of a page, as the page is now. */
static int
key_in_footer(struct view *page, size_t i)
{
	return (ui_keys[i].footer != NULL &&
	    (ui_keys[i].views & VIEW_BIT(page->ops->kind)) &&
	    key_works(page, ui_keys[i].key));
}

/* Add key i to the footer if it fits in cols, keeping room for "? ...". */
static void
key_footer_add(struct buf *b, size_t i, int cols, int *full)
{
	char	*item;
	int	 w;

	if (*full)
		return;
	xasprintf(&item, "%s%s %s", b->len > 0 ? "  " : "", ui_keys[i].label,
	    ui_keys[i].footer);
	w = ui_draw_width(b->data != NULL ? b->data : "") +
	    ui_draw_width(item);
	if (w + (int)strlen("  ? more keys") > cols)
		*full = 1;
	else
		buf_puts(b, item);
	free(item);
}

/*
 * The footer: the keys that work on the view on top as it is now, most
 * important first, as many as fit, then "? help" (or "? more keys" when
 * some did not fit).
 */
void
ui_keys_footer(struct ui *ui, struct view *v, struct buf *b)
{
	struct view	*page = ui_view_page(ui);
	size_t		 i, k;
	int		 full = 0, listed;

	if (v != NULL && v->ops->overlay) {
		if (v->ops->kind == VIEW_PROMPT)
			ui_prompt_footer(v, b);
		else if (v->ops->kind == VIEW_FORM)
			ui_form_footer(v, b);
		else
			buf_puts(b, "j/k scroll  q/Esc/? close");
		return;
	}
	if (v != NULL && v->ops->kind == VIEW_HELP) {
		ui_help_footer(v, b);
		return;
	}
	if (page == NULL)
		return;
	for (k = 0; k < nitems(footer_order); k++) {
		for (i = 0; i < ui_nkeys; i++) {
			if (ui_keys[i].key == footer_order[k] &&
			    key_in_footer(page, i))
				key_footer_add(b, i, ui->cols, &full);
		}
	}
	for (i = 0; i < ui_nkeys; i++) {
		if (ui_keys[i].key == '?' || !key_in_footer(page, i))
			continue;
		for (listed = 0, k = 0; k < nitems(footer_order); k++)
			listed |= ui_keys[i].key == footer_order[k];
		if (!listed)
			key_footer_add(b, i, ui->cols, &full);
	}
	buf_printf(b, "%s%s", b->len > 0 ? "  " : "",
	    full ? "? more keys" : "? help");
}

/* Hand a key to the overlay, then the page, then the table. */
void
ui_keys_dispatch(struct ui *ui, int key)
{
	struct view	*v = ui->top, *page;
	unsigned int	 bit;
	size_t		 i;
	char		 name[32];

	if (key == '\n' || key == KEY_FN(KEY_ENTER))
		key = K_ENTER;
	if (key == 8 || key == KEY_FN(KEY_BACKSPACE))
		key = K_BS;
	if (v == NULL)
		return;
	if (ui->message_whole) {	/* read: back to one line */
		ui->message_whole = 0;
		ui_dirty(ui);
	}
	if (ui->too_small && key != 'q' && key != K_CTRL('C') &&
	    key != K_CTRL('L'))
		return;
	if (v->ops->overlay || v->ops->kind == VIEW_HELP) {
		if (v->ops->key != NULL && v->ops->key(ui, v, key))
			return;
	} else if (v->ops->key != NULL && v->ops->key(ui, v, key))
		return;
	page = ui_view_page(ui);
	bit = VIEW_BIT(ui->top->ops->kind);
	for (i = 0; i < ui_nkeys; i++) {
		if (ui_keys[i].key != key || !(ui_keys[i].views & bit) ||
		    ui_keys[i].fn == NULL)
			continue;
		key_pressed = key;
		ui_keys[i].fn(ui, ui->top);
		return;
	}
	if (page != NULL)
		ui_screen_message(ui, 0, "%s does nothing here (? lists the "
		    "keys)", ui_keys_name(key, name, sizeof name));
}

/* ?: the help view. */
static void
key_help(struct ui *ui, struct view *v)
{
	(void)v;
	ui_view_push(ui, &ui_view_help, NULL);
}

/* :: the command line. */
static void
key_command(struct ui *ui, struct view *v)
{
	(void)v;
	ui_command_open(ui);
}

/* The filter as it is typed: the page narrows with each character. */
static void
key_filter_typed(struct ui *ui, const char *text, void *arg)
{
	ui_view_set_filter(ui, arg, text);
}

/* Enter keeps the filter; Esc (text NULL) clears it. */
static void
key_filter_done(struct ui *ui, const char *text, void *arg)
{
	struct view	*v = arg;

	ui_view_set_filter(ui, v, text);
	if (text != NULL && *text != '\0')
		ui_screen_message(ui, 0, "filter: %s (Esc clears)", text);
	else
		ui_screen_message(ui, 0, NULL);
}

/*
 * /: filter the page's rows as the text is typed, as htop and k9s do (a
 * log searches instead, from hit to hit as the term grows).
 */
static void
key_filter(struct ui *ui, struct view *v)
{
	ui_prompt_open(ui, v->ops->kind == VIEW_LOG ? "search: " : "filter: ",
	    v->filter, 0, key_filter_done, v, NULL);
	ui_prompt_live(ui, key_filter_typed);
}

/* 1-5: the top views. */
static void
key_view(struct ui *ui, struct view *v)
{
	(void)v;
	ui_view_switch(ui, (enum view_kind)(key_pressed - '1'));
}

/*
 * Take the quit confirmation.  Enter or y (the default) keeps the work
 * running headless; w stops starting steps and quits once the running
 * ones end; i interrupts them; n or anything else stays.
 */
static void
key_quit_done(struct ui *ui, const char *answer, void *arg)
{
	(void)arg;
	if (answer == NULL || *answer == 'n')
		return;
	switch (*answer) {
	case 'w':
		ui->quit_wait = 1;
		engine_shutdown(ui->engine, 0);
		ui_screen_message(ui, 0, "stopping: quitting when the running "
		    "steps have ended (no new ones start)");
		return;
	case 'i':
		break;
	default:
		ui->headless = 1;
		break;
	}
	ui_quit(ui);
}

/* q, Esc: clear the filter, go back, or quit from a top view. */
static void
key_back(struct ui *ui, struct view *v)
{
	char	 q[256];
	int	 n;

	if (key_pressed == K_ESC && v->filter != NULL) {
		ui_view_set_filter(ui, v, NULL);
		ui_screen_message(ui, 0, NULL);
		return;
	}
	if (v->below != NULL) {
		ui_view_pop(ui);
		return;
	}
	if (key_pressed == K_ESC)
		return;
	if (ui->engine == NULL || (n = engine_nrunning(ui->engine)) == 0) {
		ui_quit(ui);
		return;
	}
	snprintf(q, sizeof q, "This console runs the engine and %d step%s "
	    "running.  Enter/y: quit, the work goes on headless (its log: "
	    "DB.engine.log)  w: start nothing new, quit when they end  "
	    "i: interrupt them and quit  n: stay", n,
	    n == 1 ? " is" : "s are");
	ui_confirm_open(ui, q, "\rywin", key_quit_done, NULL, NULL);
}

/* Quit as q on a top view does (the :q command). */
void
ui_keys_dispatch_quit(struct ui *ui)
{
	while (ui->top->below != NULL)
		ui_view_pop(ui);
	key_pressed = 'q';
	key_back(ui, ui->top);
}

/* Ctrl-L: repaint every cell. */
static void
key_redraw(struct ui *ui, struct view *v)
{
	(void)v;
	clearok(curscr, TRUE);
	ui_dirty(ui);
}

/* Ctrl-Z: suspend only when the engine runs elsewhere. */
static void
key_suspend(struct ui *ui, struct view *v)
{
	(void)v;
	if (ui->engine != NULL) {
		ui_screen_message(ui, 1, "not suspending: this console runs "
		    "the engine, which would stop too (q quits)");
		return;
	}
	ui_term_suspend(ui);
	kill(0, SIGTSTP);
	ui_term_resume(ui);
}

/* The workflow and step the page's cursor is on; 0 if none. */
static int
key_target(struct ui *ui, struct view *v, int64_t *wf, int64_t *step)
{
	*wf = *step = 0;
	switch (v->ops->kind) {
	case VIEW_WORKFLOWS:
		*wf = ui_workflows_selected(v);
		break;
	case VIEW_GATES:
		ui_gates_selected(v, wf, step);
		break;
	case VIEW_RUN:
		ui_run_selected(v, wf, step);
		break;
	case VIEW_STEP:
		ui_step_selected(v, wf, step);
		break;
	case VIEW_AUDIT:
		*wf = ui_audit_selected(v);
		break;
	default:
		break;
	}
	if (*wf == 0 && *step == 0) {
		ui_screen_message(ui, 1, "nothing selected");
		return (0);
	}
	return (1);
}

/* y: approve the selected gate. */
static void
key_approve(struct ui *ui, struct view *v)
{
	int64_t	 wf, step;

	if (key_target(ui, v, &wf, &step))
		ui_action_approve(ui, step, 1);
}

/* n: reject the selected gate. */
static void
key_reject(struct ui *ui, struct view *v)
{
	int64_t	 wf, step;

	if (key_target(ui, v, &wf, &step))
		ui_action_approve(ui, step, 0);
}

/* c: cancel the selected workflow, or in a run the for-each item. */
static void
key_cancel(struct ui *ui, struct view *v)
{
	int64_t	 wf, step;

	if (key_target(ui, v, &wf, &step))
		ui_action_cancel(ui, wf, v->ops->kind == VIEW_RUN ||
		    v->ops->kind == VIEW_STEP ? step : 0);
}

/* R: retry the workflow (in a run view, from the selected step). */
static void
key_retry(struct ui *ui, struct view *v)
{
	int64_t	 wf, step;

	if (key_target(ui, v, &wf, &step))
		ui_action_retry(ui, wf, v->ops->kind == VIEW_RUN ?
		    ui_run_retry_from(v) : NULL);
}

/* s: skip the selected step. */
static void
key_skip(struct ui *ui, struct view *v)
{
	int64_t	 wf, step;

	if (key_target(ui, v, &wf, &step))
		ui_action_skip(ui, step);
}

/* p: pause or resume the workflow, or the schedule. */
static void
key_pause(struct ui *ui, struct view *v)
{
	int64_t	 wf, step;

	if (key_target(ui, v, &wf, &step))
		ui_action_pause(ui, wf);
}

/* r: the run form (Schedules: fire the schedule now). */
static void
key_run(struct ui *ui, struct view *v)
{
	const char	*name;
	int64_t		 wf;

	if (v->ops->kind == VIEW_WORKFLOWS) {
		if ((wf = ui_workflows_selected(v)) == 0) {
			ui_screen_message(ui, 1, "nothing selected");
			return;
		}
		ui_form_open_again(ui, wf);
		return;
	}
	if ((name = ui_templates_selected(v)) == NULL) {
		ui_screen_message(ui, 1, "no template selected");
		return;
	}
	ui_form_open(ui, name, NULL);
}

/* e: edit the selected template. */
static void
key_edit(struct ui *ui, struct view *v)
{
	const char	*name;

	if ((name = ui_templates_selected(v)) == NULL) {
		ui_screen_message(ui, 1, "no template selected");
		return;
	}
	ui_edit_open(ui, name);
}

/* t: the timeline. */
static void
key_timeline(struct ui *ui, struct view *v)
{
	ui_run_toggle_timeline(v);
	ui_dirty(ui);
}

/* l: the selected step's log. */
static void
key_log(struct ui *ui, struct view *v)
{
	int64_t	 wf, step;

	if (!key_target(ui, v, &wf, &step))
		return;
	if (step == 0) {
		ui_screen_message(ui, 1, "no step selected");
		return;
	}
	ui_pager_open(ui, step);
}

/* f: follow (the run view's active step, or the log's end). */
static void
key_follow(struct ui *ui, struct view *v)
{
	if (v->ops->kind == VIEW_LOG)
		v->ops->key(ui, v, 'F');
	else
		ui_run_follow(ui, v);
}

/* v: the selected template's versions. */
static void
key_versions(struct ui *ui, struct view *v)
{
	const char	*name;

	if ((name = ui_templates_selected(v)) == NULL) {
		ui_screen_message(ui, 1, "no template selected");
		return;
	}
	ui_versions_open(ui, name);
}

/* D: what the run's template changed since its last completed version. */
static void
key_run_diff(struct ui *ui, struct view *v)
{
	int64_t	 wf, step;

	if (!ui_step_selected(v, &wf, &step)) {
		ui_screen_message(ui, 1, "no step selected");
		return;
	}
	ui_versions_run_diff(ui, wf);
}

/* m: the message history. */
static void
key_messages(struct ui *ui, struct view *v)
{
	(void)v;
	ui_messages_open(ui);
}

/* Y: the last echoed command to the clipboard. */
static void
key_copy(struct ui *ui, struct view *v)
{
	(void)v;
	ui_messages_copy(ui);
}
