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
 * schedules.c: view 4, the recurring schedules: cron, template, when each
 * last fired and how that run went, when it fires next (counting down).
 * p pauses or resumes one, r fires it now, d deletes it; each goes to the
 * engine like the sluice schedule commands it echoes.
 */

#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sched/sched.h"
#include "ui/ui-int.h"

struct schedules {
	struct ui_list		 list;
	struct store_schedule	*all;
	size_t			 nall;
	int			*shown;		/* indexes into all, filtered */
	char			 last[96], next[96], state[24];
	char			 cron[400];	/* with its zone */
};

static void	 schedules_load(struct ui *, struct view *);
static void	 schedules_draw(struct ui *, struct view *, int, int);
static int	 schedules_key(struct ui *, struct view *, int);
static void	 schedules_free(struct view *);
static int	 schedules_tick(struct ui *, struct view *);
static void	 schedules_row(struct ui *, void *, int, const char **,
		     enum ui_paint *, enum ui_paint *);
static void	 schedules_send(struct ui *, const char *, const char *,
		     const char *);

const struct view_ops ui_view_schedules = {
	.kind = VIEW_SCHEDULES,
	.title = "Schedules",
	.load = schedules_load,
	.draw = schedules_draw,
	.key = schedules_key,
	.free = schedules_free,
	.tick = schedules_tick,
	.cursor_at = offsetof(struct schedules, list),
	.cursor_size = sizeof (struct ui_list)
};

/* Read the schedules, keep the cursor's one. */
static void
schedules_load(struct ui *ui, struct view *v)
{
	struct schedules		*s = v->data;
	const struct store_schedule	*sc;
	char				*cause = NULL;
	int64_t				 sel = 0;
	size_t				 i;
	int				 n = 0;

	if (s == NULL)
		s = v->data = xcalloc(1, sizeof *s);
	else if (s->list.n > 0)
		sel = s->all[s->shown[s->list.sel]].id;
	store_schedules_free(s->all, s->nall);
	free(s->shown);
	s->all = NULL;
	s->nall = 0;
	if (store_schedule_list(ui->store, &s->all, &s->nall, &cause) != 0) {
		ui_screen_read_failed(ui, "%s", cause);
		free(cause);
	}
	s->shown = xcalloc(s->nall + 1, sizeof *s->shown);
	for (i = 0; i < s->nall; i++) {
		sc = &s->all[i];
		if (v->filter != NULL && strcasestr(sc->name, v->filter) ==
		    NULL && strcasestr(sc->template_name, v->filter) == NULL)
			continue;
		if (sc->id == sel)
			s->list.sel = n;
		s->shown[n++] = (int)i;
	}
	s->list.n = n;
	ui_list_fix(&s->list, ui_screen_body_rows(ui) - 1);
}

/* One schedule's cells: the next firing counts down. */
static void
schedules_row(struct ui *ui, void *arg, int i, const char **cells,
    enum ui_paint *paints, enum ui_paint *base)
{
	struct schedules		*s = arg;
	const struct store_schedule	*sc = &s->all[s->shown[i]];
	char				 when[32], in[32];
	int64_t				 now = time_now_ms();

	(void)ui;
	if (sc->last_fire_at > 0) {
		ui_draw_when(sc->last_fire_at, when, sizeof when);
		snprintf(s->last, sizeof s->last, "%s %s", when,
		    sc->has_last_run ? status_run_name(sc->last_run_status) :
		    "");
		if (sc->has_last_run)
			paints[3] = ui_draw_state_paint(state_of(
			    sc->last_run_status, 0, 0, 0));
	} else
		snprintf(s->last, sizeof s->last, "never");
	if (sc->paused)
		snprintf(s->next, sizeof s->next, "paused");
	else if (sc->next_fire_at > 0) {
		ui_draw_when(sc->next_fire_at, when, sizeof when);
		when_countdown(sc->next_fire_at - now, in, sizeof in);
		snprintf(s->next, sizeof s->next, "%s (in %s)", when, in);
	} else
		snprintf(s->next, sizeof s->next, "-");
	snprintf(s->state, sizeof s->state, "%s", sc->paused ? "paused" :
	    "active");
	cells[0] = sc->name;
	if (sc->tz != NULL) {
		snprintf(s->cron, sizeof s->cron, "%s %s", sc->cron, sc->tz);
		cells[1] = s->cron;
	} else
		cells[1] = sc->cron;
	cells[2] = s->next;
	cells[3] = s->last;
	cells[4] = sc->template_name;
	cells[5] = s->state;
	cells[6] = sc->overlap;
	if (sc->paused) {
		paints[5] = PAINT_WAIT;
		*base = PAINT_DIM;
	}
}

