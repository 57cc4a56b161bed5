#!/bin/sh
# tests/tui/help-read.sh: the help can be read whole at any width: its
# lines wrap under their text instead of being cut, it scrolls (j/k,
# PgUp/PgDn, g/G) with the rows it is at in the footer, and it ends with a
# legend of every glyph the console draws (★ a new gate among them), in
# the terminal's form: symbols and their ASCII forms in UTF-8, the ASCII
# forms alone with LANG=C.  At 80x24 and 200x60.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

db_init

for size in 80x24 200x60; do
	scr_start "$size" --
	scr_wait 'Enter open' || true
	scr_keys ?
	scr_ok '^Keys here \(Workflows\)' "$size: ? opens the help"
	scr_check "$size: no help row is cut at the edge" \
	    '! printf "%s\n" "$SCR_LAST" | sed "1d;\$d" | grep -q "…\$"'
	scr_keys NPage
	scr_ok '^ {14}.*\(-i KEY=@-\)$' \
	    "$size: the end of the longest key line can be read, under its text"
	scr_keys G
	scr_ok '^  ★ +\* +a gate that began waiting since you last looked' \
	    "$size: the legend explains ★, with its ASCII form"
	scr_ok '^  ✓ +\+ +done, completed$' \
	    "$size: ... the status glyphs, a step's and a run's"
	scr_ok '^  ▸ +\+ +a collapsed fan-out or for-each' \
	    "$size: ... and the marks of single views"
	scr_ok 'q/Esc/\? close' "$size: the footer says how to close it"
	scr_keys g
	scr_ok '^Keys here \(Workflows\)' "$size: g goes back to the top"
	scr_keys Escape
	scr_gone_ok '^Keys here' "$size: Esc closes it"
done

# 80x24: the help is longer than the screen, and says where it is.
scr_start 80x24 --
scr_wait 'Enter open' || true
scr_keys ?
scr_ok 'rows 1-21 of [0-9]+' "the footer says which rows show"
scr_keys j
scr_ok 'rows 2-22 of [0-9]+' "j scrolls a row"
scr_keys NPage
scr_ok 'rows 22-42 of [0-9]+' "PgDn scrolls a page"
scr_keys PPage
scr_ok 'rows 2-22 of [0-9]+' "PgUp scrolls back"
scr_keys k
scr_ok 'rows 1-21 of [0-9]+' "k scrolls up"
# A narrower screen wraps again, keeping the top line.
scr_keys G
scr_resize 60x20
scr_ok '^  ★ +\* +a gate that began waiting since you last' \
    "at 60 columns the legend wraps again"
scr_check "no row is cut at 60 columns" \
    '! printf "%s\n" "$SCR_LAST" | sed "1d;\$d" | grep -q "…\$"'

# LANG=C: the ASCII forms alone, and no symbol drawn as "?".
for size in 80x24 200x60; do
	scr_start "$size" LANG=C LC_ALL=C --
	scr_wait 'Enter open' || true
	scr_keys ? G
	scr_ok '^  \* +a gate that began waiting since you last looked' \
	    "$size LANG=C: ★ is explained by its ASCII form"
	scr_ok '^  \+ +done, completed$' "$size LANG=C: ... and so are the statuses"
	scr_gone_ok '^  \? +\?' "$size LANG=C: no symbol is drawn as ?"
done

scr_sanitizers_ok "no sanitizer report from the consoles"
done_testing
