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
 * step.c: one step row in full: what it is, its times, exit code and
 * error, resolved args, result and the last lines of its log; for a gate,
 * what the approver is approving (step-gate.c).  Everything is read and
 * written out as lines in load (the ui_step_* builders here); draw only
 * wraps them to the width and shows the part scrolled to.
 */

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "ui/ui-int.h"
#include "ui/curses-lib.h"

#define STEP_LABEL	11	/* columns of a field's name */
#define STEP_INDENT	(2 + STEP_LABEL + 1)
#define STEP_JSON_MAX	200	/* lines of one value shown */
#define STEP_LOG_LINES	6	/* the last lines of the log */
#define STEP_LOG_CHUNKS	32	/* chunks read for them */

struct step_line {
	char		*text;
	enum ui_paint	 paint;
	int		 label;		/* bytes of a dim name in front */
	int		 indent;	/* where wrapped rows start */
	int		 cut;		/* one row, cut at the edge */
};

struct step_row {
	int		 line;
	size_t		 off;
	size_t		 len;
};

struct stepv {
	int64_t		 id;
	int64_t		 workflow_id;
	int		 live;		/* what it shows moves with time */
	char		*title;		/* glyph, name, status */
	char		*name;		/* the step's, for the header */
	char		*command;	/* run or shell, from the flow */
	int		 command_read;
	enum ui_paint	 title_paint;
	struct step_line *lines;
	size_t		 n;
	size_t		 size;
	struct step_row	*rows;		/* lines wrapped to cols */
	size_t		 nrows;
	size_t		 rowsize;
	int		 cols;
	struct ui_list	 list;
	enum step_status status;	/* as last read, for the footer */
	int		 gate;		/* an approval gate */
	int		 read;		/* the row was read */
};

static void	 step_load(struct ui *, struct view *);
static void	 step_draw(struct ui *, struct view *, int, int);
static int	 step_key(struct ui *, struct view *, int);
static void	 step_free(struct view *);
static int	 step_tick(struct ui *, struct view *);
static void	 step_clear(struct stepv *);
static void	 step_text(struct stepv *, const char *, enum ui_paint, int);
static void	 step_text_more(struct stepv *, const char *, int);
static void	 step_head(struct ui *, struct stepv *,
		     const struct store_step *, const struct store_workflow *);
static void	 step_times(struct ui *, struct stepv *,
		     const struct store_step *);
static void	 step_gate_times(struct stepv *, const struct store_step *);
static void	 step_command(struct stepv *, const struct store_step *,
		     const struct store_workflow *);
static void	 step_command_read(struct stepv *, const struct store_step *,
		     const struct store_workflow *);
static void	 step_body(struct stepv *, const struct store_step *);
static void	 step_log(struct ui *, struct stepv *,
		     const struct store_step *);
static void	 step_wrap(struct ui *, struct stepv *);
static void	 step_name(struct view *, struct buf *);
static void	 step_wrap_line(struct stepv *, int, int, struct buf *);
static void	 step_row_add(struct stepv *, int, size_t, size_t);
static void	 step_row_draw(struct ui *, struct stepv *, int,
		     const struct step_row *);

const struct view_ops ui_view_step = {
	.kind = VIEW_STEP,
	.title = "Step",
	.load = step_load,
	.draw = step_draw,
	.key = step_key,
	.free = step_free,
	.tick = step_tick,
	.name = step_name
};

/* "Step 44 restart, run 12" (the name once it is read). */
static void
step_name(struct view *v, struct buf *b)
{
	struct stepv	*sv = v->data;

	buf_printf(b, "Step %lld", (long long)sv->id);
	if (sv->name != NULL)
		buf_printf(b, " %s", sv->name);
	if (sv->workflow_id != 0)
		buf_printf(b, ", run %lld", (long long)sv->workflow_id);
}

/* Enter on a step row: its details. */
void
ui_step_open(struct ui *ui, int64_t id)
{
	struct stepv	*sv;

	sv = xcalloc(1, sizeof *sv);
	sv->id = id;
	ui_view_push(ui, &ui_view_step, sv);
}

/* The step shown, for the keys that act on it (y n s l). */
int
ui_step_selected(struct view *v, int64_t *wf, int64_t *step)
{
	struct stepv	*sv = v->data;

	*wf = *step = 0;
	if (sv == NULL || sv->workflow_id == 0)
		return (0);
	*wf = sv->workflow_id;
	*step = sv->id;
	return (1);
}