/* Title row and one row per schedule. */
static void
schedules_draw(struct ui *ui, struct view *v, int y, int h)
{
	static const char *const titles[] = { "NAME", "CRON", "NEXT",
	    "LAST", "TEMPLATE", "STATE", "OVERLAP" };
	static const int widths[] = { 16, 12, 24, 14, 0, 6, 7 };
	struct schedules	*s = v->data;
	struct table		 t;

	if (s == NULL)
		return;
	ui_list_fix(&s->list, h - 1);
	memset(&t, 0, sizeof t);
	t.titles = titles;
	t.widths = widths;
	t.ncols = nitems(titles);
	t.flex = 4;
	t.flex_max = 30;
	t.empty = v->filter != NULL ?
	    "No schedule matches the filter (Esc clears it)." :
	    "No schedules. Add one from a shell: sluice schedule add NAME "
	    "--cron '0 9 * * 1-5' --template TEMPLATE [-i KEY=VALUE]";
	t.row = schedules_row;
	t.arg = s;
	ui_table_draw(ui, y, h, &t, s->list.n, s->list.top, s->list.sel);
}

/* Send a schedule command and echo its sluice form. */
static void
schedules_send(struct ui *ui, const char *command, const char *words,
    const char *name)
{
	struct buf	 w, echo;
	cJSON		*args;

	buf_init(&w);
	buf_printf(&w, "schedule %s ", words);
	ui_action_quote(&w, name);
	buf_init(&echo);
	ui_action_echo(ui, &echo, w.data);
	args = cJSON_CreateObject();
	cJSON_AddStringToObject(args, "name", name);
	ui_action_send(ui, command, 0, 0, args, echo.data);
	buf_free(&w);
	buf_free(&echo);
}

/* The delete confirmation was answered. */
static void
schedules_rm_done(struct ui *ui, const char *answer, void *arg)
{
	if (answer != NULL && *answer == 'y')
		schedules_send(ui, "schedule-rm", "rm", arg);
	else
		ui_screen_message(ui, 0, "schedule rm: not sent");
}

/* The fire-now confirmation was answered. */
static void
schedules_run_done(struct ui *ui, const char *answer, void *arg)
{
	if (answer != NULL && *answer == 'y')
		schedules_send(ui, "schedule-run", "run", arg);
	else
		ui_screen_message(ui, 0, "schedule run: not sent");
}

/* Moving; p pause/resume, r fire now and d delete (both ask first). */
static int
schedules_key(struct ui *ui, struct view *v, int key)
{
	struct schedules		*s = v->data;
	const struct store_schedule	*sc;
	char				 q[512];

	if (s == NULL)
		return (0);
	if (ui_list_key(&s->list, key)) {
		ui_dirty(ui);
		return (1);
	}
	if (key != 'p' && key != 'r' && key != 'd' && key != K_ENTER)
		return (0);
	if (s->list.n == 0) {
		ui_screen_message(ui, 1, "no schedule selected");
		return (1);
	}
	sc = &s->all[s->shown[s->list.sel]];
	if (key == 'p')
		schedules_send(ui, sc->paused ? "schedule-resume" :
		    "schedule-pause", sc->paused ? "resume" : "pause",
		    sc->name);
	else if (key == 'r') {
		/* Firing starts a real run at once: as d does, ask. */
		snprintf(q, sizeof q, "Fire schedule %s now? A run of template "
		    "%s starts at once with input %.120s y/n ", sc->name,
		    sc->template_name, sc->input_json != NULL ?
		    sc->input_json : "{}");
		ui_confirm_open(ui, q, "yn", schedules_run_done,
		    xstrdup(sc->name), free);
	}
	else if (key == 'd') {
		snprintf(q, sizeof q, "Delete schedule %s (%s, template %s)? "
		    "Its runs stay. y/n ", sc->name, sc->cron,
		    sc->template_name);
		ui_confirm_open(ui, q, "yn", schedules_rm_done,
		    xstrdup(sc->name), free);
	} else if (sc->last_run_id != 0)
		ui_run_open(ui, sc->last_run_id, 0);
	return (1);
}

/* Countdowns move. */
static int
schedules_tick(struct ui *ui, struct view *v)
{
	struct schedules	*s = v->data;

	(void)ui;
	return (s != NULL && s->list.n > 0);
}

/* Free the schedules. */
static void
schedules_free(struct view *v)
{
	struct schedules	*s = v->data;

	if (s == NULL)
		return;
	store_schedules_free(s->all, s->nall);
	free(s->shown);
	free(s);
}
