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
 * curses-lib.h: ncurses, loaded when a screen is first set up
 * (curses-lib.c), not linked.  Linked, libncursesw and libtinfo are
 * mapped and relocated at the start of every command, some 0.3 ms,
 * though only the console draws.  The console's files include this
 * instead of <curses.h>: their calls (and the variables curses.h's
 * macros use) go through ui_curses, whose members have ncurses's own
 * declared types.
 */

#ifndef CURSES_LIB_H
#define CURSES_LIB_H

#include <curses.h>

/*
 * Every ncurses function and variable the console uses: sluice is not
 * linked with ncurses, so one not named here is an undefined reference
 * when sluice links; name it here.
 */
#define CURSES_LIB_NAMES(X) \
	X(acs_map) \
	X(beep) \
	X(clearok) \
	X(curs_set) \
	X(curscr) \
	X(def_prog_mode) \
	X(delscreen) \
	X(doupdate) \
	X(endwin) \
	X(getcchar) \
	X(getmouse) \
	X(has_colors) \
	X(init_pair) \
	X(intrflush) \
	X(keypad) \
	X(mousemask) \
	X(newterm) \
	X(nodelay) \
	X(noecho) \
	X(nonl) \
	X(raw) \
	X(reset_prog_mode) \
	X(resizeterm) \
	X(set_escdelay) \
	X(start_color) \
	X(stdscr) \
	X(tigetstr) \
	X(use_default_colors) \
	X(waddch) \
	X(waddnwstr) \
	X(wattrset) \
	X(werase) \
	X(wget_wch) \
	X(wgetch) \
	X(whline) \
	X(win_wch) \
	X(wmove) \
	X(wnoutrefresh) \
	X(wvline)

struct ui_curses {
#define CURSES_LIB_MEMBER(name) __typeof__(name) *name;
	CURSES_LIB_NAMES(CURSES_LIB_MEMBER)
#undef CURSES_LIB_MEMBER
};

extern struct ui_curses	 ui_curses;

int	 ui_curses_load(char **);

/*
 * Functions by function-like macros, so that a member of the same name
 * (a line's "raw") is left alone; any curses.h made a macro of is
 * replaced too: the call is ours.
 */
#ifndef CURSES_LIB_DEFINE
#undef acs_map
#define acs_map	(*ui_curses.acs_map)
#undef beep
#define beep(...)	(*ui_curses.beep)(__VA_ARGS__)
#undef clearok
#define clearok(...)	(*ui_curses.clearok)(__VA_ARGS__)
#undef curs_set
#define curs_set(...)	(*ui_curses.curs_set)(__VA_ARGS__)
#undef curscr
#define curscr	(*ui_curses.curscr)
#undef def_prog_mode
#define def_prog_mode(...)	(*ui_curses.def_prog_mode)(__VA_ARGS__)
#undef delscreen
#define delscreen(...)	(*ui_curses.delscreen)(__VA_ARGS__)
#undef doupdate
#define doupdate(...)	(*ui_curses.doupdate)(__VA_ARGS__)
#undef endwin
#define endwin(...)	(*ui_curses.endwin)(__VA_ARGS__)
#undef getcchar
#define getcchar(...)	(*ui_curses.getcchar)(__VA_ARGS__)
#undef getmouse
#define getmouse(...)	(*ui_curses.getmouse)(__VA_ARGS__)
#undef has_colors
#define has_colors(...)	(*ui_curses.has_colors)(__VA_ARGS__)
#undef init_pair
#define init_pair(...)	(*ui_curses.init_pair)(__VA_ARGS__)
#undef intrflush
#define intrflush(...)	(*ui_curses.intrflush)(__VA_ARGS__)
#undef keypad
#define keypad(...)	(*ui_curses.keypad)(__VA_ARGS__)
#undef mousemask
#define mousemask(...)	(*ui_curses.mousemask)(__VA_ARGS__)
#undef newterm
#define newterm(...)	(*ui_curses.newterm)(__VA_ARGS__)
#undef nodelay
#define nodelay(...)	(*ui_curses.nodelay)(__VA_ARGS__)
#undef noecho
#define noecho(...)	(*ui_curses.noecho)(__VA_ARGS__)
#undef nonl
#define nonl(...)	(*ui_curses.nonl)(__VA_ARGS__)
#undef raw
#define raw(...)	(*ui_curses.raw)(__VA_ARGS__)
#undef reset_prog_mode
#define reset_prog_mode(...)	(*ui_curses.reset_prog_mode)(__VA_ARGS__)
#undef resizeterm
#define resizeterm(...)	(*ui_curses.resizeterm)(__VA_ARGS__)
#undef set_escdelay
#define set_escdelay(...)	(*ui_curses.set_escdelay)(__VA_ARGS__)
#undef start_color
#define start_color(...)	(*ui_curses.start_color)(__VA_ARGS__)
#undef stdscr
#define stdscr	(*ui_curses.stdscr)
#undef tigetstr
#define tigetstr(...)	(*ui_curses.tigetstr)(__VA_ARGS__)
#undef use_default_colors
#define use_default_colors(...)	(*ui_curses.use_default_colors)(__VA_ARGS__)
#undef waddch
#define waddch(...)	(*ui_curses.waddch)(__VA_ARGS__)
#undef waddnwstr
#define waddnwstr(...)	(*ui_curses.waddnwstr)(__VA_ARGS__)
#undef wattrset
#define wattrset(...)	(*ui_curses.wattrset)(__VA_ARGS__)
#undef werase
#define werase(...)	(*ui_curses.werase)(__VA_ARGS__)
#undef wget_wch
#define wget_wch(...)	(*ui_curses.wget_wch)(__VA_ARGS__)
#undef wgetch
#define wgetch(...)	(*ui_curses.wgetch)(__VA_ARGS__)
#undef whline
#define whline(...)	(*ui_curses.whline)(__VA_ARGS__)
#undef win_wch
#define win_wch(...)	(*ui_curses.win_wch)(__VA_ARGS__)
#undef wmove
#define wmove(...)	(*ui_curses.wmove)(__VA_ARGS__)
#undef wnoutrefresh
#define wnoutrefresh(...)	(*ui_curses.wnoutrefresh)(__VA_ARGS__)
#undef wvline
#define wvline(...)	(*ui_curses.wvline)(__VA_ARGS__)
#endif

#endif /* CURSES_LIB_H */