/* Forget the lines (before reading them again). */
static void
step_clear(struct stepv *sv)
{
	size_t	 i;

	for (i = 0; i < sv->n; i++)
		free(sv->lines[i].text);
	sv->n = 0;
	sv->nrows = 0;
	sv->cols = 0;
}

/* Add a line. */
void
ui_step_add(struct stepv *sv, enum ui_paint paint, int label, int indent,
    int cut, const char *text)
{
	struct step_line	*l;

	if (sv->n == sv->size) {
		sv->size = sv->size == 0 ? 64 : sv->size * 2;
		sv->lines = xreallocarray(sv->lines, sv->size,
		    sizeof *sv->lines);
	}
	l = &sv->lines[sv->n++];
	l->text = xstrdup(text);
	l->paint = paint;
	l->label = label;
	l->indent = indent;
	l->cut = cut;
}

/* A "  name       value" line; the value wraps under itself. */
void
ui_step_field(struct stepv *sv, const char *name, enum ui_paint paint,
    const char *fmt, ...)
{
	va_list	 ap;
	char	*value, *text;
	int	 label;

	va_start(ap, fmt);
	xvasprintf(&value, fmt, ap);
	va_end(ap);
	label = xasprintf(&text, "  %-*s ", STEP_LABEL, name);
	text = xrealloc(text, (size_t)label + strlen(value) + 1);
	strcpy(text + label, value);
	ui_step_add(sv, paint, label, STEP_INDENT, 0, text);
	free(text);
	free(value);
}

/* A blank line, then a section's name. */
void
ui_step_heading(struct stepv *sv, const char *name)
{
	ui_step_add(sv, PAINT_NORMAL, 0, 0, 0, "");
	ui_step_add(sv, PAINT_TITLE, 0, 0, 1, name);
}

/* Say how many lines of a long value are not shown, and where they are. */
static void
step_text_more(struct stepv *sv, const char *rest, int indent)
{
	char	*line;
	size_t	 n = 1;

	for (; *rest != '\0'; rest++)
		n += *rest == '\n' && rest[1] != '\0';
	xasprintf(&line, "%*s... %zu more line%s (sluice show --json shows "
	    "all of it)", indent, "", n, n == 1 ? "" : "s");
	ui_step_add(sv, PAINT_DIM, 0, indent, 1, line);
	free(line);
}

/* Lines of text under a heading (a string result, a message). */
static void
step_text(struct stepv *sv, const char *text, enum ui_paint paint, int indent)
{
	const char	*p = text, *nl;
	char		*line;
	int		 n = 0, lead;

	do {
		nl = strchr(p, '\n');
		if (nl == NULL && *p == '\0' && n > 0)
			break;
		if (n++ == STEP_JSON_MAX) {
			step_text_more(sv, p, indent);
			break;
		}
		xasprintf(&line, "%*s%.*s", indent, "", nl != NULL ?
		    (int)(nl - p) : (int)strlen(p), p);
		/* Wrapped rows go in under the line's own indentation. */
		for (lead = 0; line[lead] == ' '; lead++)
			;
		ui_step_add(sv, paint, 0, lead + 2 < 40 ? lead + 2 : 40, 0,
		    line);
		free(line);
		p = nl != NULL ? nl + 1 : p + strlen(p);
	} while (nl != NULL);
}

/*
 * A JSON value, pretty, indented by two per level; a string as its text;
 * anything that does not parse as it is.
 */
void
ui_step_json(struct stepv *sv, const char *json, int indent)
{
	cJSON		*j;
	struct buf	 b;
	char		*pretty, *p;

	if (json == NULL || (j = cJSON_Parse(json)) == NULL) {
		step_text(sv, json != NULL ? json : "null", PAINT_NORMAL,
		    indent);
		return;
	}
	if (cJSON_IsString(j)) {
		step_text(sv, j->valuestring, PAINT_NORMAL, indent);
		cJSON_Delete(j);
		return;
	}
	pretty = j->child == NULL ? json_print(j) : json_print_pretty(j);
	cJSON_Delete(j);
	buf_init(&b);
	for (p = pretty; *p != '\0'; p++) {
		if (*p == '\t' && (p == pretty || p[-1] == '\n' ||
		    p[-1] == '\t'))
			buf_puts(&b, "  ");
		else if (*p == '\t')
			buf_putc(&b, ' ');
		else
			buf_putc(&b, *p);
	}
	step_text(sv, b.data != NULL ? b.data : "", PAINT_NORMAL, indent);
	buf_free(&b);
	free(pretty);
}

