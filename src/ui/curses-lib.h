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
 * macros use) go through curses_lib, whose members have ncurses's own
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

struct curses_lib {
#define CURSES_LIB_MEMBER(name) __typeof__(name) *name;
	CURSES_LIB_NAMES(CURSES_LIB_MEMBER)
#undef CURSES_LIB_MEMBER
};

extern struct curses_lib	 curses_lib;

int	 curses_lib_load(char **);

/*
 * Functions by function-like macros, so that a member of the same name
 * (a line's "raw") is left alone; any curses.h made a macro of is
 * replaced too: the call is ours.
 */
#ifndef CURSES_LIB_DEFINE
#undef acs_map
#define acs_map	(*curses_lib.acs_map)
#undef beep
#define beep(...)	(*curses_lib.beep)(__VA_ARGS__)
#undef clearok
#define clearok(...)	(*curses_lib.clearok)(__VA_ARGS__)
#undef curs_set
#define curs_set(...)	(*curses_lib.curs_set)(__VA_ARGS__)
#undef curscr
#define curscr	(*curses_lib.curscr)
#undef def_prog_mode
#define def_prog_mode(...)	(*curses_lib.def_prog_mode)(__VA_ARGS__)
#undef delscreen
#define delscreen(...)	(*curses_lib.delscreen)(__VA_ARGS__)
#undef doupdate
#define doupdate(...)	(*curses_lib.doupdate)(__VA_ARGS__)
#undef endwin
#define endwin(...)	(*curses_lib.endwin)(__VA_ARGS__)
#undef getcchar
#define getcchar(...)	(*curses_lib.getcchar)(__VA_ARGS__)
#undef getmouse
#define getmouse(...)	(*curses_lib.getmouse)(__VA_ARGS__)
#undef has_colors
#define has_colors(...)	(*curses_lib.has_colors)(__VA_ARGS__)
#undef init_pair
#define init_pair(...)	(*curses_lib.init_pair)(__VA_ARGS__)
#undef intrflush
#define intrflush(...)	(*curses_lib.intrflush)(__VA_ARGS__)
#undef keypad
#define keypad(...)	(*curses_lib.keypad)(__VA_ARGS__)
#undef mousemask
#define mousemask(...)	(*curses_lib.mousemask)(__VA_ARGS__)
#undef newterm
#define newterm(...)	(*curses_lib.newterm)(__VA_ARGS__)
#undef nodelay
#define nodelay(...)	(*curses_lib.nodelay)(__VA_ARGS__)
#undef noecho
#define noecho(...)	(*curses_lib.noecho)(__VA_ARGS__)
#undef nonl
#define nonl(...)	(*curses_lib.nonl)(__VA_ARGS__)
#undef raw
#define raw(...)	(*curses_lib.raw)(__VA_ARGS__)
#undef reset_prog_mode
#define reset_prog_mode(...)	(*curses_lib.reset_prog_mode)(__VA_ARGS__)
#undef resizeterm
#define resizeterm(...)	(*curses_lib.resizeterm)(__VA_ARGS__)
#undef set_escdelay
#define set_escdelay(...)	(*curses_lib.set_escdelay)(__VA_ARGS__)
#undef start_color
#define start_color(...)	(*curses_lib.start_color)(__VA_ARGS__)
#undef stdscr
#define stdscr	(*curses_lib.stdscr)
#undef tigetstr
#define tigetstr(...)	(*curses_lib.tigetstr)(__VA_ARGS__)
#undef use_default_colors
#define use_default_colors(...)	(*curses_lib.use_default_colors)(__VA_ARGS__)
#undef waddch
#define waddch(...)	(*curses_lib.waddch)(__VA_ARGS__)
#undef waddnwstr
#define waddnwstr(...)	(*curses_lib.waddnwstr)(__VA_ARGS__)
#undef wattrset
#define wattrset(...)	(*curses_lib.wattrset)(__VA_ARGS__)
#undef werase
#define werase(...)	(*curses_lib.werase)(__VA_ARGS__)
#undef wget_wch
#define wget_wch(...)	(*curses_lib.wget_wch)(__VA_ARGS__)
#undef wgetch
#define wgetch(...)	(*curses_lib.wgetch)(__VA_ARGS__)
#undef whline
#define whline(...)	(*curses_lib.whline)(__VA_ARGS__)
#undef win_wch
#define win_wch(...)	(*curses_lib.win_wch)(__VA_ARGS__)
#undef wmove
#define wmove(...)	(*curses_lib.wmove)(__VA_ARGS__)
#undef wnoutrefresh
#define wnoutrefresh(...)	(*curses_lib.wnoutrefresh)(__VA_ARGS__)
#undef wvline
#define wvline(...)	(*curses_lib.wvline)(__VA_ARGS__)
#endif

#endif /* CURSES_LIB_H */
