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
 * script.c: the console driven by a key script, for screen tests.  With
 * $SLUICE_SCRIPT naming a file, the console draws on curses' virtual
 * screen with no terminal under it (output to /dev/null) and takes its
 * keys from the file, one command a line:
 *
 *	:key NAME...	keys by tmux's names (Enter, Escape, Up, C-l, j)
 *	:type TEXT	the text as typed
 *	:click ROW COL	a click at the screen's row and column (from 0)
 *	:double-click ROW COL	a double click there
 *	:wheel up|down	a notch of the mouse wheel
 *	:wait REGEX	until a line of the screen matches (extended)
 *	:wait-gone REGEX	until no line matches
 *	:wait-idle	until the engine this console runs has no step
 *			running or ready, and the screen shows the
 *			database as it is
 *	:timeout SECS	how long a wait may take (default 10)
 *	:resize COLSxROWS	the screen's size (default 80x24)
 *	:dump NAME	the screen as plain text, in
 *			$SLUICE_SCRIPT_DIR/NAME.screen
 *	:echo TEXT	TEXT and a newline on stdout, when the lines
 *			before it are done
 *	:quit		quit, as at the end of the script
 *
 * The script may be a FIFO: its lines then run as they come, and the
 * console quits when its writer closes it, so a test can act from its
 * shell while the console is open, reading stdout (also a FIFO) for the
 * :echo that says a case's screen is dumped.
 * Commands run in a hook after the draw, so each sees the screen of the
 * keys before it; a wait sleeps in the loop until something is drawn or
 * its deadline passes, never polling.  A wait that times out says so on
 * stderr with the screen, and the script goes on so that the dumps after
 * it still tell what they can; the console then exits with a failure.
 * At the end of the file the console quits.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <langinfo.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "ui/ui-int.h"
#include "ui/curses-lib.h"

#define SCRIPT_TIMEOUT_MS	10000
#define SCRIPT_MAX_COLS		1000

enum script_wait {
	SCRIPT_RUN,		/* run the next command */
	SCRIPT_MATCH,		/* until a line matches */
	SCRIPT_GONE,		/* until no line matches */
	SCRIPT_IDLE		/* until the engine is idle and drawn */
};

struct ui_script {
	int			 fd;
	struct loop_fd		*watch;		/* a FIFO, while it is open */
	struct buf		 text;		/* read, not yet run */
	int			 eof;
	const char		*path;
	const char		*dir;
	u_int			 line;
	enum script_wait	 wait;
	regex_t			 re;
	char			*re_text;
	int64_t			 deadline;	/* monotonic ms */
	int64_t			 timeout;	/* ms */
	int			 failed;
	int			 done;
	struct loop_timer	*timer;
	SCREEN			*screen;
	FILE			*out, *in;
};

/* Key names, as tmux's send-keys spells them. */
static const struct {
	const char	*name;
	int		 key;
} script_keys[] = {
	{ "Enter", K_ENTER },
	{ "Escape", K_ESC },
	{ "Tab", '\t' },
	{ "BTab", KEY_FN(KEY_BTAB) },
	{ "BSpace", K_BS },
	{ "Space", ' ' },
	{ "Up", KEY_FN(KEY_UP) },
	{ "Down", KEY_FN(KEY_DOWN) },
	{ "Left", KEY_FN(KEY_LEFT) },
	{ "Right", KEY_FN(KEY_RIGHT) },
	{ "Home", KEY_FN(KEY_HOME) },
	{ "End", KEY_FN(KEY_END) },
	{ "PageUp", KEY_FN(KEY_PPAGE) },
	{ "PPage", KEY_FN(KEY_PPAGE) },
	{ "PageDown", KEY_FN(KEY_NPAGE) },
	{ "NPage", KEY_FN(KEY_NPAGE) },
	{ "DC", KEY_FN(KEY_DC) },
	{ "Delete", KEY_FN(KEY_DC) },
	{ "F1", KEY_FN(KEY_F(1)) },
	{ "F5", KEY_FN(KEY_F(5)) },
	{ "F10", KEY_FN(KEY_F(10)) },
};

static void	 script_hook(void *);
static void	 script_timer(void *);
static void	 script_input(int, short, void *);
static char	*script_next_line(struct ui_script *);
static int	 script_command(struct ui *, struct ui_script *, char *);
static int	 script_key_code(const char *, int *);
static int	 script_mouse(struct ui *, struct ui_script *, const char *,
		     const char *);
