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
 * util.h: the bottom layer.  Allocation that never fails, logging, growable
 * buffers, strings, time, whole-file reads, JSON helpers and who the user is.
 * Everything above may include this; this includes nothing of sluice's.
 */

#ifndef SLUICE_UTIL_H
#define SLUICE_UTIL_H

#include <sys/types.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sha2.h>		/* libmd */

#ifndef __dead
#define __dead __attribute__((__noreturn__))
#endif
#ifndef nitems
#define nitems(a)	(sizeof (a) / sizeof (a)[0])
#endif

#define printflike(a, b) __attribute__((__format__(__printf__, a, b)))

/* Documented limits on what sluice accepts (SPEC §12, man page LIMITS). */
#define SLUICE_MAX_DOCUMENT	(1024 * 1024)	/* flow, template, tools.json */
#define SLUICE_MAX_INPUT	(256 * 1024)	/* a workflow's input JSON */
#define SLUICE_MAX_STEPS	1000		/* steps in one flow */
#define SLUICE_MAX_NAME		128		/* template, step and run names */

/* xmalloc.c */
void		*xmalloc(size_t);
void		*xcalloc(size_t, size_t);
void		*xrealloc(void *, size_t);
void		*xreallocarray(void *, size_t, size_t);
char		*xstrdup(const char *);
char		*xstrndup(const char *, size_t);
int		 xasprintf(char **, const char *, ...) printflike(2, 3);
int		 xvasprintf(char **, const char *, va_list) printflike(2, 0);

/* log.c: debug log to a file (-v), and fatal errors with a teardown hook. */
void		 log_open(const char *);
void		 log_close(void);
void		 log_debug(const char *, ...) printflike(1, 2);
void		 fatal_set_hook(void (*)(void));
__dead void	 fatal(const char *, ...) printflike(1, 2);
__dead void	 fatalx(const char *, ...) printflike(1, 2);

/* buf.c: a growable, always NUL-terminated byte buffer. */
struct buf {
	char	*data;
	size_t	 len;
	size_t	 size;
};
void		 buf_init(struct buf *);
void		 buf_add(struct buf *, const void *, size_t);
void		 buf_puts(struct buf *, const char *);
void		 buf_putc(struct buf *, int);
void		 buf_printf(struct buf *, const char *, ...) printflike(2, 3);
void		 buf_reset(struct buf *);
char		*buf_release(struct buf *);	/* caller frees; buf emptied */
void		 buf_join(struct buf *, char *const *, size_t);
void		 buf_free(struct buf *);

/* mask.c: secret values put as "***" in text, JSON and streams. */
#define MASK_MIN_LEN	4		/* shorter values are not masked */
#define MASK_TEXT	"***"
struct mask;
struct mask	*mask_create(void);
void		 mask_free(struct mask *);
void		 mask_add(struct mask *, const char *, size_t);
int		 mask_empty(const struct mask *);
void		 mask_buf(const struct mask *, struct buf *, const char *,
		     size_t);
char		*mask_text(const struct mask *, const char *);
char		*mask_json(const struct mask *, const char *);
void		 mask_stream(const struct mask *, struct buf *, const char *,
		     size_t, int, struct buf *);
struct cJSON;
void		 mask_json_wipe(struct cJSON *);

/* round.c */
int64_t		 round_int64(double);

/* str.c */
int		 utf8_valid(const char *, size_t, size_t *);
char		*str_utf8_repair(const char *, size_t);
void		 str_linecol(const char *, size_t, int *, int *);
int		 str_is_identifier(const char *);
char		*str_env_name(const char *, const char *);
int		 str_parse_int64(const char *, int64_t *);
char		*str_trim(char *);
int		 str_check_template_name(const char *, char **);
void		 strv_free(char **);

/* vis.c: control characters made visible for a terminal. */
#define VIS_NL		0x1	/* keep newlines */
#define VIS_TAB		0x2	/* keep tabs */
#define VIS_JSON	0x4	/* \u00HH, the same inside a JSON string */
void		 vis_buf(struct buf *, const char *, size_t, int);
char		*vis_str(const char *, int);
int		 vis_needed(const char *);

/*
 * status.c: the statuses the store keeps (SPEC 6), as enums every layer
 * compares, and their one spelling.  The store alone turns stored text
 * into these (store/status.c); printers ask status_*_name for the word.
 */
enum step_status {
	STEP_PENDING,
	STEP_READY,
	STEP_RUNNING,
	STEP_WAITING,
	STEP_DONE,
	STEP_FAILED,
	STEP_CANCELLED,
	STEP_SKIPPED,
	STEP_QUEUED		/* held by its concurrency key */
};
#define STEP_NSTATUS	(STEP_QUEUED + 1)
/* Zero is running: a row made without saying is, as the schema's default. */
enum run_status {
	RUN_RUNNING,
	RUN_SCHEDULED,
	RUN_COMPLETED,
	RUN_FAILED,
	RUN_CANCELLED,
	RUN_QUEUED		/* held by its concurrency key */
};
#define RUN_NSTATUS	(RUN_QUEUED + 1)
/* How a printer colours a status or a state; the console maps it. */
enum status_tone {
	TONE_NORMAL,
	TONE_DIM,
	TONE_OK,
	TONE_BAD,
	TONE_WAIT,
	TONE_RUN,
	TONE_LATE
};
const char	*status_step_name(enum step_status);
int		 status_step_parse(const char *, enum step_status *);
const char	*status_step_glyph(enum step_status, int);
enum status_tone status_step_tone(enum step_status);
int		 status_step_ended(enum step_status);
const char	*status_run_name(enum run_status);
int		 status_run_parse(const char *, enum run_status *);
int		 status_run_ended(enum run_status);

