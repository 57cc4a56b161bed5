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
 * Enters must never start a real run.  A value is text read as the
 * input's declared type (as -i KEY=VAL), or, for an input of no type
 * whose default is not a string, JSON (as -i KEY:=JSON).  Each field
 * shows what its input accepts ("integer 1..10"); an enum is a list to
 * choose from and a boolean a toggle (Space, Left, Right); a value the
 * declaration refuses is refused by flow_input_check, the check every
 * way of starting a run makes, with the reason under its field.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sched/sched.h"
#include "ui/ui-int.h"
#include "ui/curses-lib.h"

#define FORM_VALUE_MAX	4096

struct form_field {
	char		*key;		/* input key; NULL for name and at */
	char		*label;
	char		*help;
	char		*rule;		/* what the input accepts, in words */
	char		*error;		/* why its value was refused */
	int		 required;
	int		 json;		/* no type; the default is not a string */
	int		 toggle;	/* a boolean: Space flips it */
	char		**choices;	/* an enum's values as JSON, or NULL */
	int		 nchoices;
	int		 secret;	/* shown as stars, sent apart */
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
static void	 form_field_typed(struct form_field *, const struct flow_input *,
		     int);
static void	 form_field_cycle(struct form_field *, int);
static const char *form_field_choice(const struct form_field *,
		     const char *);
static void	 form_submit(struct ui *, struct view *);
static void	 form_start(struct ui *, struct view *);
static void	 form_unreview(struct form *);
static int	 form_input(struct form *, cJSON **, cJSON *, struct buf *,
		     char **);
static int	 form_check_fields(struct form *, const struct flow_doc *,
		     const cJSON *, const cJSON *);
static void	 form_secrets(const struct form *, cJSON *);
static char	*form_request(struct ui *, struct form *, cJSON *,
		     const cJSON *, int64_t, char **);

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

/* The text a field shows for one of an enum's values (as JSON). */
static char *
form_choice_text(const char *json)
{
	cJSON	*v;
	char	*text;

	v = json_parse_or_null(json);
	text = cJSON_IsString(v) ? xstrdup(v->valuestring) : xstrdup(json);
	cJSON_Delete(v);
	return (text);
}

/* What a field knows of its input's declaration: its rule, its kind. */
static void
form_field_typed(struct form_field *ff, const struct flow_input *in,
    int json)
{
	cJSON		*list;
	const cJSON	*e;

	ff->required = in->required;
	ff->rule = flow_input_rule_text(in);
	ff->json = json && in->rule.type == FLOW_INPUT_ANY;
	if (in->rule.enum_json != NULL &&
	    (list = json_parse_or_null(in->rule.enum_json)) != NULL) {
		cJSON_ArrayForEach(e, list) {
			ff->choices = xreallocarray(ff->choices,
			    ff->nchoices + 1, sizeof *ff->choices);
			ff->choices[ff->nchoices++] = json_print(e);
		}
		cJSON_Delete(list);
	} else if (in->rule.type == FLOW_INPUT_BOOLEAN)
		ff->toggle = 1;
}

/* Space, Right (dir 1) or Left (-1) on a list or a toggle: the next value. */
static void
form_field_cycle(struct form_field *ff, int dir)
{
	const char	*now = ff->value.data != NULL ? ff->value.data : "";
	char		*text;
	int		 i, at = -1;

	if (ff->toggle) {
		buf_reset(&ff->value);
		buf_puts(&ff->value, strcmp(now, "true") == 0 ? "false" :
		    "true");
		return;
	}
	for (i = 0; i < ff->nchoices; i++) {
		text = form_choice_text(ff->choices[i]);
		if (strcmp(text, now) == 0)
			at = i;
		free(text);
	}
	if (at < 0)
		at = dir > 0 ? 0 : ff->nchoices - 1;
	else
		at = (at + ff->nchoices + dir) % ff->nchoices;
	text = form_choice_text(ff->choices[at]);
	buf_reset(&ff->value);
	buf_puts(&ff->value, text);
	free(text);
}

/* The JSON of the enum value a field shows, or NULL when it shows none. */
static const char *
form_field_choice(const struct form_field *ff, const char *text)
{
	char	*c;
	int	 i, found;

	for (i = 0; i < ff->nchoices; i++) {
		c = form_choice_text(ff->choices[i]);
		found = strcmp(c, text) == 0;
		free(c);
		if (found)
			return (ff->choices[i]);
	}
	return (NULL);
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
		/* A secret is never filled in: the last run's is "***". */
		json = 0;
		text = doc->inputs[i].secret ? NULL :
		    form_initial(&doc->inputs[i], prev, &json);
		ff = form_add(f, doc->inputs[i].key, doc->inputs[i].key,
		    doc->inputs[i].description, text);
		free(text);
		form_field_typed(ff, &doc->inputs[i], json);
		ff->secret = doc->inputs[i].secret;
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
	int		 i, j;

	for (i = 0; i < f->n; i++) {
		free(f->fields[i].key);
		free(f->fields[i].label);
		free(f->fields[i].help);
		free(f->fields[i].rule);
		free(f->fields[i].error);
		for (j = 0; j < f->fields[i].nchoices; j++)
			free(f->fields[i].choices[j]);
		free(f->fields[i].choices);
		if (f->fields[i].secret && f->fields[i].value.data != NULL)
			explicit_bzero(f->fields[i].value.data,
			    f->fields[i].value.len);
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
 * The input object from the fields, the keys given as text (read as
 * their declared type), and the -i words of the equivalent command; -1
 * with a reason under the field when one is not valid.
 */
static int
form_input(struct form *f, cJSON **inputp, cJSON *texts, struct buf *words,
    char **cause)
{
	struct form_field	*ff;
	cJSON			*input, *v;
	const char		*text, *choice;
	int			 i;

	input = cJSON_CreateObject();
	*cause = NULL;
	for (i = 0; i < f->n; i++) {
		ff = &f->fields[i];
		text = ff->value.data != NULL ? ff->value.data : "";
		if (ff->key == NULL || (*text == '\0' && !ff->required))
			continue;
		choice = form_field_choice(ff, text);
		if (*text == '\0')
			xasprintf(&ff->error, "input %s is required", ff->key);
		else if (choice != NULL && *choice != '"') {
			/* A number or other JSON value from the list. */
			text = choice;
		} else if (ff->json && choice == NULL &&
		    (v = cJSON_Parse(text)) != NULL)
			cJSON_Delete(v);
		else if (ff->json && choice == NULL)
			xasprintf(&ff->error, "input %s: not valid JSON (its "
			    "default is JSON)", ff->key);
		if (ff->error != NULL) {
			f->cur = i;
			cJSON_Delete(input);
			return (-1);
		}
		if (ff->secret) {
			/* The value goes apart; the command reads stdin. */
			cJSON_AddStringToObject(input, ff->key, MASK_TEXT);
			buf_printf(words, " -i %s=@-", ff->key);
			continue;
		}
		if (text == choice || (ff->json && choice == NULL)) {
			v = cJSON_Parse(text);
			buf_printf(words, " -i %s:=", ff->key);
		} else {
			v = cJSON_CreateString(text);
			cJSON_AddTrueToObject(texts, ff->key);
			buf_printf(words, " -i %s=", ff->key);
		}
		ui_action_quote(words, text);
		cJSON_AddItemToObject(input, ff->key, v);
	}
	*inputp = input;
	return (0);
}

/*
 * Check each field's value alone, with the check every start makes, so
 * a refusal shows under its field.  0, or -1 with the field marked.
 */
static int
form_check_fields(struct form *f, const struct flow_doc *doc,
    const cJSON *input, const cJSON *texts)
{
	struct form_field	*ff;
	const cJSON		*c;
	cJSON			*v;
	size_t			 j;
	int			 i, rc;

	for (i = 0; i < f->n; i++) {
		ff = &f->fields[i];
		if (ff->key == NULL ||
		    (c = cJSON_GetObjectItemCaseSensitive(input, ff->key)) ==
		    NULL)
			continue;
		for (j = 0; j < doc->ninputs; j++) {
			if (strcmp(doc->inputs[j].key, ff->key) == 0)
				break;
		}
		if (j == doc->ninputs)
			continue;
		if (ff->secret)
			v = cJSON_CreateString(ff->value.data);
		else if ((v = cJSON_Duplicate(c, 1)) == NULL)
			fatalx("%s: out of memory", __func__);
		rc = flow_input_check(&doc->inputs[j], &v, ff->secret ||
		    cJSON_GetObjectItemCaseSensitive(texts, ff->key) != NULL,
		    &ff->error);
		cJSON_Delete(v);
		if (rc != 0 && ff->secret) {
			/* The reason would quote the value. */
			free(ff->error);
			xasprintf(&ff->error, "input %s (secret): the value "
			    "does not keep its rules", ff->key);
		}
		if (rc != 0) {
			f->cur = i;
			return (-1);
		}
	}
	return (0);
}

/* The secret fields' values, apart from the input (SPEC §13). */
static void
form_secrets(const struct form *f, cJSON *a)
{
	cJSON	*o = NULL;
	int	 i;

	for (i = 0; i < f->n; i++) {
		if (!f->fields[i].secret || f->fields[i].value.len == 0)
			continue;
		if (o == NULL)
			o = cJSON_AddObjectToObject(a, "secret_input");
		cJSON_AddStringToObject(o, f->fields[i].key,
		    f->fields[i].value.data);
	}
}

/* The start command's arguments, as "sluice template run" builds them. */
static char *
form_request(struct ui *ui, struct form *f, cJSON *input, const cJSON *texts,
    int64_t start_at, char **cause)
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
	if (form_check_fields(f, doc, input, texts) != 0)
		*cause = NULL;		/* the reason is under its field */
	else if ((checked = flow_doc_input_text(doc, input, texts,
	    cause)) != NULL) {
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
		form_secrets(f, a);
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
	cJSON			*input = NULL, *texts;
	const char		*name, *at;
	char			*cause = NULL, *args;
	int64_t			 start_at = 0;
	int			 i;

	for (i = 0; i < f->n; i++) {
		free(f->fields[i].error);
		f->fields[i].error = NULL;
	}
	texts = cJSON_CreateObject();
	buf_init(&words);
	buf_puts(&words, "template run ");
	ui_action_quote(&words, f->template);
	name = f->fields[f->n - 2].value.data;
	at = f->fields[f->n - 1].value.data;
	if (form_input(f, &input, texts, &words, &cause) != 0)
		goto refused;
	if (at != NULL && *at != '\0' && when_parse(at, time_now_ms(),
	    &start_at, &f->fields[f->n - 1].error) != 0) {
		f->cur = f->n - 1;
		goto refused;
	}
	if ((args = form_request(ui, f, input, texts, start_at,
	    &cause)) == NULL)
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
	cJSON_Delete(texts);
	ui_dirty(ui);
	return;
refused:
	free(f->error);
	f->error = cause;
	buf_free(&words);
	cJSON_Delete(input);
	cJSON_Delete(texts);
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
	struct form_field	*ff = &f->fields[f->cur];
	struct buf		*b = &ff->value;
	int			 chooses = ff->toggle || ff->nchoices > 0;

	if (f->review != NULL) {
		if (key == 'y')
			form_start(ui, v);
		else {
			form_unreview(f);
			ui_dirty(ui);
		}
		return (1);
	}
	if (chooses && (key == ' ' || key == KEY_FN(KEY_RIGHT) ||
	    key == KEY_FN(KEY_LEFT))) {
		form_field_cycle(ff, key == KEY_FN(KEY_LEFT) ? -1 : 1);
		ui_dirty(ui);
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
		/* A list or a toggle is chosen, not typed. */
		if (chooses || key < 0x20 || key == 0x7f ||
		    key >= KEY_FN(0) || b->len >= FORM_VALUE_MAX)
			return (1);
		ui_prompt_append(ui, b, key);
		break;
	}
	ui_dirty(ui);
	return (1);
}

/*
 * What a field's value shows: the text typed, "< prod >" for a choice
 * from a list, "[x] true" for a toggle (the caller frees).
 */
static char *
form_field_shown(const struct form_field *ff)
{
	const char	*value = ff->value.data != NULL ? ff->value.data : "";
	char		*s;
	size_t		 n;

	if (ff->secret) {
		/* Masked as typed: a star for each character. */
		s = xcalloc(1, strlen(value) + 1);
		for (n = 0; *value != '\0'; value++) {
			if ((*value & 0xc0) != 0x80)
				s[n++] = '*';
		}
	} else if (ff->toggle)
		xasprintf(&s, "[%s] %s", strcmp(value, "true") == 0 ? "x" :
		    " ", *value != '\0' ? value : "(not given)");
	else if (ff->nchoices > 0)
		xasprintf(&s, "< %s >", *value != '\0' ? value :
		    "(not given)");
	else
		s = xstrdup(value);
	return (s);
}

/*
 * One field's line: label (starred when required), value, then what the
 * input accepts and its description.
 */
static void
form_field_draw(struct ui *ui, const struct form_field *ff, int cur, int y,
    int x, int w)
{
	const char	*value;
	char		*shown, *help;
	int		 lw = 18, vw, used;

	ui_draw_textf(ui, y, x, lw, cur ? PAINT_TITLE : PAINT_NORMAL, "%s%s",
	    ff->label, ff->required ? "*" : "");
	/* Half the room for the value, half for what it must be. */
	vw = w - lw - 1;
	if (vw > 40 && w > 70)
		vw = (w - lw - 1) / 2;
	ui_draw_fill(ui, y, x + lw + 1, vw, cur ? PAINT_SELECT : PAINT_DIM);
	value = shown = form_field_shown(ff);
	while (ui_draw_width(value) > vw - 1 && *value != '\0') {
		value++;
		while ((*value & 0xc0) == 0x80)
			value++;
	}
	used = ui_draw_text(ui, y, x + lw + 1, vw - 1, value, cur ?
	    PAINT_SELECT : PAINT_NORMAL);
	free(shown);
	if (cur && !ff->toggle && ff->nchoices == 0)
		ui_draw_text(ui, y, x + lw + 1 + used, 1, "_", PAINT_SELECT);
	if (w - lw - 2 - vw <= 4)
		return;
	xasprintf(&help, "%s%s%s", ff->rule != NULL ? ff->rule : "",
	    ff->rule != NULL && *ff->rule != '\0' && *ff->help != '\0' ?
	    "; " : "", ff->help);
	ui_draw_text(ui, y, x + lw + 2 + vw, w - lw - 2 - vw, help, PAINT_DIM);
	free(help);
}

/* The field whose value was refused, or -1. */
static int
form_error_field(const struct form *f)
{
	int	i;

	for (i = 0; i < f->n; i++) {
		if (f->fields[i].error != NULL)
			return (i);
	}
	return (-1);
}

/* The fields from the first that fits, a refusal under its field. */
static void
form_fields_draw(struct ui *ui, struct form *f, int y, int x, int w,
    int rows)
{
	int	err, first, i, line = 0;

	err = form_error_field(f);
	first = f->cur >= rows - (err >= 0) ? f->cur - rows + 1 +
	    (err >= 0) : 0;
	if (first < 0)
		first = 0;
	for (i = first; i < f->n && line < rows; i++) {
		form_field_draw(ui, &f->fields[i], i == f->cur, y + line++, x,
		    w);
		if (i == err && line < rows)
			ui_draw_text(ui, y + line++, x + 2, w - 2,
			    f->fields[i].error, PAINT_ERROR);
	}
}

/* The form in a box over the page. */
static void
form_draw(struct ui *ui, struct view *v, int y, int h)
{
	struct form	*f = v->data;
	int		 bw, bh, bx, by, rows, dl;
	char		*q;

	bw = ui->cols - 2 < 100 ? ui->cols - 2 : 100;
	dl = ui_draw_wrap(ui, -1, 0, bw - 4, 2, f->description, PAINT_DIM);
	/* A blank, two lines of review, the keys; a refusal's line. */
	bh = f->n + dl + 7 + (form_error_field(f) >= 0);
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
	form_fields_draw(ui, f, by + dl + 2, bx + 2, bw - 4, rows);
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
	    "reviews the run, Tab/Down next field, Up previous, Space or "
	    "Left/Right chooses from a list, Esc cancels", PAINT_DIM);
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
		    "Space choose  Esc cancel");
}