static void	 script_row(int, struct buf *);
static int	 script_matches(struct ui_script *);
static int	 script_dump(struct ui *, struct ui_script *, const char *);
static void	 script_fail(struct ui_script *, const char *, ...)
		     printflike(2, 3);

/* Whether the console is to be driven by a script ($SLUICE_SCRIPT). */
int
ui_script_wanted(void)
{
	const char	*p = getenv("SLUICE_SCRIPT");

	return (p != NULL && *p != '\0');
}

/*
 * Open the script and put curses on a virtual screen of 80x24 that
 * writes to /dev/null; the loop runs the script from its hook.
 */
int
ui_script_open(struct ui *ui, char **cause)
{
	struct ui_script	*s;
	FILE			*out, *in;

	if (ui_curses_load(cause) != 0)
		return (-1);
	s = xcalloc(1, sizeof *s);
	s->path = getenv("SLUICE_SCRIPT");
	s->dir = getenv("SLUICE_SCRIPT_DIR");
	if (s->dir == NULL || *s->dir == '\0')
		s->dir = ".";
	s->timeout = SCRIPT_TIMEOUT_MS;
	buf_init(&s->text);
	/* A FIFO: this waits for its writer, the test. */
	if ((s->fd = open(s->path, O_RDONLY|O_CLOEXEC)) == -1) {
		xasprintf(cause, "%s: %s", s->path, strerror(errno));
		free(s);
		return (-1);
	}
	(void)fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
	out = fopen("/dev/null", "w");
	in = fopen("/dev/null", "r");
	if (out == NULL || in == NULL ||
	    (s->screen = newterm("xterm-256color", out, in)) == NULL) {
		xasprintf(cause, "%s: no virtual screen (terminal type "
		    "xterm-256color)", s->path);
		if (out != NULL)
			fclose(out);
		if (in != NULL)
			fclose(in);
		close(s->fd);
		free(s);
		return (-1);
	}
	s->out = out;
	s->in = in;
	nodelay(stdscr, TRUE);
	curs_set(0);
	resizeterm(24, 80);
	getmaxyx(stdscr, ui->rows, ui->cols);
	ui->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	s->timer = loop_timer_create(ui->loop, script_timer, ui);
	s->watch = loop_fd_add(ui->loop, s->fd, POLLIN, script_input, ui);
	ui->script = s;
	return (0);
}

/* Start running the script: after each draw, in the loop's hooks. */
void
ui_script_start(struct ui *ui)
{
	if (ui->script != NULL)
		loop_hook_add(ui->loop, script_hook, ui);
}

/* Let the script go; 1 if it failed (a wait timed out, a bad line). */
int
ui_script_close(struct ui *ui)
{
	struct ui_script	*s = ui->script;
	int			 failed;

	if (s == NULL)
		return (0);
	loop_hook_del(ui->loop, script_hook, ui);
	loop_timer_free(s->timer);
	if (s->re_text != NULL) {
		regfree(&s->re);
		free(s->re_text);
	}
	if (s->watch != NULL)
		loop_fd_del(s->watch);
	close(s->fd);
	buf_free(&s->text);
	endwin();
	delscreen(s->screen);
	fclose(s->out);
	fclose(s->in);
	failed = s->failed;
	free(s);
	ui->script = NULL;
	return (failed);
}

