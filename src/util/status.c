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
 * status.c: the one spelling of the statuses the store keeps, with the
 * glyph and tone a printer shows for a step.  The store reads and writes
 * these words (store/status.c); everything above compares the enums.
 */

#include <stddef.h>
#include <string.h>

#include "util/util.h"

/* A step status: its stored word, glyphs (UTF-8, ASCII), tone. */
static const struct {
	const char		*word;
	const char		*utf8;
	const char		*ascii;
	enum status_tone	 tone;
} status_steps[STEP_NSTATUS] = {
	[STEP_PENDING] =	{ "pending", "\u25cb", ".", TONE_DIM },
	[STEP_READY] =		{ "ready", "\u25cb", ".", TONE_NORMAL },
	[STEP_RUNNING] =	{ "running", "\u25b6", ">", TONE_RUN },
	[STEP_WAITING] =	{ "waiting", "\u25c6", "?", TONE_WAIT },
	[STEP_DONE] =		{ "done", "\u2713", "+", TONE_OK },
	[STEP_FAILED] =		{ "failed", "\u2717", "x", TONE_BAD },
	[STEP_CANCELLED] =	{ "cancelled", "\u2298", "-", TONE_DIM },
	[STEP_SKIPPED] =	{ "skipped", "\u21b7", "~", TONE_DIM },
	[STEP_QUEUED] =		{ "queued", "\u29d7", "&", TONE_WAIT }
};

/* A workflow status's stored word. */
static const char *const status_runs[RUN_NSTATUS] = {
	[RUN_SCHEDULED] = "scheduled",
	[RUN_RUNNING] = "running",
	[RUN_COMPLETED] = "completed",
	[RUN_FAILED] = "failed",
	[RUN_CANCELLED] = "cancelled",
	[RUN_QUEUED] = "queued"
};

/* A step status's word ("?" for a value no table has: a broken caller). */
const char *
status_step_name(enum step_status st)
{
	if ((unsigned)st >= STEP_NSTATUS)
		return ("?");
	return (status_steps[st].word);
}

/* The step status a word spells, or -1 for a word that is none. */
int
status_step_parse(const char *word, enum step_status *st)
{
	size_t	 i;

	for (i = 0; word != NULL && i < STEP_NSTATUS; i++) {
		if (strcmp(status_steps[i].word, word) == 0) {
			*st = (enum step_status)i;
			return (0);
		}
	}
	return (-1);
}

/* A step status's glyph: UTF-8 when the terminal has it, else ASCII. */
const char *
status_step_glyph(enum step_status st, int utf8)
{
	if ((unsigned)st >= STEP_NSTATUS)
		return (" ");
	return (utf8 ? status_steps[st].utf8 : status_steps[st].ascii);
}

/* How a step status is coloured. */
enum status_tone
status_step_tone(enum step_status st)
{
	if ((unsigned)st >= STEP_NSTATUS)
		return (TONE_NORMAL);
	return (status_steps[st].tone);
}

/* A step that will not move again by itself (done, failed, ...). */
int
status_step_ended(enum step_status st)
{
	return (st == STEP_DONE || st == STEP_FAILED || st == STEP_CANCELLED ||
	    st == STEP_SKIPPED);
}

/* A workflow status's word. */
const char *
status_run_name(enum run_status st)
{
	if ((unsigned)st >= RUN_NSTATUS)
		return ("?");
	return (status_runs[st]);
}

/* The workflow status a word spells, or -1. */
int
status_run_parse(const char *word, enum run_status *st)
{
	size_t	 i;

	for (i = 0; word != NULL && i < RUN_NSTATUS; i++) {
		if (strcmp(status_runs[i], word) == 0) {
			*st = (enum run_status)i;
			return (0);
		}
	}
	return (-1);
}

/* A workflow that has ended: completed, failed or cancelled. */
int
status_run_ended(enum run_status st)
{
	return (st == RUN_COMPLETED || st == RUN_FAILED ||
	    st == RUN_CANCELLED);
}
