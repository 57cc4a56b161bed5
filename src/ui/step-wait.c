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
 * step-wait.c: what the step view shows for a wait step, finished from
 * outside: its message, who may finish it (the "by" fixed on its row, or
 * the operators rule), the commands that do, when it times out, and,
 * once finished, its result.
 */

#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

/* Who the row's policy lets finish it, for people. */
static void
step_wait_by(struct stepv *sv, const struct flow_policy *p)
{
	struct buf	 b;

	buf_init(&b);
	buf_join(&b, p->by, p->nby);
	if (b.len == 0)
		buf_puts(&b, p->operators ? "the site's operators" :
		    "anyone who may write the database");
	ui_step_field(sv, "finished by", PAINT_NORMAL, "%s", b.data);
	buf_free(&b);
}

/* A wait step's detail: message, who may finish it and how, its end. */
void
ui_step_wait(struct ui *ui, struct stepv *sv, const struct store_step *s)
{
	struct flow_policy	 p;
	char			 when[32], age[16], *why, *unreadable;
	int64_t			 due = 0, now = time_now_ms();
	int			 escalate;

	if (flow_policy_read(s->gate_json, KIND_WAIT, &p, &why) != 0) {
		unreadable = flow_policy_unreadable(why);
		ui_step_field(sv, "policy", PAINT_BAD, "%s: it cannot be "
		    "finished from outside", unreadable);
		free(unreadable);
		free(why);
	} else {
		ui_step_field(sv, "message", PAINT_NORMAL, "%s",
		    p.message != NULL && *p.message != '\0' ? p.message :
		    "(none)");
		step_wait_by(sv, &p);
	}
	if (s->status == STEP_WAITING) {
		ui_step_field(sv, "finish", PAINT_WAIT, "from outside: sluice "
		    "complete %lld --result JSON", (long long)s->id);
		ui_step_field(sv, "", PAINT_WAIT, "or: sluice fail %lld -m "
		    "REASON (also as %lld:%s)", (long long)s->id,
		    (long long)s->workflow_id, s->step_key);
	}
	if (s->status == STEP_WAITING && store_timer_of_step(
	    ui->store, s->id, "wait_timeout", &due) == 0 && due > 0) {
		escalate = p.on_timeout != NULL &&
		    strcmp(p.on_timeout, "fail") != 0;
		time_age(due > now ? due - now : 0, age, sizeof age);
		ui_step_field(sv, "times out", PAINT_WAIT, "%s (in %s), then "
		    "%s%s", ui_step_when(due, when, sizeof when), age,
		    escalate ? "escalates to " : "it fails",
		    escalate ? p.on_timeout : "");
	}
	flow_policy_free(&p);
	if (s->result_json != NULL) {
		ui_step_heading(sv, "Result");
		ui_step_json(sv, s->result_json, 2);
	}
}
