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
 * pg-commit.c: what one PostgreSQL commit costs, the yardstick of issue
 * 23's leader goal ("approve -> next start < 5 ms + one PostgreSQL
 * commit").  Each of N transactions is engine-shaped: BEGIN, a one-row
 * INSERT, COMMIT, each statement its own round trip, as a client that
 * decides its next statement from the last answer sends them; COMMIT
 * returns once the server's synchronous_commit is met (with a
 * synchronous standby: once the standby has the WAL).  Prints the time
 * of each transaction, BEGIN sent to COMMIT answered, in milliseconds,
 * one a line.  Not part of sluice: cluster-approve.sh builds it with
 * libpq at bench time (as monotime.c), so a sluice built without
 * PostgreSQL never links it.
 *
 * usage: pg-commit CONNINFO N
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

static int64_t	now_us(void);
static void	run(PGconn *, const char *, ExecStatusType);

/* Now on the monotonic clock, in microseconds. */
static int64_t
now_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

/* One statement, one round trip; anything unexpected ends the program. */
static void
run(PGconn *pg, const char *sql, ExecStatusType want)
{
	PGresult	*res;

	res = PQexec(pg, sql);
	if (PQresultStatus(res) != want) {
		fprintf(stderr, "pg-commit: %s: %s", sql,
		    PQerrorMessage(pg));
		exit(1);
	}
	PQclear(res);
}

int
main(int argc, char **argv)
{
	PGconn		*pg;
	long long	 n, i;
	int64_t		 t0;
	char		*end;

	if (argc != 3) {
		fprintf(stderr, "usage: pg-commit CONNINFO N\n");
		return (2);
	}
	n = strtoll(argv[2], &end, 10);
	if (*argv[2] == '\0' || *end != '\0' || n < 1) {
		fprintf(stderr, "pg-commit: N is not a positive number\n");
		return (2);
	}
	pg = PQconnectdb(argv[1]);
	if (PQstatus(pg) != CONNECTION_OK) {
		fprintf(stderr, "pg-commit: %s", PQerrorMessage(pg));
		return (1);
	}
	/* A table of its own, as durable (logged, replicated) as sluice's. */
	run(pg, "SET client_min_messages = warning", PGRES_COMMAND_OK);
	run(pg, "CREATE TABLE IF NOT EXISTS bench_pg_commit (id bigserial"
	    " PRIMARY KEY, at bigint NOT NULL, what text NOT NULL)",
	    PGRES_COMMAND_OK);
	for (i = 0; i < n; i++) {
		t0 = now_us();
		run(pg, "BEGIN", PGRES_COMMAND_OK);
		run(pg, "INSERT INTO bench_pg_commit (at, what) VALUES"
		    " (extract(epoch FROM now())::bigint, 'approved')",
		    PGRES_COMMAND_OK);
		run(pg, "COMMIT", PGRES_COMMAND_OK);
		printf("%.3f\n", (now_us() - t0) / 1000.0);
	}
	run(pg, "DROP TABLE bench_pg_commit", PGRES_COMMAND_OK);
	PQfinish(pg);
	return (0);
}
