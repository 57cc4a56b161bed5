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
 * form.c: running a template from the console.  An overlay with one field
 * per declared input (defaults filled in, required ones marked), the
 * run's name and an optional start time; Enter checks it the way "sluice
 * template run" does, so a missing required input names itself and the
 * form stays open, then shows what would start as the equivalent command.
 * Only y starts it: keys typed by mistake land in the fields, and two
 * Enters must never start a real run.  A value is a string, unless the
 * input's default is not one: then it is read as JSON (as -i KEY:=JSON).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>
#include <cjson/cJSON.h>

#include "sched/sched.h"
#include "ui/ui-int.h"

#define FORM_VALUE_MAX	4096

struct form_field {
	char		*key;		/* input key; NULL for name and at */
	char		*label;
	char		*help;
	int		 required;
	int		 json;		/* the default is not a string */
	struct buf	 value;
};

struct form {
	char			*template;
	int64_t			 version;
	char			*description;
	struct form_field	*fields;
	int			 n;
	int			 cur;
	char			*error;		/* the last refusal, shown */
	char			*review;	/* the command y would start */
	char			*args;		/* ... and its request */
};

static void	 form_draw(struct ui *, struct view *, int, int);
static int	 form_key(struct ui *, struct view *, int);
static void	 form_free(struct view *);
static void	 form_submit(struct ui *, struct view *);
static void	 form_start(struct ui *, struct view *);
static void	 form_unreview(struct form *);
static int	 form_input(struct form *, cJSON **, struct buf *, char **);
static char	*form_request(struct ui *, struct form *, cJSON *, int64_t,
		     char **);

const struct view_ops ui_view_form = {
	.kind = VIEW_FORM,
	.title = "run",
	.overlay = 1,
	.draw = form_draw,
	.key = form_key,
	.free = form_free
};

/* Add a field; value is its starting text (may be NULL). */
static struct form_field *
form_add(struct form *f, const char *key, const char *label, const char *help,
    const char *value)
{
	struct form_field	*ff;

	f->fields = xreallocarray(f->fields, f->n + 1, sizeof *f->fields);
	ff = &f->fields[f->n++];
	memset(ff, 0, sizeof *ff);
	ff->key = key != NULL ? xstrdup(key) : NULL;
	ff->label = xstrdup(label);
	ff->help = xstrdup(help != NULL ? help : "");
	buf_init(&ff->value);
	if (value != NULL)
		buf_puts(&ff->value, value);
	return (ff);
}

/* The text a field starts with: the previous run's value, else the default. */
static char *
form_initial(const struct flow_input *in, const cJSON *prev, int *json)
{
	const cJSON	*v = NULL;
	cJSON		*def = NULL;
	char		*text = NULL;

	*json = 0;
	if (in->default_json != NULL)
		def = cJSON_Parse(in->default_json);
	if (def != NULL && !cJSON_IsString(def))
		*json = 1;
	if (prev != NULL)
		v = cJSON_GetObjectItemCaseSensitive(prev, in->key);
	if (v == NULL)
		v = def;
	if (cJSON_IsString(v))
		text = xstrdup(v->valuestring);
	else if (v != NULL)
		text = cJSON_PrintUnformatted(v);
	cJSON_Delete(def);
	return (text);
}

