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
 * driver-pg-lib.h: libpq, loaded when a postgresql: database is first
 * opened (driver-pg-lib.c), not linked.  Linked, libpq brings some twenty
 * libraries (TLS, Kerberos, LDAP) that every sluice command would map
 * and relocate at start, about 7 ms, though most never open PostgreSQL.
 * The driver's files include this instead of <libpq-fe.h>: its calls go
 * through pg_lib, whose members have libpq's own declared types.  libpq's
 * blocking calls (PQexec, PQprepare, ...) are left out on purpose: every
 * wait goes through driver-pg-wait.c, which bounds it, and a call to one
 * of them does not link.
 */

#ifndef DRIVER_PG_LIB_H
#define DRIVER_PG_LIB_H

#include <libpq-fe.h>

/* Every libpq function the driver calls. */
#define PG_LIB_FUNCS(X) \
	X(PQclear) \
	X(PQcmdStatus) \
	X(PQcmdTuples) \
	X(PQconnectdbParams) \
	X(PQconsumeInput) \
	X(PQenterPipelineMode) \
	X(PQerrorMessage) \
	X(PQexitPipelineMode) \
	X(PQfinish) \
	X(PQflush) \
	X(PQfreemem) \
	X(PQftype) \
	X(PQgetResult) \
	X(PQgetisnull) \
	X(PQgetlength) \
	X(PQgetvalue) \
	X(PQisBusy) \
	X(PQmakeEmptyPGresult) \
	X(PQnfields) \
	X(PQnotifies) \
	X(PQnparams) \
	X(PQntuples) \
	X(PQparameterStatus) \
	X(PQparamtype) \
	X(PQpipelineStatus) \
	X(PQpipelineSync) \
	X(PQresultErrorField) \
	X(PQresultStatus) \
	X(PQsendDescribePrepared) \
	X(PQsendPrepare) \
	X(PQsendQueryParams) \
	X(PQsendQuery) \
	X(PQsendQueryPrepared) \
	X(PQsetNoticeProcessor) \
	X(PQsocket) \
	X(PQstatus) \
	X(PQtransactionStatus) \
	X(PQunescapeBytea)

struct pg_lib {
#define PG_LIB_MEMBER(name) __typeof__(name) *name;
	PG_LIB_FUNCS(PG_LIB_MEMBER)
#undef PG_LIB_MEMBER
};

extern struct pg_lib	 pg_lib;

int	 pg_lib_load(char **);

#ifndef PG_LIB_DEFINE
#define PQclear		(*pg_lib.PQclear)
#define PQcmdStatus	(*pg_lib.PQcmdStatus)
#define PQcmdTuples	(*pg_lib.PQcmdTuples)
#define PQdescribePrepared	(*pg_lib.PQdescribePrepared)
#define PQconnectdbParams	(*pg_lib.PQconnectdbParams)
#define PQconsumeInput	(*pg_lib.PQconsumeInput)
#define PQenterPipelineMode	(*pg_lib.PQenterPipelineMode)
#define PQerrorMessage	(*pg_lib.PQerrorMessage)
#define PQexec		(*pg_lib.PQexec)
#define PQexecParams	(*pg_lib.PQexecParams)
#define PQexitPipelineMode	(*pg_lib.PQexitPipelineMode)
#define PQfinish	(*pg_lib.PQfinish)
#define PQflush		(*pg_lib.PQflush)
#define PQfreemem	(*pg_lib.PQfreemem)
#define PQftype		(*pg_lib.PQftype)
#define PQgetResult	(*pg_lib.PQgetResult)
#define PQgetisnull	(*pg_lib.PQgetisnull)
#define PQgetlength	(*pg_lib.PQgetlength)
#define PQgetvalue	(*pg_lib.PQgetvalue)
#define PQisBusy	(*pg_lib.PQisBusy)
#define PQmakeEmptyPGresult	(*pg_lib.PQmakeEmptyPGresult)
#define PQnfields	(*pg_lib.PQnfields)
#define PQnotifies	(*pg_lib.PQnotifies)
#define PQnparams	(*pg_lib.PQnparams)
#define PQntuples	(*pg_lib.PQntuples)
#define PQparameterStatus	(*pg_lib.PQparameterStatus)
#define PQparamtype	(*pg_lib.PQparamtype)
#define PQpipelineStatus	(*pg_lib.PQpipelineStatus)
#define PQpipelineSync	(*pg_lib.PQpipelineSync)
#define PQprepare	(*pg_lib.PQprepare)
#define PQresultErrorField	(*pg_lib.PQresultErrorField)
#define PQresultStatus	(*pg_lib.PQresultStatus)
#define PQsendDescribePrepared	(*pg_lib.PQsendDescribePrepared)
#define PQsendPrepare	(*pg_lib.PQsendPrepare)
#define PQsendQueryParams	(*pg_lib.PQsendQueryParams)
#define PQsendQuery	(*pg_lib.PQsendQuery)
#define PQsendQueryPrepared	(*pg_lib.PQsendQueryPrepared)
#define PQsetNoticeProcessor	(*pg_lib.PQsetNoticeProcessor)
#define PQsocket	(*pg_lib.PQsocket)
#define PQstatus	(*pg_lib.PQstatus)
#define PQtransactionStatus	(*pg_lib.PQtransactionStatus)
#define PQunescapeBytea	(*pg_lib.PQunescapeBytea)
#endif

#endif /* DRIVER_PG_LIB_H */
