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
 * term.c: the terminal.  curses is set up in nodelay mode and stdin joins
 * the loop's poll() set; keys are read until ERR each time it is readable.
 * The terminal is put back on every way out: a normal end, fatal(), and
 * crash signals, where only async-signal-safe calls are allowed, so the
 * original termios and terminfo's reset strings are saved up front and
 * written with write(2).  A terminal that goes away (POLLHUP, EIO, EOF)
 * ends the console instead of spinning on a dead descriptor.
 */

#include <sys/ioctl.h>

#include <errno.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <term.h>

#include "ui/ui-int.h"
#include "ui/curses-lib.h"

#define TERM_IDLE_READS	3	/* readable with no key this often: gone */

static struct termios	 term_saved;
static int		 term_have_saved;
static int		 term_active;
static int		 term_utf8;	/* keys come as UTF-8 */
static char		 term_reset[256];	/* rmcup cnorm sgr0 rmkx */
static size_t		 term_reset_len;

static const int term_crash_signals[] = {
	SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP
};

static void	 term_crash(int);
static void	 term_save_reset(void);
static void	 term_colors(struct ui *);
static void	 term_input(int, short, void *);
static int	 term_read_key(int *);
static void	 term_wait_enter(struct ui *);
static void	 term_mouse(struct ui *);

/* Keep one terminfo string for the crash path. */
static void
term_save_string(const char *cap)
{
	char	*s;
	size_t	 len;

	s = tigetstr((char *)cap);
	if (s == NULL || s == (char *)-1)
		return;
	len = strlen(s);
	if (term_reset_len + len >= sizeof term_reset)
		return;
	memcpy(term_reset + term_reset_len, s, len);
	term_reset_len += len;
}

/* What the crash handler writes: leave the alternate screen, etc. */
static void
term_save_reset(void)
{
	term_reset_len = 0;
	term_save_string("sgr0");
	term_save_string("cnorm");
	term_save_string("rmkx");
	term_save_string("rmcup");
}

/*
 * A crash signal: put the terminal back with what is safe in a handler,
 * then die of the same signal (SA_RESETHAND made it the default again).
 */
static void
term_crash(int signo)
{
	ssize_t	 n;

	if (term_active) {
		n = write(STDOUT_FILENO, term_reset, term_reset_len);
		(void)n;
		n = write(STDOUT_FILENO, "\r\n", 2);
		(void)n;
		if (term_have_saved)
			tcsetattr(STDIN_FILENO, TCSAFLUSH, &term_saved);
	}
	raise(signo);
}

/* Put the terminal back (normal end, fatal()); safe to call twice. */
void
ui_term_restore(void)
{
	if (!term_active)
		return;
	term_active = 0;
	endwin();
	if (term_have_saved)
		tcsetattr(STDIN_FILENO, TCSADRAIN, &term_saved);
}

/* Colour pairs, unless NO_COLOR is set or the terminal has none. */
static void
term_colors(struct ui *ui)
{
	const char	*no = getenv("NO_COLOR");

	ui->color = 0;
	if ((no != NULL && *no != '\0') || !has_colors())
		return;
	if (start_color() == ERR)
		return;
	use_default_colors();
	init_pair(PAINT_OK, COLOR_GREEN, -1);
	init_pair(PAINT_BAD, COLOR_RED, -1);
	init_pair(PAINT_WAIT, COLOR_YELLOW, -1);
	init_pair(PAINT_RUN, COLOR_CYAN, -1);
	init_pair(PAINT_HEADER, COLOR_BLACK, COLOR_CYAN);
	init_pair(PAINT_SELECT, COLOR_BLACK, COLOR_WHITE);
	init_pair(PAINT_TITLE, COLOR_BLUE, -1);
	init_pair(PAINT_ERROR, COLOR_RED, -1);
	init_pair(PAINT_BAR, COLOR_CYAN, -1);
	init_pair(PAINT_LATE, COLOR_MAGENTA, -1);
	ui->color = 1;
}

/* The attribute for a meaning, in colour or in monochrome. */
int
ui_term_attr(const struct ui *ui, enum ui_paint p)
{
	if (!ui->color) {
		switch (p) {
		case PAINT_DIM:
			return (A_DIM);
		case PAINT_BAD:
		case PAINT_ERROR:
		case PAINT_TITLE:
		case PAINT_LATE:
			return (A_BOLD);
		case PAINT_WAIT:
			return (A_BOLD | A_UNDERLINE);
		case PAINT_HEADER:
		case PAINT_SELECT:
		case PAINT_BAR:
			return (A_REVERSE);
		default:
			return (A_NORMAL);
		}
	}
	switch (p) {
	case PAINT_NORMAL:
		return (A_NORMAL);
	case PAINT_DIM:
		return (A_DIM);
	case PAINT_BAD:
	case PAINT_ERROR:
	case PAINT_TITLE:
		return (COLOR_PAIR(p) | A_BOLD);
	case PAINT_SELECT:
		return (A_REVERSE);
	default:
		return (COLOR_PAIR(p));
	}
}

/*
 * Set curses up: nodelay keys, no echo, no cursor; UTF-8 glyphs only when
 * the locale's codeset is UTF-8.  Signal handlers are already installed.
 */