/* A time for the details: "09:41:07" today, else with the date. */
const char *
ui_step_when(int64_t ms, char *buf, size_t len)
{
	struct tm	 tm, now_tm;
	time_t		 t = (time_t)(ms / 1000);
	time_t		 now = (time_t)(time_now_ms() / 1000);

	if (ms <= 0 || localtime_r(&t, &tm) == NULL ||
	    localtime_r(&now, &now_tm) == NULL) {
		snprintf(buf, len, "-");
		return (buf);
	}
	if (tm.tm_year == now_tm.tm_year && tm.tm_yday == now_tm.tm_yday)
		strftime(buf, len, "%H:%M:%S", &tm);
	else
		strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	return (buf);
}

/* The step's name and status, the run it is in, what it runs. */
static void
step_head(struct ui *ui, struct stepv *sv, const struct store_step *s,
    const struct store_workflow *w)
{
	char	 when[32], age[16];

	free(sv->name);
	sv->name = xstrdup(s->name);
	free(sv->title);
	xasprintf(&sv->title, "%s %s  %s", ui_draw_glyph(ui, s->status),
	    s->name, status_step_name(s->status));
	sv->title_paint = ui_draw_status_paint(s->status);
	if (w != NULL) {
		time_age(time_now_ms() - w->created_at, age, sizeof age);
		ui_step_field(sv, "workflow", PAINT_NORMAL, "%lld %s (%s), "
		    "started by %s%s%s at %s, %s ago", (long long)w->id,
		    w->name, state_name(store_workflow_state(w)),
		    w->created_by,
		    w->created_via != NULL ? " via " : "",
		    w->created_via != NULL ? w->created_via : "",
		    ui_step_when(w->created_at, when, sizeof when), age);
	}
	ui_step_field(sv, "step", PAINT_NORMAL, "%lld, key %s, attempt %d, "
	    "visit %d", (long long)s->id, s->step_key, s->attempt, s->visit);
	if (kind_runs(s->kind) != NULL)
		ui_step_field(sv, "runs", PAINT_NORMAL, "%s%s%s",
		    kind_runs(s->kind), kind_names_target(s->kind) ? " " : "",
		    kind_names_target(s->kind) && s->tool != NULL ? s->tool :
		    "");
	if (s->host != NULL)
		ui_step_field(sv, "host", PAINT_NORMAL, "%s", s->host);
	if (s->pid != 0 && s->status == STEP_RUNNING)
		ui_step_field(sv, "pid", PAINT_NORMAL, "%lld (process group "
		    "%lld)", (long long)s->pid, (long long)s->pgid);
}

/* Ready, started, ended, how long; the exit code and the error. */
static void
step_times(struct ui *ui, struct stepv *sv, const struct store_step *s)
{
	char	 when[32], d[16], age[16];
	int64_t	 now = time_now_ms(), due = 0, ready;

	if (kind_decided(s->kind)) {
		step_gate_times(sv, s);
		return;
	}
	ready = s->ready_at != 0 ? s->ready_at : s->created_at;
	if (s->started_at == 0)
		ui_step_field(sv, "ready", PAINT_NORMAL, "%s",
		    ui_step_when(ready, when, sizeof when));
	else if (s->started_at - ready >= 1000)
		ui_step_field(sv, "started", PAINT_NORMAL, "%s, after %s ready",
		    ui_step_when(s->started_at, when, sizeof when),
		    ui_draw_duration(s->started_at - ready, d, sizeof d));
	else
		ui_step_field(sv, "started", PAINT_NORMAL, "%s", ui_step_when(
		    s->started_at, when, sizeof when));
	if (s->completed_at != 0)
		ui_step_field(sv, "ended", PAINT_NORMAL, "%s, took %s",
		    ui_step_when(s->completed_at, when, sizeof when),
		    s->started_at != 0 && s->completed_at >= s->started_at ?
		    ui_draw_duration(s->completed_at - s->started_at, d,
		    sizeof d) : "-");
	else if (s->status == STEP_RUNNING && s->started_at != 0)
		ui_step_field(sv, "running", PAINT_RUN, "for %s",
		    ui_draw_duration(now - s->started_at, d, sizeof d));
	if (s->status == STEP_RUNNING && s->progress_pct >= 0)
		ui_step_field(sv, "progress", PAINT_RUN, "%d%% %s",
		    s->progress_pct, s->progress_text != NULL ?
		    s->progress_text : "");
	else if (s->status == STEP_RUNNING && s->progress_text != NULL)
		ui_step_field(sv, "progress", PAINT_RUN, "%s",
		    s->progress_text);
	if (s->status == STEP_RUNNING && s->timeout_at > now) {
		time_age(s->timeout_at - now, age, sizeof age);
		ui_step_field(sv, "times out", PAINT_NORMAL, "%s (in %s)",
		    ui_step_when(s->timeout_at, when, sizeof when), age);
	}
	if (s->status == STEP_PENDING && store_timer_of_step(
	    ui->store, s->id, "retry", &due) == 0 && due > 0) {
		time_age(due > now ? due - now : 0, age, sizeof age);
		ui_step_field(sv, "retries", PAINT_WAIT, "at %s (in %s)",
		    ui_step_when(due, when, sizeof when), age);
	}
	if (s->has_exit_code)
		ui_step_field(sv, "exit code", s->exit_code == 0 ?
		    PAINT_NORMAL : PAINT_BAD, "%d", s->exit_code);
	if (s->error != NULL)
		ui_step_field(sv, "error", PAINT_BAD, "%s", s->error);
	if (s->branch_end != NULL)
		ui_step_field(sv, "branch", PAINT_NORMAL, "ended: %s",
		    s->branch_end);
}

