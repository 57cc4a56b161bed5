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
void		 buf_free(struct buf *);

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

/* diff.c: a unified diff of two texts, as diff -u prints it. */
char		*diff_unified(const char *, const char *, const char *,
		     const char *, int);
char		*diff_documents(const char *, const char *, const char *,
		     const char *);

/* time.c: wall clock for records, monotonic clock for delays. */
int64_t		 time_now_ms(void);
int64_t		 time_mono_ms(void);
int64_t		 time_mono_us(void);
int		 time_test_clock(void);	/* 1 if built with --enable-test-clock */
const char	*time_format(int64_t, char *, size_t);	/* local "Y-m-d H:M" */
const char	*time_age(int64_t, char *, size_t);	/* "42s", "3m", "5h", "2d" */

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

/* jsonscan.c: one value of JSON text, and an array's elements, in place. */
const char	*json_scan_value(const char *, const char *);
int		 json_scan_lookup(const char *, const char *, char **, size_t,
		     const char **, const char **);
int		 json_scan_next(const char **, const char *, const char **,
		     const char **);

/* sha256.c: FIPS 180-4 SHA-256. */
#define SHA256_LEN	32
#define SHA256_HEX	(2 * SHA256_LEN + 1)
struct sha256 {
	uint32_t	 h[8];
	uint64_t	 len;		/* bytes so far */
	uint8_t		 buf[64];
	size_t		 nbuf;
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
int		 user_in_group(const char *, const char *);

#endif /* SLUICE_UTIL_H */
