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
 * driver-sqlite-lib.h: SQLite, loaded when a database is first opened
 * (driver-sqlite-lib.c), not linked.  Linked, libsqlite3 is mapped and
 * relocated at the start of every command, some 0.4 ms of the 2 ms an
 * "approve" takes to reach the engine's socket, though a command the
 * engine answers never opens the database.  The driver's files include
 * this instead of <sqlite3.h>: their calls go through sqlite_lib, whose
 * members have SQLite's own declared types.
 */

#ifndef DRIVER_SQLITE_LIB_H
#define DRIVER_SQLITE_LIB_H

#include <sqlite3.h>

/*
 * Every SQLite function the driver calls: sluice is not linked with
 * SQLite, so one not named here is an undefined reference when sluice
 * links; name it here.
 */
#define SQLITE_LIB_FUNCS(X) \
	X(sqlite3_backup_finish) \
	X(sqlite3_backup_init) \
	X(sqlite3_backup_step) \
	X(sqlite3_bind_blob64) \
	X(sqlite3_bind_double) \
	X(sqlite3_bind_int64) \
	X(sqlite3_bind_null) \
	X(sqlite3_bind_parameter_count) \
	X(sqlite3_bind_text64) \
	X(sqlite3_busy_handler) \
	X(sqlite3_busy_timeout) \
	X(sqlite3_changes64) \
	X(sqlite3_clear_bindings) \
	X(sqlite3_close) \
	X(sqlite3_column_blob) \
	X(sqlite3_column_bytes) \
	X(sqlite3_column_count) \
	X(sqlite3_column_double) \
	X(sqlite3_column_int64) \
	X(sqlite3_column_text) \
	X(sqlite3_column_type) \
	X(sqlite3_create_function) \
	X(sqlite3_db_config) \
	X(sqlite3_db_filename) \
	X(sqlite3_db_handle) \
	X(sqlite3_db_readonly) \
	X(sqlite3_errcode) \
	X(sqlite3_errmsg) \
	X(sqlite3_errstr) \
	X(sqlite3_exec) \
	X(sqlite3_extended_errcode) \
	X(sqlite3_file_control) \
	X(sqlite3_finalize) \
	X(sqlite3_get_autocommit) \
	X(sqlite3_last_insert_rowid) \
	X(sqlite3_limit) \
	X(sqlite3_open_v2) \
	X(sqlite3_prepare_v2) \
	X(sqlite3_prepare_v3) \
	X(sqlite3_progress_handler) \
	X(sqlite3_reset) \
	X(sqlite3_result_error) \
	X(sqlite3_result_text) \
	X(sqlite3_set_authorizer) \
	X(sqlite3_step) \
	X(sqlite3_stmt_readonly) \
	X(sqlite3_total_changes64) \
	X(sqlite3_user_data) \
	X(sqlite3_value_int64) \
	X(sqlite3_value_text) \
	X(sqlite3_value_type)

struct sqlite_lib {
#define SQLITE_LIB_MEMBER(name) __typeof__(name) *name;
	SQLITE_LIB_FUNCS(SQLITE_LIB_MEMBER)
#undef SQLITE_LIB_MEMBER
};

extern struct sqlite_lib	 sqlite_lib;

int	 sqlite_lib_load(char **);

