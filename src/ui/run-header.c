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
 * run-header.c: the block above a run's step rows: what ran, its status,
 * template and who started it; when it started and ended; why it failed;
 * its input and output, each on one line as the height allows.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ui/ui-int.h"

static void	 run_header_first(struct ui *, const struct run *, int);
static void	 run_header_times(struct ui *, const struct run *, int);

/* "#12 deploy  ✗ failed  canary-deploy@3  by alice": what and whose. */
static void
run_header_first(struct ui *ui, const struct run *r, int y)
{
	const struct store_workflow	*w = r->wf;
	enum run_state			 st = store_workflow_state(w);
	int				 x = 0;

	x += ui_draw_textf(ui, y, x, ui->cols - x, PAINT_TITLE, "#%lld ",
	    (long long)w->id);
	x += ui_draw_text(ui, y, x, ui->cols - x, w->name, PAINT_TITLE);
	x += ui_draw_textf(ui, y, x, ui->cols - x, ui_draw_state_paint(st),
	    "  %s %s", ui_draw_state_glyph(ui, st), state_name(st));
	if (w->template_name != NULL)
		x += ui_draw_textf(ui, y, x, ui->cols - x, PAINT_DIM,
		    "  %s@%lld", w->template_name, (long
		    long)w->template_version);
	else
		x += ui_draw_text(ui, y, x, ui->cols - x, "  (from a file)",
		    PAINT_DIM);
	if (w->created_by != NULL)
		x += ui_draw_textf(ui, y, x, ui->cols - x, PAINT_DIM,
		    "  by %s%s%s", w->created_by, w->created_via != NULL ?
		    " via " : "", w->created_via != NULL ? w->created_via : "");
	if (w->parent_id != 0)
		ui_draw_textf(ui, y, x, ui->cols - x, PAINT_DIM, "  child of "
		    "#%lld", (long long)w->parent_id);
}

/* When: scheduled start, started, ended, and how long it took or runs. */
static void
run_header_times(struct ui *ui, const struct run *r, int y)
{
	const struct store_workflow	*w = r->wf;
	struct buf			 b;
	char				 t1[32], t2[32], d[16];
	int64_t				 now = time_now_ms(), end;

	buf_init(&b);
	end = w->completed_at > 0 ? w->completed_at : w->cancelled_at;
	if (w->status == RUN_SCHEDULED)
		buf_printf(&b, "starts %s (in %s)", ui_draw_when(w->start_at,
		    t1, sizeof t1), time_age(w->start_at - now, d, sizeof d));
	else if (w->started_at > 0 && end > 0)
		buf_printf(&b, "started %s  ended %s  took %s",
		    ui_draw_when(w->started_at, t1, sizeof t1),
		    ui_draw_when(end, t2, sizeof t2),
		    ui_draw_duration(end - w->started_at, d, sizeof d));
	else if (w->started_at > 0)	/* not "running": it may wait */
		buf_printf(&b, "started %s, %s ago",
		    ui_draw_when(w->started_at, t1, sizeof t1),
		    ui_draw_duration(now - w->started_at, d, sizeof d));
	else
		buf_printf(&b, "created %s", ui_draw_when(w->created_at, t1,
		    sizeof t1));
	if (w->status == RUN_QUEUED && w->behind != 0)
		buf_printf(&b, "  queued behind #%lld (key %s)",
		    (long long)w->behind, w->conc_key);
	else if (w->conc_key != NULL)
		buf_printf(&b, "  key %s", w->conc_key);
	if (w->paused)
		buf_puts(&b, "  paused: no new steps start (p resumes)");
	if (w->schedule_name != NULL)
		buf_printf(&b, "  schedule %s", w->schedule_name);
	ui_draw_text(ui, y, 0, ui->cols, b.data, PAINT_DIM);
	buf_free(&b);
}

/*
 * The header block in at most a quarter of the rows: the first line
 * always, then the error, the times and the input as room allows (drawn
 * in that order: times, error, input).  Returns the lines used.
 */
int
ui_run_header(struct ui *ui, const struct run *r, int y, int h)
{
	struct buf	 b;
	int		 room, n = 1, err, times, input, output;

	room = h >= 16 ? 4 : h >= 12 ? 3 : h >= 9 ? 2 : 1;
	if (r->wf->output_json != NULL && h >= 20)
		room++;
	err = r->wf->error != NULL && room > n;
	times = room > n + err;
	input = room > n + err + times;
	output = r->wf->output_json != NULL && room > n + err + times + input;
	run_header_first(ui, r, y);
	if (times)
		run_header_times(ui, r, y + n++);
	buf_init(&b);
	if (err) {
		ui_run_oneline(r->wf->error, &b);
		ui_draw_textf(ui, y + n++, 0, ui->cols, PAINT_BAD, "error: %s",
		    b.data != NULL ? b.data : "");
	}
	if (input) {
		buf_reset(&b);
		ui_run_oneline(r->wf->input_json != NULL ? r->wf->input_json :
		    "{}", &b);
		ui_draw_textf(ui, y + n++, 0, ui->cols, PAINT_DIM, "input: %s",
		    b.data != NULL ? b.data : "");
	}
	if (output) {
		buf_reset(&b);
		ui_run_oneline(r->wf->output_json, &b);
		ui_draw_textf(ui, y + n++, 0, ui->cols, PAINT_NORMAL,
		    "output: %s", b.data != NULL ? b.data : "");
	}
	buf_free(&b);
	return (n);
}