/* Open the form for a template, prefilled from a previous input if any. */
void
ui_form_open(struct ui *ui, const char *name, const char *prev_input)
{
	struct store_template	*t;
	struct flow_doc		*doc;
	struct form		*f;
	struct form_field	*ff;
	cJSON			*prev = NULL;
	char			*cause = NULL, *text;
	size_t			 i;
	int			 json;

	if (store_template_get(ui->store, name, 0, &t, &cause) != 0) {
		ui_screen_message(ui, 1, "%s", cause);
		free(cause);
		return;
	}
	doc = flow_doc_parse(t->document, strlen(t->document), ui->cfg->tools,
	    NULL);
	if (doc == NULL) {
		ui_screen_message(ui, 1, "template %s does not check; sluice "
		    "check shows why", name);
		store_template_free(t);
		return;
	}
	f = xcalloc(1, sizeof *f);
	f->template = xstrdup(t->name);
	f->version = t->version;
	f->description = xstrdup(t->description != NULL ? t->description : "");
	if (prev_input != NULL)
		prev = cJSON_Parse(prev_input);
	for (i = 0; i < doc->ninputs; i++) {
		text = form_initial(&doc->inputs[i], prev, &json);
		ff = form_add(f, doc->inputs[i].key, doc->inputs[i].key,
		    doc->inputs[i].description, text);
		free(text);
		ff->required = doc->inputs[i].required;
		ff->json = json;
	}
	form_add(f, NULL, "run name", "what the run is called", t->name);
	form_add(f, NULL, "start at", "empty: now; or \"in 30 minutes\", "
	    "\"tomorrow 9am\", \"2026-12-01 09:00\"", NULL);
	cJSON_Delete(prev);
	flow_doc_free(doc);
	store_template_free(t);
	ui_view_push(ui, &ui_view_form, f);
}

/* r on a workflow: its template's form, filled with that run's input. */
void
ui_form_open_again(struct ui *ui, int64_t id)
{
	struct store_workflow	*w;
	char			*cause = NULL;

	if (store_workflow_get(ui->store, id, &w, &cause) != 0) {
		ui_screen_message(ui, 1, "%s", cause);
		free(cause);
		return;
	}
	if (w->template_name == NULL)
		ui_screen_message(ui, 1, "workflow %lld was run from a file, "
		    "not a template: sluice run FILE starts it again", (long
		    long)id);
	else
		ui_form_open(ui, w->template_name, w->input_json);
	store_workflow_free(w);
}

/* Free the form. */
static void
form_free(struct view *v)
{
	struct form	*f = v->data;
	int		 i;

	for (i = 0; i < f->n; i++) {
		free(f->fields[i].key);
		free(f->fields[i].label);
		free(f->fields[i].help);
		buf_free(&f->fields[i].value);
	}
	free(f->fields);
	free(f->template);
	free(f->description);
	free(f->error);
	form_unreview(f);
	free(f);
}

/* Leave the review: back to editing the fields. */
static void
form_unreview(struct form *f)
{
	free(f->review);
	f->review = NULL;
	free(f->args);
	f->args = NULL;
}

/*
 * The input object from the fields, and the -i words of the equivalent
 * command; -1 with a reason naming the field when one is not valid.
 */
static int
form_input(struct form *f, cJSON **inputp, struct buf *words, char **cause)
{
	struct form_field	*ff;
	cJSON			*input, *v;
	const char		*text;
	int			 i;

	input = cJSON_CreateObject();
	for (i = 0; i < f->n; i++) {
		ff = &f->fields[i];
		text = ff->value.data != NULL ? ff->value.data : "";
		if (ff->key == NULL || (*text == '\0' && !ff->required))
			continue;
		if (*text == '\0') {
			xasprintf(cause, "input %s is required", ff->key);
			f->cur = i;
			cJSON_Delete(input);
			return (-1);
		}
		if (ff->json) {
			if ((v = cJSON_Parse(text)) == NULL) {
				xasprintf(cause, "input %s: not valid JSON "
				    "(its default is JSON)", ff->key);
				f->cur = i;
				cJSON_Delete(input);
				return (-1);
			}
			buf_printf(words, " -i %s:=", ff->key);
		} else {
			v = cJSON_CreateString(text);
			buf_printf(words, " -i %s=", ff->key);
		}
		ui_action_quote(words, text);
		cJSON_AddItemToObject(input, ff->key, v);
	}
	*inputp = input;
	return (0);
}

