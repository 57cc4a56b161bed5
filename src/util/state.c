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
 * state.c: the states a person sees, one vocabulary for the console (the
 * Workflows view, the run view, the header's counts, the / filter), the
 * CLI (list, list --status, --json) and scripts.  The store keeps a
 * run's status; what a person needs to know besides (it is held at a
 * gate, paused, past its SLA) is folded in here, by one rule, so every
 * surface says the same word for the same run.
 */

#include <stddef.h>
#include <string.h>

#include "util/util.h"

/* A state's word, glyphs (UTF-8, ASCII) and tone. */
static const struct {
	const char		*word;
	const char		*utf8;
	const char		*ascii;
	enum status_tone	 tone;
} state_table[STATE_N] = {
	[STATE_RUNNING] =	{ "running", "\u25b6", ">", TONE_RUN },
	[STATE_WAITING] =	{ "waiting", "\u25c6", "?", TONE_WAIT },
	[STATE_PAUSED] =	{ "paused", "\u2016", "=", TONE_WAIT },
	[STATE_SCHEDULED] =	{ "scheduled", "\u25f7", "@", TONE_NORMAL },
	[STATE_QUEUED] =	{ "queued", "\u29d7", "&", TONE_WAIT },
	[STATE_LATE] =		{ "late", "\u29d6", "!", TONE_LATE },
	[STATE_COMPLETED] =	{ "completed", "\u2713", "+", TONE_OK },
	[STATE_FAILED] =	{ "failed", "\u2717", "x", TONE_BAD },
	[STATE_CANCELLED] =	{ "cancelled", "\u2298", "-", TONE_DIM }
};

/*
 * The state of a run: its stored status, whether it is paused, whether a
 * gate of it waits for people, whether it is past its SLA.  Only a
 * running run has more to say than its status.  Late comes first (the
 * most urgent thing to know of a run, whatever holds it), then paused (a
 * person stopped it, it goes nowhere until resumed), then waiting (it
 * needs a decision).
 */
enum run_state
state_of(enum run_status st, int paused, int waiting, int late)
{
	switch (st) {
	case RUN_SCHEDULED:
		return (STATE_SCHEDULED);
	case RUN_QUEUED:
		return (STATE_QUEUED);
	case RUN_COMPLETED:
		return (STATE_COMPLETED);
	case RUN_FAILED:
		return (STATE_FAILED);
	case RUN_CANCELLED:
		return (STATE_CANCELLED);
	case RUN_RUNNING:
		break;
	}
	if (late)
		return (STATE_LATE);
	if (paused)
		return (STATE_PAUSED);
	if (waiting)
		return (STATE_WAITING);
	return (STATE_RUNNING);
}

/* The stored status a state comes from (a filter's index). */
enum run_status
state_status(enum run_state st)
{
	switch (st) {
	case STATE_SCHEDULED:
		return (RUN_SCHEDULED);
	case STATE_QUEUED:
		return (RUN_QUEUED);
	case STATE_COMPLETED:
		return (RUN_COMPLETED);
	case STATE_FAILED:
		return (RUN_FAILED);
	case STATE_CANCELLED:
		return (RUN_CANCELLED);
	default:
		return (RUN_RUNNING);
	}
}

/* A state's word. */
const char *
state_name(enum run_state st)
{
	if ((unsigned)st >= STATE_N)
		return ("?");
	return (state_table[st].word);
}

/* The state a word names, or -1. */
int
state_parse(const char *word, enum run_state *st)
{
	size_t	 i;

	for (i = 0; word != NULL && i < STATE_N; i++) {
		if (strcmp(state_table[i].word, word) == 0) {
			*st = (enum run_state)i;
			return (0);
		}
	}
	return (-1);
}

/* A state's glyph: UTF-8 when the terminal has it, else ASCII. */
const char *
state_glyph(enum run_state st, int utf8)
{
	if ((unsigned)st >= STATE_N)
		return (" ");
	return (utf8 ? state_table[st].utf8 : state_table[st].ascii);
}

/* How a state is coloured. */
enum status_tone
state_tone(enum run_state st)
{
	if ((unsigned)st >= STATE_N)
		return (TONE_NORMAL);
	return (state_table[st].tone);
}

/* Every word, for a refusal: "running, waiting, ..., cancelled". */
const char *
state_words(void)
{
	static char	 words[128];
	size_t		 i;

	if (*words == '\0') {
		for (i = 0; i < STATE_N; i++) {
			if (i != 0)
				strlcat(words, ", ", sizeof words);
			strlcat(words, state_table[i].word, sizeof words);
		}
	}
	return (words);
}