/* A gate's times: since when it waits, when it was decided. */
static void
step_gate_times(struct stepv *sv, const struct store_step *s)
{
	char	 when[32], d[16];
	int64_t	 since = s->ready_at != 0 ? s->ready_at : s->created_at;
	int64_t	 end = s->completed_at != 0 ? s->completed_at : time_now_ms();

	ui_step_field(sv, "waiting", PAINT_NORMAL, "since %s (%s)",
	    ui_step_when(since, when, sizeof when), ui_draw_duration(end -
	    since, d, sizeof d));
	if (s->completed_at != 0)
		ui_step_field(sv, "decided", PAINT_NORMAL, "%s", ui_step_when(
		    s->completed_at, when, sizeof when));
	if (s->error != NULL)
		ui_step_field(sv, "error", PAINT_BAD, "%s", s->error);
}

/* What an inline step runs (the flow is read once: it never changes). */
static void
step_command(struct stepv *sv, const struct store_step *s,
    const struct store_workflow *w)
{
	if (!sv->command_read && w != NULL)
		step_command_read(sv, s, w);
	if (sv->command == NULL)
		return;
	ui_step_heading(sv, s->kind == KIND_SHELL ? "Shell script" :
	    "Command (as written)");
	step_text(sv, sv->command, PAINT_NORMAL, 2);
}

/* Read what an inline step runs from the flow. */
static void
step_command_read(struct stepv *sv, const struct store_step *s,
    const struct store_workflow *w)
{
	struct flow_diags	*d;
	struct flow		*f;
	struct buf		 b;
	size_t			 i;
	int			 spec;

	sv->command_read = 1;
	d = flow_diags_create();
	f = flow_parse(w->flow_json, strlen(w->flow_json), d);
	flow_diags_free(d);
	if (f == NULL)
		return;
	buf_init(&b);
	if ((spec = flow_find(f, s->step_key)) >= 0 &&
	    f->steps[spec].shell != NULL)
		buf_puts(&b, f->steps[spec].shell);
	else if (spec >= 0) {
		for (i = 0; i < f->steps[spec].nrun; i++) {
			if (i > 0)
				buf_putc(&b, ' ');
			ui_action_quote(&b, f->steps[spec].run[i]);
		}
	}
	if (b.len > 0)
		sv->command = buf_release(&b);
	buf_free(&b);
	flow_free(f);
}

/* Args and result of a step that runs something. */
static void
step_body(struct stepv *sv, const struct store_step *s)
{
	int	 unresolved;

	unresolved = s->status == STEP_READY ||
	    s->status == STEP_PENDING || s->started_at == 0;
	ui_step_heading(sv, unresolved ? "Args (as written: resolved when it "
	    "starts)" : "Args");
	ui_step_json(sv, s->args_json != NULL ? s->args_json : "{}", 2);
	if (s->result_json == NULL)
		return;
	ui_step_heading(sv, "Result");
	ui_step_json(sv, s->result_json, 2);
}