/* One line of reason on stderr (the screen is not a terminal). */
static void
script_fail(struct ui_script *s, const char *fmt, ...)
{
	va_list	 ap;

	fprintf(stderr, "sluice: %s:%u: ", s->path, s->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	s->failed = 1;
}

/* A wait's deadline passed: the loop turns, and the hook sees it. */
static void
script_timer(void *arg)
{
	ui_dirty(arg);
}

/* The script is readable: keep what came; at its end, stop watching. */
static void
script_input(int fd, short revents, void *arg)
{
	struct ui		*ui = arg;
	struct ui_script	*s = ui->script;
	char			 b[4096];
	ssize_t			 n;

	(void)revents;
	for (;;) {
		n = read(fd, b, sizeof b);
		if (n > 0) {
			buf_add(&s->text, b, (size_t)n);
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		break;		/* the end, or an error: no more lines */
	}
	s->eof = 1;
	loop_fd_del(s->watch);
	s->watch = NULL;
}

/*
 * The next whole line read (the caller frees it), the last one even
 * without a newline once the script has ended; NULL if none is here yet.
 */
static char *
script_next_line(struct ui_script *s)
{
	char	*nl, *line;
	size_t	 len;

	nl = s->text.len == 0 ? NULL : memchr(s->text.data, '\n',
	    s->text.len);
	if (nl == NULL && (!s->eof || s->text.len == 0))
		return (NULL);
	len = nl != NULL ? (size_t)(nl - s->text.data) : s->text.len;
	line = xmalloc(len + 1);
	memcpy(line, s->text.data, len);
	line[len] = '\0';
	if (nl != NULL)
		len++;
	memmove(s->text.data, s->text.data + len, s->text.len - len);
	s->text.len -= len;
	return (line);
}

/* Row y of the screen as UTF-8 text, without trailing blanks. */
static void
script_row(int y, struct buf *b)
{
	cchar_t	 cc;
	wchar_t	 wc[CCHARW_MAX + 1];
	attr_t	 attr;
	short	 pair;
	char	 u[8];
	int	 x, w, n, cols = getmaxx(stdscr);
	size_t	 keep = b->len;

	for (x = 0; x < cols && x < SCRIPT_MAX_COLS; x += w > 1 ? w : 1) {
		w = 1;
		if (mvwin_wch(stdscr, y, x, &cc) == ERR ||
		    getcchar(&cc, wc, &attr, &pair, NULL) == ERR ||
		    wc[0] == L'\0') {
			buf_putc(b, ' ');
			continue;
		}
		if (attr & A_ALTCHARSET) {
			/* Line drawing as a UTF-8 terminal shows it. */
			switch (wc[0]) {
			case L'q': wc[0] = 0x2500; break;
			case L'x': wc[0] = 0x2502; break;
			case L'l': wc[0] = 0x250c; break;
			case L'k': wc[0] = 0x2510; break;
			case L'm': wc[0] = 0x2514; break;
			case L'j': wc[0] = 0x2518; break;
			default: break;
			}
		}
		w = wcwidth(wc[0]);
		n = ui_utf8_encode((uint32_t)wc[0], u);
		buf_add(b, u, (size_t)n);
	}
	while (b->len > keep && b->data[b->len - 1] == ' ')
		b->len--;
}

/* Whether a line of the screen matches the wait's pattern. */
static int
script_matches(struct ui_script *s)
{
	struct buf	 b;
	int		 y, found = 0;

	buf_init(&b);
	for (y = 0; y < getmaxy(stdscr) && !found; y++) {
		b.len = 0;
		script_row(y, &b);
		buf_putc(&b, '\0');
		found = regexec(&s->re, b.data, 0, NULL, 0) == 0;
	}
	buf_free(&b);
	return (found);
}

/* Write the screen to FP, each line after PREFIX. */
static void
script_screen(FILE *fp, const char *prefix)
{
	struct buf	 b;
	int		 y;

	buf_init(&b);
	for (y = 0; y < getmaxy(stdscr); y++) {
		b.len = 0;
		script_row(y, &b);
		fprintf(fp, "%s%.*s\n", prefix, (int)b.len, b.data);
	}
	buf_free(&b);
}

/* :dump NAME: the screen to $SLUICE_SCRIPT_DIR/NAME.screen. */
static int
script_dump(struct ui *ui, struct ui_script *s, const char *name)
{
	char	*path;
	FILE	*fp;

	(void)ui;
	if (*name == '\0' || strchr(name, '/') != NULL) {
		script_fail(s, ":dump needs a NAME without '/'");
		return (-1);
	}
	xasprintf(&path, "%s/%s.screen", s->dir, name);
	if ((fp = fopen(path, "w")) == NULL) {
		script_fail(s, "%s: %s", path, strerror(errno));
		free(path);
		return (-1);
	}
	script_screen(fp, "");
	if (fclose(fp) != 0)
		script_fail(s, "%s: %s", path, strerror(errno));
	free(path);
	return (0);
}

/* A key by name: tmux's names, C-x, or one character. */
static int
script_key_code(const char *name, int *key)
{
	wchar_t		 wc;
	mbstate_t	 ps;
	size_t		 i, n;

	for (i = 0; i < nitems(script_keys); i++) {
		if (strcmp(name, script_keys[i].name) == 0) {
			*key = script_keys[i].key;
			return (0);
		}
	}
	if (name[0] == 'C' && name[1] == '-' && name[2] != '\0' &&
	    name[3] == '\0') {
		*key = K_CTRL(name[2]);
		return (0);
	}
	memset(&ps, 0, sizeof ps);
	n = mbrtowc(&wc, name, strlen(name), &ps);
	if (n == 0 || n == (size_t)-1 || n == (size_t)-2 || name[n] != '\0')
		return (-1);
	*key = (int)wc;
	return (0);
}

/* One key, as the terminal's reader hands it on. */
static void
script_press(struct ui *ui, int key)
{
	ui_trace(ui, "key");
	ui_keys_dispatch(ui, key);
	ui_view_load_all(ui);
	ui_dirty(ui);
}

/* :click, :double-click, :wheel: the mouse, as the terminal's reader. */
static int
script_mouse(struct ui *ui, struct ui_script *s, const char *cmd,
    const char *arg)
{
	int	 y, x;
	char	 end;

	if (strcmp(cmd, ":wheel") == 0) {
		if (strcmp(arg, "up") != 0 && strcmp(arg, "down") != 0) {
			script_fail(s, ":wheel needs up or down");
			return (-1);
		}
		ui_trace(ui, "key");
		ui_mouse(ui, *arg == 'u' ? UI_MOUSE_WHEEL_UP :
		    UI_MOUSE_WHEEL_DOWN, 0, 0);
	} else {
		if (sscanf(arg, "%d %d %c", &y, &x, &end) != 2 || y < 0 ||
		    x < 0) {
			script_fail(s, "%s needs ROW COL", cmd);
			return (-1);
		}
		ui_trace(ui, "key");
		ui_mouse(ui, cmd[1] == 'c' ? UI_MOUSE_CLICK : UI_MOUSE_DOUBLE,
		    y, x);
	}
	ui_view_load_all(ui);
	ui_dirty(ui);
	return (1);
}

/* Begin a wait for the pattern in ARG (MODE match or gone). */
static int
script_wait_re(struct ui_script *s, enum script_wait mode, const char *arg)
{
	int	 rc;
	char	 err[128];

	if (s->re_text != NULL) {
		regfree(&s->re);
		free(s->re_text);
		s->re_text = NULL;
	}
	if ((rc = regcomp(&s->re, arg, REG_EXTENDED | REG_NOSUB)) != 0) {
		regerror(rc, &s->re, err, sizeof err);
		script_fail(s, "bad pattern /%s/: %s", arg, err);
		return (-1);
	}
	s->re_text = xstrdup(arg);
	s->wait = mode;
	return (0);
}

/*
 * Run one line; 1 if the script must let the loop turn first (a key was
 * pressed, a wait begun), 0 to go on with the next line, -1 on a bad one.
 */
static int
script_command(struct ui *ui, struct ui_script *s, char *line)
{
	char		*cmd, *arg, *k, *last;
	int		 key, cols, rows;
	long long	 secs;
	mbstate_t	 ps;
	wchar_t		 wc;
	size_t		 n;

	line[strcspn(line, "\r\n")] = '\0';
	cmd = line + strspn(line, " \t");
	if (*cmd == '\0' || *cmd == '#')
		return (0);
	arg = cmd + strcspn(cmd, " \t");
	if (*arg != '\0')
		*arg++ = '\0';
	if (strcmp(cmd, ":key") == 0) {
		for (k = strtok_r(arg, " \t", &last); k != NULL;
		    k = strtok_r(NULL, " \t", &last)) {
			if (script_key_code(k, &key) != 0) {
				script_fail(s, "unknown key \"%s\"", k);
				return (-1);
			}
			script_press(ui, key);
		}
		return (1);
	}
	if (strcmp(cmd, ":type") == 0) {
		memset(&ps, 0, sizeof ps);
		while (*arg != '\0') {
			n = mbrtowc(&wc, arg, strlen(arg), &ps);
			if (n == 0 || n == (size_t)-1 || n == (size_t)-2) {
				script_fail(s, ":type: not UTF-8 text");
				return (-1);
			}
			script_press(ui, (int)wc);
			arg += n;
		}
		return (1);
	}
	if (strcmp(cmd, ":click") == 0 || strcmp(cmd, ":double-click") == 0 ||
	    strcmp(cmd, ":wheel") == 0)
		return (script_mouse(ui, s, cmd, arg));
	if (strcmp(cmd, ":wait") == 0)
		return (script_wait_re(s, SCRIPT_MATCH, arg) == 0 ? 1 : -1);
	if (strcmp(cmd, ":wait-gone") == 0)
		return (script_wait_re(s, SCRIPT_GONE, arg) == 0 ? 1 : -1);
	if (strcmp(cmd, ":wait-idle") == 0) {
		s->wait = SCRIPT_IDLE;
		return (1);
	}
	if (strcmp(cmd, ":quit") == 0) {
		s->done = 1;
		ui_quit(ui);
		return (1);
	}
	if (strcmp(cmd, ":echo") == 0) {
		printf("%s\n", arg);
		fflush(stdout);
		return (0);
	}
	if (strcmp(cmd, ":dump") == 0)
		return (script_dump(ui, s, arg) == 0 ? 0 : -1);
	if (strcmp(cmd, ":timeout") == 0) {
		if (sscanf(arg, "%lld", &secs) != 1 || secs <= 0 ||
		    secs > 3600) {
			script_fail(s, ":timeout needs seconds, 1 to 3600");
			return (-1);
		}
		s->timeout = secs * 1000;
		return (0);
	}
	if (strcmp(cmd, ":resize") == 0) {
		if (sscanf(arg, "%dx%d", &cols, &rows) != 2 || cols < 1 ||
		    rows < 1 || cols > SCRIPT_MAX_COLS || rows > 1000) {
			script_fail(s, ":resize needs COLSxROWS");
			return (-1);
		}
		resizeterm(rows, cols);
		getmaxyx(stdscr, ui->rows, ui->cols);
		clearok(curscr, TRUE);
		ui_dirty(ui);
		return (1);
	}
	script_fail(s, "unknown command \"%s\"", cmd);
	return (-1);
}

/* Whether the wait under way is over: its condition holds. */
static int
script_waited(struct ui *ui, struct ui_script *s)
{
	switch (s->wait) {
	case SCRIPT_RUN:
		return (1);
	case SCRIPT_MATCH:
		return (script_matches(s));
	case SCRIPT_GONE:
		return (!script_matches(s));
	case SCRIPT_IDLE:
		return ((ui->engine == NULL || engine_quiet(ui->engine)) &&
		    store_change_mark(ui->store) == ui->mark);
	}
	return (1);
}

/* A wait timed out: say which, with the screen, and go on. */
static void
script_timed_out(struct ui_script *s)
{
	switch (s->wait) {
	case SCRIPT_MATCH:
		script_fail(s, "no line matched /%s/ within %llds",
		    s->re_text, (long long)(s->timeout / 1000));
		break;
	case SCRIPT_GONE:
		script_fail(s, "a line still matched /%s/ after %llds",
		    s->re_text, (long long)(s->timeout / 1000));
		break;
	default:
		script_fail(s, "not idle within %llds",
		    (long long)(s->timeout / 1000));
		break;
	}
	script_screen(stderr, "  |");
}

/*
 * After the draw: finish the wait under way, or run lines until one
 * needs the loop to turn; a screen not yet drawn waits for its draw.
 */
static void
script_hook(void *arg)
{
	struct ui		*ui = arg;
	struct ui_script	*s = ui->script;
	char			*line;
	int			 rc;

	if (s->done || ui->quit || ui->editing || ui->wait_enter)
		return;
	if (ui->dirty) {
		loop_timer_start(s->timer, 0);	/* draw first */
		return;
	}
	if (s->wait != SCRIPT_RUN) {
		if (!script_waited(ui, s)) {
			if (time_mono_ms() < s->deadline) {
				if (!loop_timer_pending(s->timer))
					loop_timer_start(s->timer,
					    s->deadline - time_mono_ms());
				return;
			}
			script_timed_out(s);
		}
		loop_timer_stop(s->timer);
		s->wait = SCRIPT_RUN;
	}
	for (;;) {
		if ((line = script_next_line(s)) == NULL) {
			if (!s->eof)
				break;		/* more to come */
			s->done = 1;
			ui_quit(ui);
			break;
		}
		s->line++;
		rc = script_command(ui, s, line);
		free(line);
		if (rc == 0)
			continue;
		if (rc == -1) {
			s->done = 1;
			ui_quit(ui);
			break;
		}
		if (s->wait != SCRIPT_RUN)
			s->deadline = time_mono_ms() + s->timeout;
		loop_timer_start(s->timer, 0);
		break;
	}
}