/* The start command's arguments, as "sluice template run" builds them. */
static char *
form_request(struct ui *ui, struct form *f, cJSON *input, int64_t start_at,
    char **cause)
{
	struct store_template	*t;
	struct flow_doc		*doc;
	cJSON			*a;
	char			*text, *checked;

	if (store_template_get(ui->store, f->template, f->version, &t,
	    cause) != 0)
		return (NULL);
	doc = flow_doc_parse(t->document, strlen(t->document), ui->cfg->tools,
	    NULL);
	if (doc == NULL) {
		xasprintf(cause, "template %s does not check", f->template);
		store_template_free(t);
		return (NULL);
	}
	text = NULL;
	if ((checked = flow_doc_input(doc, input, cause)) != NULL) {
		a = cJSON_CreateObject();
		cJSON_AddStringToObject(a, "name",
		    f->fields[f->n - 2].value.data != NULL &&
		    *f->fields[f->n - 2].value.data != '\0' ?
		    f->fields[f->n - 2].value.data : t->name);
		cJSON_AddItemToObject(a, "flow", json_parse_or_null(
		    doc->flow_json));
		cJSON_AddItemToObject(a, "input", json_parse_or_null(checked));
		cJSON_AddStringToObject(a, "template", t->name);
		cJSON_AddNumberToObject(a, "version", (double)t->version);
		if (start_at > 0)
			cJSON_AddNumberToObject(a, "start_at",
			    (double)start_at);
		text = json_print(a);
		cJSON_Delete(a);
		free(checked);
	}
	flow_doc_free(doc);
	store_template_free(t);
	return (text);
}

/* Enter: check every field, then show what would start and ask. */
static void
form_submit(struct ui *ui, struct view *v)
{
	struct form		*f = v->data;
	struct buf		 words, echo;
	cJSON			*input = NULL;
	const char		*name, *at;
	char			*cause = NULL, *args;
	int64_t			 start_at = 0;

	buf_init(&words);
	buf_puts(&words, "template run ");
	ui_action_quote(&words, f->template);
	name = f->fields[f->n - 2].value.data;
	at = f->fields[f->n - 1].value.data;
	if (form_input(f, &input, &words, &cause) != 0)
		goto refused;
	if (at != NULL && *at != '\0' &&
	    when_parse(at, time_now_ms(), &start_at, &cause) != 0) {
		f->cur = f->n - 1;
		goto refused;
	}
	if ((args = form_request(ui, f, input, start_at, &cause)) == NULL)
		goto refused;
	if (name != NULL && *name != '\0' && strcmp(name, f->template) != 0) {
		buf_puts(&words, " --name ");
		ui_action_quote(&words, name);
	}
	if (start_at > 0) {
		buf_puts(&words, " --at ");
		ui_action_quote(&words, at);
	}
	buf_init(&echo);
	ui_action_echo(ui, &echo, words.data);
	free(f->error);
	f->error = NULL;
	form_unreview(f);
	f->review = buf_release(&echo);
	f->args = args;
	buf_free(&words);
	cJSON_Delete(input);
	ui_dirty(ui);
	return;
refused:
	free(f->error);
	f->error = cause;
	buf_free(&words);
	cJSON_Delete(input);
	ui_dirty(ui);
}

/* y on the review: start the run it shows and close the form. */
static void
form_start(struct ui *ui, struct view *v)
{
	struct form	*f = v->data;
	char		*echo = f->review, *args = f->args;

	f->review = f->args = NULL;
	ui_view_pop(ui);
	ui_action_send(ui, "start", 0, 0, json_parse_or_null(args), echo);
	free(args);
	free(echo);
}

/*
 * Every key goes to the form while it is open.  On the review only y
 * starts; any other key goes back to the fields, changing nothing.
 */
static int
form_key(struct ui *ui, struct view *v, int key)
{
	struct form		*f = v->data;
	struct buf		*b = &f->fields[f->cur].value;

	if (f->review != NULL) {
		if (key == 'y')
			form_start(ui, v);
		else {
			form_unreview(f);
			ui_dirty(ui);
		}
		return (1);
	}
	switch (key) {
	case K_ENTER:
		form_submit(ui, v);
		return (1);
	case K_ESC:
	case K_CTRL('C'):
		ui_view_pop(ui);
		ui_screen_message(ui, 0, "run: not started");
		return (1);
	case '\t':
	case KEY_FN(KEY_DOWN):
		f->cur = (f->cur + 1) % f->n;
		break;
	case KEY_FN(KEY_BTAB):
	case KEY_FN(KEY_UP):
		f->cur = (f->cur + f->n - 1) % f->n;
		break;
	case K_BS:
		ui_prompt_rubout(b, 0);
		break;
	case K_CTRL('U'):
		buf_reset(b);
		break;
	default:
		if (key < 0x20 || key == 0x7f || key >= KEY_FN(0) ||
		    b->len >= FORM_VALUE_MAX)
			return (1);
		ui_prompt_append(ui, b, key);
		break;
	}
	ui_dirty(ui);
	return (1);
}

