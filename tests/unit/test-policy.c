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
 * test-policy.c: the stored gate and wait policy (flow/policy.c).  What
 * the writer writes the reader reads back; the reader refuses, with the
 * JSON path, every key no row is written with (a misspelling, a wait
 * step's key on a gate) and every value of the wrong type, and a row
 * with no policy at all.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "flow/flow.h"
#include "tap.h"

/* Read json as a row of kind; the reason, or "ok". */
static char *
read_why(const char *json, enum step_kind kind)
{
	struct flow_policy	 p;
	char			*cause;

	if (flow_policy_read(json, kind, &p, &cause) == 0) {
		flow_policy_free(&p);
		return (xstrdup("ok"));
	}
	return (cause);
}

/* One refusal case: the reason is want. */
static void
refused(const char *json, enum step_kind kind, const char *want)
{
	char	*why = read_why(json, kind);

	tap_is(why, want, json);
	free(why);
}

int
main(void)
{
	struct flow_policy	 p, q;
	char			*json, *again, *cause;
	char			 alice[] = "alice", ops[] = "@ops";
	char			*names[] = { alice, ops };

	json_init();
	flow_policy_init(&p, KIND_GATE);
	p.message = xstrdup("Ship 1.2?");
	p.approvers = names;
	p.napprovers = 2;
	p.quorum = 2;
	p.allow_self = 0;
	p.agents = 1;
	p.timeout_ms = 3600000;
	p.on_timeout = xstrdup("escalate");
	p.foreach = FLOW_POLICY_BATCH;
	p.batch = 3;
	json = flow_policy_write(&p);
	tap_is(json, "{\"message\":\"Ship 1.2?\",\"approvers\":[\"alice\","
	    "\"@ops\"],\"quorum\":2,\"allow_self\":false,\"agents\":true,"
	    "\"timeout_ms\":3600000,\"on_timeout\":\"escalate\",\"foreach\":"
	    "\"batch\",\"batch\":3}", "a gate's policy, written");
	tap_ok(flow_policy_read(json, KIND_GATE, &q, &cause) == 0 &&
	    q.napprovers == 2 && strcmp(q.approvers[1], "@ops") == 0 &&
	    q.quorum == 2 && q.allow_self == 0 && q.agents == 1 &&
	    q.timeout_ms == 3600000 && q.foreach == FLOW_POLICY_BATCH &&
	    q.batch == 3 && strcmp(q.on_timeout, "escalate") == 0,
	    "... read back field by field");
	again = flow_policy_write(&q);
	tap_is(again, json, "... and written again the same");
	free(again);
	flow_policy_free(&q);
	free(json);
	p.approvers = NULL;
	p.napprovers = 0;
	flow_policy_free(&p);

	flow_policy_init(&p, KIND_WAIT);
	p.operators = 1;
	json = flow_policy_write(&p);
	tap_is(json, "{\"message\":\"\",\"by\":[],\"operators\":true}",
	    "a wait step's policy, written");
	tap_ok(flow_policy_read(json, KIND_WAIT, &q, &cause) == 0 &&
	    q.nby == 0 && q.operators == 1 && q.allow_self == -1,
	    "... read back");
	flow_policy_free(&q);
	free(json);

	flow_policy_init(&p, KIND_GATE);
	tap_ok(flow_policy_read("{\"message\":\"m\"}", KIND_GATE, &p,
	    &cause) == 0 && p.napprovers == 0 && p.quorum == 1 &&
	    p.allow_self == -1 && p.agents == -1 && p.timeout_ms == -1,
	    "keys left out take their defaults");
	flow_policy_free(&p);

	refused("{\"aprovers\":[\"alice\"]}", KIND_GATE,
	    "$.aprovers: unknown key in a gate's policy");
	refused("{\"by\":[\"alice\"]}", KIND_GATE,
	    "$.by: unknown key in a gate's policy");
	refused("{\"approvers\":[\"alice\"]}", KIND_WAIT,
	    "$.approvers: unknown key in a wait step's policy");
	refused("{\"approvers\":\"alice\"}", KIND_GATE,
	    "$.approvers: expected an array of names, got a string");
	refused("{\"approvers\":[\"alice\",7]}", KIND_GATE,
	    "$.approvers: expected an array of names, got an array");
	refused("{\"quorum\":0}", KIND_GATE,
	    "$.quorum: expected a whole number above zero, got a number");
	refused("{\"quorum\":1.5}", KIND_GATE,
	    "$.quorum: expected a whole number above zero, got a number");
	refused("{\"allow_self\":\"no\"}", KIND_GATE,
	    "$.allow_self: expected true or false, got a string");
	refused("{\"agents\":1}", KIND_GATE,
	    "$.agents: expected true or false, got a number");
	refused("{\"foreach\":\"batches\"}", KIND_GATE,
	    "$.foreach: expected \"batch\" or \"budget\", got a string");
	refused("{\"timeout_ms\":-5}", KIND_WAIT,
	    "$.timeout_ms: expected a whole number of milliseconds, got a "
	    "number");
	refused("{\"a\\u001bb\":1}", KIND_GATE,
	    "$.a\\eb: unknown key in a gate's policy");
	refused("[1]", KIND_GATE, "$: expected an object, got an array");
	refused("{", KIND_GATE, "$: expected an object, got text that is "
	    "not JSON");
	refused(NULL, KIND_GATE, "no stored policy");
	return (tap_done());
}