#ifndef SQLITE_LIB_DEFINE
#define sqlite3_backup_finish	(*sqlite_lib.sqlite3_backup_finish)
#define sqlite3_backup_init	(*sqlite_lib.sqlite3_backup_init)
#define sqlite3_backup_step	(*sqlite_lib.sqlite3_backup_step)
#define sqlite3_bind_blob64	(*sqlite_lib.sqlite3_bind_blob64)
#define sqlite3_bind_double	(*sqlite_lib.sqlite3_bind_double)
#define sqlite3_bind_int64	(*sqlite_lib.sqlite3_bind_int64)
#define sqlite3_bind_null	(*sqlite_lib.sqlite3_bind_null)
#define sqlite3_bind_parameter_count (*sqlite_lib.sqlite3_bind_parameter_count)
#define sqlite3_bind_text64	(*sqlite_lib.sqlite3_bind_text64)
#define sqlite3_busy_handler	(*sqlite_lib.sqlite3_busy_handler)
#define sqlite3_busy_timeout	(*sqlite_lib.sqlite3_busy_timeout)
#define sqlite3_changes64	(*sqlite_lib.sqlite3_changes64)
#define sqlite3_clear_bindings	(*sqlite_lib.sqlite3_clear_bindings)
#define sqlite3_close		(*sqlite_lib.sqlite3_close)
#define sqlite3_column_blob	(*sqlite_lib.sqlite3_column_blob)
#define sqlite3_column_bytes	(*sqlite_lib.sqlite3_column_bytes)
#define sqlite3_column_count	(*sqlite_lib.sqlite3_column_count)
#define sqlite3_column_double	(*sqlite_lib.sqlite3_column_double)
#define sqlite3_column_int64	(*sqlite_lib.sqlite3_column_int64)
#define sqlite3_column_text	(*sqlite_lib.sqlite3_column_text)
#define sqlite3_column_type	(*sqlite_lib.sqlite3_column_type)
#define sqlite3_create_function	(*sqlite_lib.sqlite3_create_function)
#define sqlite3_db_config	(*sqlite_lib.sqlite3_db_config)
#define sqlite3_db_filename	(*sqlite_lib.sqlite3_db_filename)
#define sqlite3_db_handle	(*sqlite_lib.sqlite3_db_handle)
#define sqlite3_db_readonly	(*sqlite_lib.sqlite3_db_readonly)
#define sqlite3_errcode		(*sqlite_lib.sqlite3_errcode)
#define sqlite3_errmsg		(*sqlite_lib.sqlite3_errmsg)
#define sqlite3_errstr		(*sqlite_lib.sqlite3_errstr)
#define sqlite3_exec		(*sqlite_lib.sqlite3_exec)
#define sqlite3_extended_errcode (*sqlite_lib.sqlite3_extended_errcode)
#define sqlite3_file_control	(*sqlite_lib.sqlite3_file_control)
#define sqlite3_finalize	(*sqlite_lib.sqlite3_finalize)
#define sqlite3_get_autocommit	(*sqlite_lib.sqlite3_get_autocommit)
#define sqlite3_last_insert_rowid (*sqlite_lib.sqlite3_last_insert_rowid)
#define sqlite3_limit		(*sqlite_lib.sqlite3_limit)
#define sqlite3_open_v2		(*sqlite_lib.sqlite3_open_v2)
#define sqlite3_prepare_v2	(*sqlite_lib.sqlite3_prepare_v2)
#define sqlite3_prepare_v3	(*sqlite_lib.sqlite3_prepare_v3)
#define sqlite3_progress_handler (*sqlite_lib.sqlite3_progress_handler)
#define sqlite3_reset		(*sqlite_lib.sqlite3_reset)
#define sqlite3_result_error	(*sqlite_lib.sqlite3_result_error)
#define sqlite3_result_text	(*sqlite_lib.sqlite3_result_text)
#define sqlite3_set_authorizer	(*sqlite_lib.sqlite3_set_authorizer)
#define sqlite3_step		(*sqlite_lib.sqlite3_step)
#define sqlite3_stmt_readonly	(*sqlite_lib.sqlite3_stmt_readonly)
#define sqlite3_total_changes64	(*sqlite_lib.sqlite3_total_changes64)
#define sqlite3_user_data	(*sqlite_lib.sqlite3_user_data)
#define sqlite3_value_int64	(*sqlite_lib.sqlite3_value_int64)
#define sqlite3_value_text	(*sqlite_lib.sqlite3_value_text)
#define sqlite3_value_type	(*sqlite_lib.sqlite3_value_type)
#endif

#endif /* DRIVER_SQLITE_LIB_H */