/* The last few lines of the log, and how to see all of it. */
static void
step_log(struct ui *ui, struct stepv *sv, const struct store_step *s)
{
	struct store_log	*c;
	struct log_lines	 ls;
	const struct log_line	*l;
	enum ui_paint		 paint;
	const char		*mark;
	char			*cause = NULL, *line, when[32];
	size_t			 n, i;

	if (store_log_tail(ui->store, s->id, STEP_LOG_CHUNKS, &c, &n,
	    &cause) != 0) {
		ui_screen_read_failed(ui, "%s", cause);
		free(cause);
		return;
	}
	memset(&ls, 0, sizeof ls);
	ui_pager_lines_add(&ls, c, n);
	store_logs_free(c, n);
	ui_step_heading(sv, n == 0 ? "Log: none yet" : "Log: the last lines "
	    "(l shows all of it)");
	for (i = ls.n > STEP_LOG_LINES ? ls.n - STEP_LOG_LINES : 0; i < ls.n;
	    i++) {
		l = &ls.v[i];
		mark = ui_pager_stream_mark(ui, l->stream, &paint);
		ui_step_when(l->at, when, sizeof when);
		xasprintf(&line, "  %s %s %s", when, mark, l->text);
		ui_step_add(sv, l->stream == 'e' ? PAINT_WAIT : l->stream ==
		    'o' ? PAINT_NORMAL : PAINT_LATE, 3 + (int)strlen(when), 0,
		    1, line);
		free(line);
	}
	if (s->log_bytes > 0)
		ui_step_field(sv, "kept", PAINT_DIM, "%lld bytes of output",
		    (long long)s->log_bytes);
	ui_pager_lines_free(&ls);
}

/* Read the step (and its workflow) and write out its lines. */
static void
step_load(struct ui *ui, struct view *v)
{
	struct stepv		*sv = v->data;
	struct store_step	*s;
	struct store_workflow	*w = NULL;
	char			*cause = NULL;

	step_clear(sv);
	if (store_step_get(ui->store, sv->id, &s, &cause) != 0) {
		ui_step_add(sv, PAINT_BAD, 0, 0, 0, cause);
		free(cause);
		sv->live = 0;
		return;
	}
	if (store_workflow_get(ui->store, s->workflow_id, &w, &cause) != 0) {
		ui_screen_read_failed(ui, "%s", cause);
		free(cause);
		w = NULL;
	}
	sv->workflow_id = s->workflow_id;
	sv->status = s->status;
	sv->gate = s->kind == KIND_GATE;
	sv->read = 1;
	sv->live = s->status == STEP_RUNNING ||
	    s->status == STEP_WAITING ||
	    s->status == STEP_PENDING;
	step_head(ui, sv, s, w);
	step_times(ui, sv, s);
	if (s->kind == KIND_WAIT)
		ui_step_wait(ui, sv, s);
	else if (s->kind == KIND_GATE || s->gate_json != NULL)
		ui_step_gate(ui, sv, s, w);
	else {
		step_body(sv, s);
		step_log(ui, sv, s);
		step_command(sv, s, w);
	}
	if (w != NULL)
		store_workflow_free(w);
	store_step_free(s);
}

/* Add a wrapped row. */
static void
step_row_add(struct stepv *sv, int line, size_t off, size_t len)
{
	if (sv->nrows == sv->rowsize) {
		sv->rowsize = sv->rowsize == 0 ? 128 : sv->rowsize * 2;
		sv->rows = xreallocarray(sv->rows, sv->rowsize,
		    sizeof *sv->rows);
	}
	sv->rows[sv->nrows].line = line;
	sv->rows[sv->nrows].off = off;
	sv->rows[sv->nrows++].len = len;
}

/* Break line i into rows of cols columns, at spaces when it can. */
static void
step_wrap_line(struct stepv *sv, int i, int cols, struct buf *b)
{
	const struct step_line	*l = &sv->lines[i];
	const char		*s = l->text;
	size_t			 total = strlen(s), off = 0, fit, brk;
	int			 avail;

	do {
		avail = off == 0 ? cols : cols - l->indent;
		if (l->cut || avail < 8) {
			step_row_add(sv, i, off, total - off);
			return;
		}
		buf_reset(b);
		ui_draw_clip(s + off, avail, b);
		fit = b->len;
		if (off + fit >= total) {
			step_row_add(sv, i, off, total - off);
			return;
		}
		for (brk = fit; brk > 0 && s[off + brk] != ' '; brk--)
			;
		if (brk > fit / 3 && off + brk > (size_t)l->label)
			fit = brk;
		else if (fit == 0)
			while (++fit < total - off &&
			    ((unsigned char)s[off + fit] & 0xc0) == 0x80)
				;
		step_row_add(sv, i, off, fit);
		off += fit;
		while (s[off] == ' ')
			off++;
	} while (off < total);
}