int
ui_term_open(struct ui *ui, char **cause)
{
	struct sigaction	 sa;
	size_t			 i;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		xasprintf(cause, "the console needs a terminal; scripts can "
		    "use sluice list, show, gates (see sluice --help)");
		return (-1);
	}
	if (ui_curses_load(cause) != 0)
		return (-1);
	if (tcgetattr(STDIN_FILENO, &term_saved) == 0)
		term_have_saved = 1;
	if (newterm(NULL, stdout, stdin) == NULL) {
		xasprintf(cause, "cannot use terminal type \"%s\"",
		    getenv("TERM") != NULL ? getenv("TERM") : "");
		return (-1);
	}
	term_active = 1;
	fatal_set_hook(ui_term_restore);
	term_save_reset();
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = term_crash;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	for (i = 0; i < nitems(term_crash_signals); i++)
		sigaction(term_crash_signals[i], &sa, NULL);

	raw();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	/* Clicks and the wheel; off for those who select text with it. */
	if (ui->mouse)
		mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED |
		    BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	ui->utf8 = term_utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	term_colors(ui);
	getmaxyx(stdscr, ui->rows, ui->cols);
	ui->tty = loop_fd_add(ui->loop, STDIN_FILENO, POLLIN, term_input, ui);
	return (0);
}

/* Leave curses and stop watching stdin. */
void
ui_term_close(struct ui *ui)
{
	if (ui->tty != NULL) {
		loop_fd_del(ui->tty);
		ui->tty = NULL;
	}
	ui_term_restore();
	fatal_set_hook(NULL);
}

/* SIGWINCH: ask the terminal its size and let curses follow. */
void
ui_term_resize(struct ui *ui)
{
	struct winsize	 ws;

	if (!term_active)
		return;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	getmaxyx(stdscr, ui->rows, ui->cols);
	clearok(curscr, TRUE);
	ui_dirty(ui);
}

/* Give the terminal to a child (the editor): curses off, tty as found. */
void
ui_term_suspend(struct ui *ui)
{
	(void)ui;
	def_prog_mode();
	endwin();
}

/* Take the terminal back after the child and repaint everything. */
void
ui_term_resume(struct ui *ui)
{
	reset_prog_mode();
	ui_term_resize(ui);
	clearok(curscr, TRUE);
	ui_dirty(ui);
}

/* Ring the bell (a new gate is waiting). */
void
ui_term_bell(struct ui *ui)
{
	(void)ui;
	beep();
}

/*
 * One key, function keys set apart from characters by KEY_FN (wide
 * characters can have the same values as KEY_* codes).
 */
static int
term_read_key(int *key)
{
	wint_t	 wc;
	int	 rc;

	if (!term_utf8) {
		/* Bytes: wget_wch stops at one the C locale cannot decode. */
		if ((rc = wgetch(stdscr)) == ERR)
			return (0);
		*key = rc >= KEY_MIN ? KEY_FN(rc) : rc;
		return (1);
	}
	rc = wget_wch(stdscr, &wc);
	if (rc == ERR)
		return (0);
	if (rc == KEY_CODE_YES)
		*key = KEY_FN((int)wc);
	else
		*key = (int)wc;
	return (1);
}

/*
 * Curses is suspended and a message waits to be read: take raw bytes until
 * a newline, then the console comes back.
 */
static void
term_wait_enter(struct ui *ui)
{
	char	 buf[64];
	ssize_t	 n, i;

	if ((n = read(STDIN_FILENO, buf, sizeof buf)) <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			ui->tty_gone = 1;
			ui_quit(ui);
		}
		return;
	}
	for (i = 0; i < n; i++) {
		if (buf[i] == '\n' || buf[i] == '\r') {
			ui->wait_enter = 0;
			ui_term_resume(ui);
			return;
		}
	}
}

/* A mouse event: what it was, and where. */
static void
term_mouse(struct ui *ui)
{
	MEVENT	 ev;

	if (getmouse(&ev) != OK)
		return;
	if (ev.bstate & BUTTON1_DOUBLE_CLICKED)
		ui_mouse(ui, UI_MOUSE_DOUBLE, ev.y, ev.x);
	else if (ev.bstate & BUTTON1_CLICKED)
		ui_mouse(ui, UI_MOUSE_CLICK, ev.y, ev.x);
	else if (ev.bstate & BUTTON4_PRESSED)
		ui_mouse(ui, UI_MOUSE_WHEEL_UP, ev.y, ev.x);
	else if (ev.bstate & BUTTON5_PRESSED)
		ui_mouse(ui, UI_MOUSE_WHEEL_DOWN, ev.y, ev.x);
}

/* stdin is readable: every key there is, then one draw before sleeping. */
static void
term_input(int fd, short revents, void *arg)
{
	struct ui	*ui = arg;
	int		 key, got = 0;

	(void)fd;
	if (revents & (POLLHUP | POLLERR | POLLNVAL)) {
		log_debug("%s: terminal gone (revents %#x)", __func__,
		    (unsigned)revents);
		ui->tty_gone = 1;
		ui_quit(ui);
		return;
	}
	if (ui->wait_enter) {
		term_wait_enter(ui);
		return;
	}
	while (!ui->quit && term_read_key(&key)) {
		got++;
		if (key == KEY_FN(KEY_RESIZE))
			continue;
		if (key == KEY_FN(KEY_MOUSE)) {
			term_mouse(ui);
			ui_view_load_all(ui);
			continue;
		}
		ui_trace(ui, "key");
		ui_keys_dispatch(ui, key);
		/* The next key must see what this one opened. */
		ui_view_load_all(ui);
	}
	if (got != 0) {
		ui->idle_reads = 0;
		return;
	}
	/* Readable yet nothing to read: end of file, or an I/O error. */
	if (++ui->idle_reads >= TERM_IDLE_READS) {
		log_debug("%s: terminal gone (EOF or EIO)", __func__);
		ui->tty_gone = 1;
		ui_quit(ui);
	}
}