/*
 * kind.c: the kinds of step (SPEC 3), as one enum every layer compares,
 * and their one table: the stored word, how people call it, what it
 * does.  The store alone turns a stored word into the enum
 * (store/status.c); the fields each kind forbids are flow/kind.c.  Zero
 * is a gate: a step with nothing to run is one, as a flow says.
 */
enum step_kind {
	KIND_GATE,		/* nothing runs: people decide */
	KIND_TOOL,		/* a built-in or catalog tool */
	KIND_RUN,		/* an inline argv */
	KIND_SHELL,		/* an inline /bin/sh -c script */
	KIND_WORKFLOW,		/* a child run of a template */
	KIND_WAIT		/* finished from outside (sluice complete) */
};
#define KIND_N		(KIND_WAIT + 1)
#define KIND_WORD_MAX	9	/* the schema's CHECK: length(kind) < 10 */
const char	*kind_name(enum step_kind);
int		 kind_parse(const char *, enum step_kind *);
const char	*kind_label(enum step_kind);
const char	*kind_noun(enum step_kind);
const char	*kind_runs(enum step_kind);
int		 kind_decided(enum step_kind);
int		 kind_names_target(enum step_kind);

/*
 * state.c: the states a person sees (SPEC 10), one vocabulary for the
 * console, the CLI, --status and JSON: a run's status with what it is
 * doing (paused, held at a gate, past its SLA) folded in by one rule.
 */
enum run_state {
	STATE_RUNNING,
	STATE_WAITING,
	STATE_PAUSED,
	STATE_SCHEDULED,
	STATE_QUEUED,
	STATE_LATE,
	STATE_COMPLETED,
	STATE_FAILED,
	STATE_CANCELLED
};
#define STATE_N		(STATE_CANCELLED + 1)
enum run_state	 state_of(enum run_status, int, int, int);
enum run_status	 state_status(enum run_state);
const char	*state_name(enum run_state);
int		 state_parse(const char *, enum run_state *);
const char	*state_glyph(enum run_state, int);
enum status_tone state_tone(enum run_state);
const char	*state_words(void);
/* diff.c: a unified diff of two texts, as diff -u prints it. */
char		*diff_unified(const char *, const char *, const char *,
		     const char *, int);
char		*diff_documents(const char *, const char *, const char *,
		     const char *, int);
int		 diff_documents_reformat(const char *, const char *, int);

/* time.c: wall clock for records, monotonic clock for delays. */
int64_t		 time_now_ms(void);
int64_t		 time_mono_ms(void);
int64_t		 time_mono_us(void);
int		 time_test_clock(void);	/* 1 if built with --enable-test-clock */
const char	*time_format(int64_t, char *, size_t);	/* local "Y-m-d H:M" */
const char	*time_age(int64_t, char *, size_t);	/* "42s", "3m", "5h", "2d" */
const char	*time_rfc3339(int64_t, char *, size_t);	/* UTC, with ms */

/* file.c */
char		*file_read(const char *, size_t, size_t *, char **);
int		 file_write_all(int, const void *, size_t);
FILE		*file_open_private(const char *);	/* append, 0600 */

/* json.c: cJSON helpers.  The tree type stays opaque outside users. */
struct cJSON;
void		 json_init(void);	/* cJSON allocates through xmalloc */
struct cJSON	*json_parse(const char *, size_t, char **);
struct cJSON	*json_parse_or_null(const char *);
char		*json_print(const struct cJSON *);	/* compact */
char		*json_print_pretty(const struct cJSON *);
const char	*json_type_name(const struct cJSON *);
void		 json_quote_body(struct buf *, const char *);
void		 json_add_time(struct cJSON *, const char *, int64_t);
struct cJSON	*json_raw(const char *);	/* stored JSON text, or null */

/* jsonscan.c: one value of JSON text, and an array's elements, in place. */
const char	*json_scan_value(const char *, const char *);
int		 json_scan_lookup(const char *, const char *, char **, size_t,
		     const char **, const char **);
int		 json_scan_next(const char **, const char *, const char **,
		     const char **);

/* dlib.c: a library loaded when first needed, not linked. */
struct dlib_sym {
	const char	*name;
	size_t		 offset;	/* in the table */
};
struct dlib {
	const char *const	*sonames;	/* tried in turn, NULL ends */
	const struct dlib_sym	*syms;
	size_t			 nsyms;
	void			*table;		/* of function pointers */
	size_t			 size;
	const char		*missing;	/* what the lack means */
	void			*handle;	/* once loaded */
};
int		 dlib_need(struct dlib *, char **);

/* sha256.c: FIPS 180-4 SHA-256, libmd's. */
#define SHA256_LEN	SHA256_DIGEST_LENGTH
#define SHA256_HEX	(2 * SHA256_LEN + 1)
struct sha256 {
	SHA2_CTX	 ctx;
};
void		 sha256_init(struct sha256 *);
void		 sha256_update(struct sha256 *, const void *, size_t);
void		 sha256_final(struct sha256 *, uint8_t *);
void		 sha256_hex(struct sha256 *, char *);

/* user.c: who is acting, from the uid, never from $USER. */
struct user_info {
	uid_t	 uid;
	char	*name;		/* account name, or the uid in decimal */
	char	*tty;		/* controlling terminal of stdin/stderr, or "-" */
	char	*host;		/* this machine's name */
};
const struct user_info	*user_self(void);
const struct user_info	*user_where(void);
int		 user_in_group(const char *, const char *);

#endif /* SLUICE_UTIL_H */
