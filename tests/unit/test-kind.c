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
 * test-kind.c: every row of the kind table (util/kind.c).  Each kind's
 * word round-trips, fits the schema's CHECK on a real database (a word
 * past KIND_WORD_MAX fails here, not in a user's run), is read back as
 * its enum, and has a flow step that parses to it; a stored word no row
 * has is refused naming the table and row.
 */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "store/store-int.h"
#include "store/driver-sqlite.h"
#include "engine/engine-int.h"
#include "tap.h"

static char			 tmpdir[] = "/tmp/test-kind.XXXXXX";
static struct store_actor	 alice = { 1000, "alice", "pts/1", "host1", NULL, NULL };

/* A step of each kind as a flow writes it: a new kind needs its line. */
static const char *const kind_steps[KIND_N] = {
	[KIND_GATE] = "{\"gate\": {\"message\": \"go?\"}}",
	[KIND_TOOL] = "{\"tool\": \"noop\"}",
	[KIND_RUN] = "{\"run\": [\"true\"]}",
	[KIND_SHELL] = "{\"shell\": \"true\"}",
	[KIND_WORKFLOW] = "{\"workflow\": \"child\"}",
	[KIND_WAIT] = "{\"wait\": true}"
};

/* Each word, label and noun; words parse back and suit the schema. */
static void
test_table(void)
{
	enum step_kind	 k;
	const char	*w;
	size_t		 i;
	int		 ok = 1;

	for (i = 0; i < KIND_N; i++) {
		w = kind_name(i);
		ok &= kind_parse(w, &k) == 0 && k == (enum step_kind)i;
		ok &= *kind_label(i) != '\0' && *kind_noun(i) != '\0';
		ok &= strlen(w) >= 1 && strlen(w) <= KIND_WORD_MAX;
		while (*w != '\0')
			ok &= islower((unsigned char)*w++) != 0;
	}
	tap_ok(ok, "every kind's word parses back, lowercase, at most %d "
	    "letters", KIND_WORD_MAX);
	tap_ok(kind_parse("sleep", &k) == -1 && kind_parse(NULL, &k) == -1,
	    "a word no row has is no kind");
	tap_is(kind_name(KIND_N), "?", "a value past the table has no word");
	tap_ok(kind_decided(KIND_GATE) && kind_decided(KIND_WAIT) &&
	    !kind_decided(KIND_SHELL), "gates and wait steps are decided "
	    "from outside");
	tap_ok(kind_names_target(KIND_TOOL) &&
	    kind_names_target(KIND_WORKFLOW) && !kind_names_target(KIND_RUN),
	    "tool and sub-workflow steps name what they run");
}

/* Each kind's step parses to that kind, and names its target. */
static void
test_flow(void)
{
	struct flow_diags	*d;
	struct flow		*f;
	char			*json;
	size_t			 i;

	for (i = 0; i < KIND_N; i++) {
		xasprintf(&json, "{\"start\": %s}", kind_steps[i]);
		d = flow_diags_create();
		f = flow_parse(json, strlen(json), d);
		tap_ok(f != NULL && flow_diags_errors(d) == 0 &&
		    f->steps[0].exec == (enum step_kind)i,
		    "a %s parses as kind %s", kind_noun(i), kind_name(i));
		if (f != NULL && kind_names_target(i))
			tap_ok(flow_step_target(&f->steps[0]) != NULL,
			    "... and names what it runs");
		if (f != NULL)
			flow_free(f);
		flow_diags_free(d);
		free(json);
	}
}

/* Every kind through a real insert and read; an unknown word refused. */
static void
test_store(struct store *s)
{
	struct store_workflow	 wf;
	struct store_step	 first, *row;
	char			*cause = NULL, want[128];
	size_t			 i;
	sqlite3_stmt		*st;

	for (i = 0; i < KIND_N; i++) {
		memset(&wf, 0, sizeof wf);
		memset(&first, 0, sizeof first);
		wf.name = (char *)kind_name(i);
		wf.flow_json = (char *)"{\"start\":{}}";
		first.name = (char *)"start";
		first.kind = i;
		first.status = STEP_READY;
		if (store_run_create(s, &wf, &first, &alice, &cause) != 0) {
			tap_ok(0, "a %s row is stored: %s", kind_name(i),
			    cause);
			free(cause);
			cause = NULL;
			continue;
		}
		if (store_step_get(s, first.id, &row, &cause) != 0) {
			tap_ok(0, "a %s row is read: %s", kind_name(i), cause);
			free(cause);
			cause = NULL;
			continue;
		}
		tap_ok(row->kind == (enum step_kind)i, "a %s row is stored "
		    "and read back as its kind", kind_name(i));
		store_step_free(row);
	}

	/* A word the schema allows but no row of the table has. */
	if (sqlite3_prepare_v2(store_sqlite_db(s->conn), "UPDATE workflow_steps SET kind = "
	    "'sleep' WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		fatalx("%s", sqlite3_errmsg(store_sqlite_db(s->conn)));
	sqlite3_bind_int64(st, 1, first.id);
	tap_ok(sqlite3_step(st) == SQLITE_DONE, "(a row of unknown kind)");
	sqlite3_finalize(st);
	snprintf(want, sizeof want, "workflow_steps row %lld: unknown step "
	    "kind \"sleep\"", (long long)first.id);
	tap_ok(store_step_get(s, first.id, &row, &cause) == STORE_ERR &&
	    row == NULL, "a step of unknown kind is not read");
	tap_is(cause, want, "the reason names the table, the row and the "
	    "word");
	free(cause);
}

/*
 * The engine's runner table: only a kind that starts processes counts
 * as one that may have left some behind (recovery looks for them).
 */
static void
test_runner(void)
{
	tap_ok(engine_kind_ran_process(KIND_TOOL) &&
	    engine_kind_ran_process(KIND_RUN) &&
	    engine_kind_ran_process(KIND_SHELL),
	    "tool, run and shell steps may leave processes behind");
	tap_ok(!engine_kind_ran_process(KIND_GATE) &&
	    !engine_kind_ran_process(KIND_WAIT) &&
	    !engine_kind_ran_process(KIND_WORKFLOW),
	    "gates, wait and sub-workflow steps run none of their own");
	tap_ok(!engine_kind_ran_process((enum step_kind)KIND_N),
	    "a kind past the table counts as one that ran none");
}

int
main(void)
{
	struct store	*s = NULL;
	char		 path[128];
	char		*cause = NULL;
	const char	*ext[] = { "", "-wal", "-shm" };
	size_t		 i;

	test_table();
	test_flow();
	test_runner();
	if (mkdtemp(tmpdir) == NULL)
		fatal("mkdtemp");
	snprintf(path, sizeof path, "%s/kind.db", tmpdir);
	if (store_open(path, 0, &s, &cause) != 0)
		fatalx("%s", cause);
	test_store(s);
	store_close(s);
	for (i = 0; i < nitems(ext); i++) {
		snprintf(path, sizeof path, "%s/kind.db%s", tmpdir, ext[i]);
		unlink(path);
	}
	rmdir(tmpdir);
	return (tap_done());
}