/* One field's line: label (starred when required), value, its help. */
static void
form_field_draw(struct ui *ui, const struct form_field *ff, int cur, int y,
    int x, int w)
{
	const char	*value = ff->value.data != NULL ? ff->value.data : "";
	int		 lw = 18, vw, used;

	ui_draw_textf(ui, y, x, lw, cur ? PAINT_TITLE : PAINT_NORMAL, "%s%s",
	    ff->label, ff->required ? "*" : "");
	vw = w - lw - 1;
	if (vw > 40 && w > 70)
		vw = w - lw - 1 - (w - lw) / 3;
	ui_draw_fill(ui, y, x + lw + 1, vw, cur ? PAINT_SELECT : PAINT_DIM);
	while (ui_draw_width(value) > vw - 1 && *value != '\0') {
		value++;
		while ((*value & 0xc0) == 0x80)
			value++;
	}
	used = ui_draw_text(ui, y, x + lw + 1, vw - 1, value, cur ?
	    PAINT_SELECT : PAINT_NORMAL);
	if (cur)
		ui_draw_text(ui, y, x + lw + 1 + used, 1, "_", PAINT_SELECT);
	if (w - lw - 2 - vw > 4)
		ui_draw_text(ui, y, x + lw + 2 + vw, w - lw - 2 - vw, ff->help,
		    PAINT_DIM);
}

/* The form in a box over the page. */
static void
form_draw(struct ui *ui, struct view *v, int y, int h)
{
	struct form	*f = v->data;
	int		 bw, bh, bx, by, rows, first, i, dl;
	char		*q;

	bw = ui->cols - 2 < 100 ? ui->cols - 2 : 100;
	dl = ui_draw_wrap(ui, -1, 0, bw - 4, 2, f->description, PAINT_DIM);
	bh = f->n + dl + 7;	/* a blank, two lines of review, the keys */
	if (bh > h)
		bh = h;
	bx = (ui->cols - bw) / 2;
	by = y + (h - bh) / 2;
	ui_draw_box(ui, by, bx, bh, bw);
	ui_draw_textf(ui, by, bx + 2, bw - 4, PAINT_TITLE, " run template %s "
	    "(version %lld) ", f->template, (long long)f->version);
	ui_draw_wrap(ui, by + 1, bx + 2, bw - 4, dl, f->description, PAINT_DIM);
	rows = bh - dl - 6;
	if (rows < 1)
		rows = 1;
	first = f->cur >= rows ? f->cur - rows + 1 : 0;
	for (i = 0; i < rows && first + i < f->n; i++)
		form_field_draw(ui, &f->fields[first + i], first + i == f->cur,
		    by + dl + 2 + i, bx + 2, bw - 4);
	if (f->review != NULL) {
		xasprintf(&q, "Start %s?", f->review);
		ui_draw_wrap(ui, by + bh - 4, bx + 2, bw - 4, 2, q, PAINT_WAIT);
		free(q);
		ui_draw_text(ui, by + bh - 2, bx + 2, bw - 4, "y: start it  "
		    "any other key: back to the form", PAINT_TITLE);
		return;
	}
	if (f->error != NULL)
		ui_draw_text(ui, by + bh - 3, bx + 2, bw - 4, f->error,
		    PAINT_ERROR);
	ui_draw_text(ui, by + bh - 2, bx + 2, bw - 4, "* required.  Enter "
	    "reviews the run, Tab/Down next field, Up previous, Esc cancels",
	    PAINT_DIM);
}

/* The footer while the form is open: its keys, as they are now. */
void
ui_form_footer(struct view *v, struct buf *b)
{
	struct form	*f = v->data;

	if (f->review != NULL)
		buf_puts(b, "y start  any other key: back to the form");
	else
		buf_puts(b, "Enter review  Tab/Down next  Up previous  "
		    "Esc cancel");
}