/* Wrap every line to the window's width. */
static void
step_wrap(struct ui *ui, struct stepv *sv)
{
	struct buf	 b;
	size_t		 i;

	buf_init(&b);
	sv->nrows = 0;
	for (i = 0; i < sv->n; i++)
		step_wrap_line(sv, (int)i, ui->cols, &b);
	buf_free(&b);
	sv->cols = ui->cols;
	sv->list.n = (int)sv->nrows;
}

/* One row: a field's name dim, the rest in the line's paint. */
static void
step_row_draw(struct ui *ui, struct stepv *sv, int y, const struct step_row *r)
{
	const struct step_line	*l = &sv->lines[r->line];
	char			*text;
	size_t			 label = 0;
	int			 x = 0;

	if (r->off == 0)
		label = (size_t)l->label < r->len ? (size_t)l->label : r->len;
	else
		x = l->indent;
	if (label > 0) {
		text = xstrndup(l->text, label);
		x += ui_draw_text(ui, y, x, ui->cols - x, text, PAINT_DIM);
		free(text);
	}
	text = xstrndup(l->text + r->off + label, r->len - label);
	ui_draw_text(ui, y, x, ui->cols - x, text, l->paint);
	free(text);
}

/* The step's name and status, then the rows scrolled to. */
static void
step_draw(struct ui *ui, struct view *v, int y, int h)
{
	struct stepv	*sv = v->data;
	struct ui_list	*l = &sv->list;
	char		 pos[64];
	int		 i, w = 0;

	if (sv->cols != ui->cols)
		step_wrap(ui, sv);
	l->height = h > 2 ? h - 1 : 1;
	if (l->top > l->n - l->height)
		l->top = l->n - l->height;
	if (l->top < 0)
		l->top = 0;
	l->sel = l->top;
	if (l->n > l->height) {
		snprintf(pos, sizeof pos, "%d-%d of %d", l->top + 1,
		    l->top + l->height < l->n ? l->top + l->height : l->n,
		    l->n);
		w = ui_draw_width(pos);
		ui_draw_text(ui, y, ui->cols - w, w, pos, PAINT_DIM);
	}
	if (sv->title != NULL)
		ui_draw_text(ui, y, 0, ui->cols - w - 2, sv->title,
		    sv->title_paint);
	for (i = 0; i < l->height && l->top + i < l->n; i++)
		step_row_draw(ui, sv, y + 1 + i, &sv->rows[l->top + i]);
}

/* Scrolling: the top row moves. */
static int
step_key(struct ui *ui, struct view *v, int key)
{
	struct ui_list	*l = &((struct stepv *)v->data)->list;
	int		 page = l->height > 1 ? l->height - 1 : 1;

	switch (key) {
	case 'j':
	case KEY_FN(KEY_DOWN):
		l->top++;
		break;
	case 'k':
	case KEY_FN(KEY_UP):
		l->top--;
		break;
	case KEY_FN(KEY_NPAGE):
	case K_CTRL('F'):
	case ' ':
		l->top += page;
		break;
	case KEY_FN(KEY_PPAGE):
	case K_CTRL('B'):
		l->top -= page;
		break;
	case 'g':
	case KEY_FN(KEY_HOME):
		l->top = 0;
		break;
	case 'G':
	case KEY_FN(KEY_END):
		l->top = l->n;
		break;
	default:
		return (0);
	}
	if (l->top > l->n - l->height)
		l->top = l->n - l->height;
	if (l->top < 0)
		l->top = 0;
	l->sel = l->top;
	ui_dirty(ui);
	return (1);
}

/* Running steps and waiting gates: their times move; read again. */
static int
step_tick(struct ui *ui, struct view *v)
{
	struct stepv	*sv = v->data;

	(void)ui;
	if (!sv->live)
		return (0);
	v->dirty_data = 1;
	return (1);
}

/* Free the view. */
static void
step_free(struct view *v)
{
	struct stepv	*sv = v->data;

	step_clear(sv);
	free(sv->title);
	free(sv->name);
	free(sv->command);
	free(sv->lines);
	free(sv->rows);
	free(sv);
}

/* The shown step's status and whether it is a gate; 0 before it is read. */
int
ui_step_state(struct view *v, enum step_status *st, int *gate)
{
	struct stepv	*sv = v->data;

	if (sv == NULL || !sv->read)
		return (0);
	*st = sv->status;
	*gate = sv->gate;
	return (1);
}
