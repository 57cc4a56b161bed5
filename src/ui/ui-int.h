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
 * ui-int.h: what the console's files share.  The console is a stack of
 * views on one loop: the bottom is one of the five top views, above it
 * the run view, a step's details, a log pager; prompts, confirmations,
 * the help and the run form are views too (overlays), so no key is ever
 * read anywhere but in the loop's stdin callback and the engine keeps
 * running whatever is open.  Views read only the rows they show, when the
 * database has changed, and the screen is drawn once per loop turn at
 * most, only when something marked it dirty.
 *
 * Every function and table shared across the console's files carries the
 * ui_ prefix, then its file: ui_draw_text (draw.c), ui_run_open (run.c),
 * ui_view_run (the run view's ops); file-private ones stay static.
 */

#ifndef SLUICE_UI_INT_H
#define SLUICE_UI_INT_H

#include <stdint.h>
#include <stdio.h>

#include "util/util.h"
#include "os/os.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "client/client.h"
#include "ui/ui.h"

struct cJSON;
struct ui;
struct view;

/*
 * Keys: characters as their code points, curses' function keys set apart
 * (wide characters can share values with KEY_* codes).  Enter, Backspace
 * and their variants are folded into one code each.
 */
#define KEY_FN(k)	((k) | 0x40000000)
#define K_CTRL(c)	((c) & 0x1f)
#define K_ESC		27
#define K_ENTER		'\r'
#define K_BS		127

/* The kinds of view; keys name the ones they work in as a mask of these. */
enum view_kind {
	VIEW_WORKFLOWS,
	VIEW_GATES,
	VIEW_TEMPLATES,
	VIEW_SCHEDULES,
	VIEW_AUDIT,
	VIEW_RUN,
	VIEW_STEP,
	VIEW_LOG,
	VIEW_HELP,
	VIEW_PROMPT,
	VIEW_FORM,
	VIEW_VERSIONS,
	VIEW_DIFF,
	VIEW_MESSAGES
};
#define VIEW_BIT(k)	(1U << (k))
#define VIEW_TOPS	(VIEW_BIT(VIEW_WORKFLOWS) | VIEW_BIT(VIEW_GATES) | \
			 VIEW_BIT(VIEW_TEMPLATES) | VIEW_BIT(VIEW_SCHEDULES) | \
			 VIEW_BIT(VIEW_AUDIT))
#define VIEW_PAGES	(VIEW_TOPS | VIEW_BIT(VIEW_RUN) | \
			 VIEW_BIT(VIEW_STEP) | VIEW_BIT(VIEW_LOG) | \
			 VIEW_BIT(VIEW_VERSIONS) | VIEW_BIT(VIEW_DIFF) | \
			 VIEW_BIT(VIEW_MESSAGES))

struct view_ops {
	enum view_kind	 kind;
	const char	*title;
	int		 overlay;	/* drawn over the view beneath it */
	/* The database changed (or the view is new): read what it shows. */
	void		 (*load)(struct ui *, struct view *);
	/* Draw into rows [y, y + h) of the body. */
	void		 (*draw)(struct ui *, struct view *, int, int);
	/* A key before the key table sees it; 1 if it was used. */
	int		 (*key)(struct ui *, struct view *, int);
	void		 (*free)(struct view *);
	/* Every second: 1 if what it shows moves with time. */
	int		 (*tick)(struct ui *, struct view *);
	/* Its name and subject for the header ("Run 12 deploy"); NULL: title. */
	void		 (*name)(struct view *, struct buf *);
	/*
	 * Where its cursor (a struct ui_list or ui_window) is in its data,
	 * and its size (0: none): kept when a filter comes, put back when
	 * the filter is cleared.
	 */
	size_t		 cursor_at;
	size_t		 cursor_size;
};

/* A cursor over rows held in memory. */
struct ui_list {
	int		 n;		/* rows */
	int		 sel;		/* selected row */
	int		 top;		/* first row on screen */
	int		 height;	/* rows on screen, from the last draw */
};

/*
 * A cursor over a table read a window at a time by id, newest first:
 * anchor is the id of the top row (0 follows the newest), sel the row
 * selected on screen, kept on the same id across reloads when it can be.
 */
struct ui_window {
	int64_t		 anchor;
	int		 sel;
	int64_t		 sel_id;
	int		 n;		/* rows read (at most height) */
	int		 more;		/* rows below the last one */
	int		 height;
	int64_t		 top_id;	/* ids of rows 0, 1 and height */
	int64_t		 second_id;
	int64_t		 next_id;
};

/* How a window reads: rows from an anchor, ids above one, a row's id. */
struct window_src {
	void		*arg;
	int		 (*fetch)(void *, int64_t, int);
	int64_t		 (*up)(void *, int64_t, int, int *);
	int64_t		 (*id_at)(void *, int);
};

struct view {
	const struct view_ops	*ops;
	struct view		*below;
	void			*data;
	char			*filter;	/* "/" text, or NULL */
	void			*cursor;	/* before the filter came */
	int			 dirty_data;	/* load before drawing */
};

/* A command sent to an engine in another process, awaiting its answer. */
struct ui_pending {
	int64_t		 inbox_id;
	char		*echo;
	int64_t		 sent_at;
	struct ui_pending *next;
};

struct ui {
	struct loop		*loop;
	const struct ui_config	*cfg;
	struct store		*store;
	struct engine		*engine;	/* this console runs it */
	struct store_lease	 lease;		/* who does, if another */
	struct ui_attach	*attach;	/* its socket, or NULL */
	int			 readonly;
	struct store_counts	 counts;
	char			*leader;	/* cluster mode: its node */
	int64_t			 leader_epoch;
	unsigned		 leader_ticks;	/* reads it every 5th */
	int64_t			 mark;		/* store_change_mark seen */
	int64_t			 gate_seen;	/* newest gate rung for */
	int64_t			 gates_looked;	/* newest shown in Gates */

	struct view		*top;		/* the stack */
	int			 rows, cols;
	int			 dirty;		/* draw before sleeping */
	int			 first_drawn;
	int			 too_small;
	int			 utf8;
	int			 color;
	int			 mouse;		/* clicks and the wheel come */
	int			 list_y;	/* the page's first row, or -1 */

	char			*message;
	int			 message_error;
	int			 message_whole;	/* wraps until a key */
	struct ui_messages	*messages;	/* every one, and the command */
	struct ui_pending	*pending;
	struct ui_lost		*lost;		/* answers lost: lost.c */

	struct loop_fd		*tty;
	struct loop_timer	*tick;		/* every second */
	struct loop_timer	*watch;		/* database changes */
	int			 idle_reads;	/* POLLIN with no key: EOF? */
	int			 quit;		/* leave the loop */
	int			 quit_wait;	/* after running steps end */
	int			 tty_gone;	/* the terminal went away */
	int			 headless;	/* quit, keeping work running */
	int			 editing;	/* the terminal is the editor's */
	int			 wait_enter;	/* after it failed: until Enter */
	FILE			*trace;		/* $SLUICE_TRACE */
	struct ui_script	*script;	/* $SLUICE_SCRIPT, or NULL */
};

/* Colour pairs and attributes by meaning. */
enum ui_paint {
	PAINT_NORMAL,
	PAINT_DIM,
	PAINT_OK,
	PAINT_BAD,
	PAINT_WAIT,
	PAINT_RUN,
	PAINT_HEADER,
	PAINT_SELECT,
	PAINT_TITLE,
	PAINT_ERROR,
	PAINT_BAR,
	PAINT_LATE
};

#define UI_STALE_MS	5000	/* an engine silent this long looks dead */
#define UI_LINK_WAIT_MS	UI_STALE_MS	/* a member's read waits at most */

/* attach.c: the socket of an engine in another process. */
struct ui_attach;
struct ui_lost;

/* lost.c: actions whose answer was lost, and what became of them. */
void		 ui_lost_add(struct ui *, const char *, const char *);
void		 ui_lost_answer(struct ui *, const char *,
		     const struct engine_reply *);
void		 ui_lost_unask(struct ui *, const char *);
void		 ui_lost_ask(struct ui *);
void		 ui_lost_clear(struct ui *);
int		 ui_attach_open(struct ui *);
void		 ui_attach_close(struct ui *);
int		 ui_attach_ready(const struct ui *);
int		 ui_attach_known(const struct ui *);
int		 ui_attach_silent(const struct ui *);
int		 ui_attach_state(struct ui *, struct buf *);
void		 ui_attach_tick(struct ui *);
void		 ui_attach_outcome(struct ui *, const char *);
void		 ui_attach_send(struct ui *, const struct engine_request *,
		     const char *);

/* script.c: keys from a script, screens to files (screen tests). */
struct ui_script;
int		 ui_script_open(struct ui *, char **);
void		 ui_script_start(struct ui *);
int		 ui_script_close(struct ui *);

/* term.c: the terminal, its keys and its end. */
int		 ui_term_open(struct ui *, char **);
void		 ui_term_close(struct ui *);
void		 ui_term_restore(void);
int		 ui_term_attr(const struct ui *, enum ui_paint);
void		 ui_term_resize(struct ui *);
void		 ui_term_suspend(struct ui *);
void		 ui_term_resume(struct ui *);
void		 ui_term_bell(struct ui *);

/* draw.c: text by display width, never past the last column. */
int		 ui_draw_width(const char *);
int		 ui_draw_text(struct ui *, int, int, int, const char *,
		     enum ui_paint);
int		 ui_draw_textf(struct ui *, int, int, int, enum ui_paint,
		     const char *, ...) printflike(6, 7);
void		 ui_draw_fill(struct ui *, int, int, int, enum ui_paint);
void		 ui_draw_clip(const char *, int, struct buf *);
int		 ui_draw_wrap(struct ui *, int, int, int, int, const char *,
		     enum ui_paint);
void		 ui_draw_box(struct ui *, int, int, int, int);
int		 ui_utf8_encode(uint32_t, char *);
const char	*ui_draw_glyph(const struct ui *, enum step_status);
const char	*ui_draw_state_glyph(const struct ui *, enum run_state);
enum ui_paint	 ui_draw_status_paint(enum step_status);
enum ui_paint	 ui_draw_state_paint(enum run_state);
const char	*ui_draw_duration(int64_t, char *, size_t);
const char	*ui_draw_when(int64_t, char *, size_t);
void		 ui_draw_columns(struct ui *, int, const int *, size_t,
		     const char *const *, const enum ui_paint *, enum ui_paint);

/*
 * table.c: a list view's columns.  row() fills the cells of row i (text
 * valid until the next call) and may set per-cell paints and the row's.
 */
#define TABLE_MAX_COLS	10
struct table {
	const char	*const *titles;
	const int	*widths;	/* wanted; the flexible one ignored */
	size_t		 ncols;
	size_t		 flex;
	int		 flex_max;	/* 0: the flexible column takes all */
	const char	*empty;		/* what to say when there are no rows */
	void		 (*row)(struct ui *, void *, int, const char **,
			     enum ui_paint *, enum ui_paint *);
	void		*arg;
};
void		 ui_table_draw(struct ui *, int, int, const struct table *, int,
		     int, int);

/* screen.c: header, footer, message line, the frame. */
void		 ui_screen_draw(struct ui *);
void		 ui_screen_message(struct ui *, int, const char *, ...)
		     printflike(3, 4);
void		 ui_screen_read_failed(struct ui *, const char *, ...)
		     printflike(2, 3);
int		 ui_screen_body_rows(const struct ui *);

/* mouse.c: clicks and the wheel, as the keys that do the same. */
enum ui_mouse {
	UI_MOUSE_CLICK,
	UI_MOUSE_DOUBLE,
	UI_MOUSE_WHEEL_UP,
	UI_MOUSE_WHEEL_DOWN
};
void		 ui_mouse(struct ui *, enum ui_mouse, int, int);

/* keys.c: the key table (the help and the man page list the same). */
struct ui_key {
	int		 key;
	const char	*label;
	unsigned int	 views;		/* VIEW_BIT mask */
	const char	*footer;	/* its word in the footer, or NULL */
	const char	*help;
	void		 (*fn)(struct ui *, struct view *);
};
extern const struct ui_key ui_keys[];
extern const size_t ui_nkeys;
void		 ui_keys_dispatch(struct ui *, int);
void		 ui_keys_dispatch_quit(struct ui *);
void		 ui_keys_footer(struct ui *, struct view *, struct buf *);
const char	*ui_keys_name(int, char *, size_t);

/* view.c: the stack. */
struct view	*ui_view_push(struct ui *, const struct view_ops *, void *);
void		 ui_view_pop(struct ui *);
void		 ui_view_switch(struct ui *, enum view_kind);
void		 ui_view_load_all(struct ui *);
struct view	*ui_view_page(struct ui *);	/* the top non-overlay */
struct view	*ui_view_find(struct ui *, enum view_kind);
void		 ui_view_set_filter(struct ui *, struct view *, const char *);
void		 ui_view_name(struct view *, struct buf *);

/* list.c: cursors. */
int		 ui_list_key(struct ui_list *, int);
void		 ui_list_fix(struct ui_list *, int);
int		 ui_window_key(struct ui *, struct view *, struct ui_window *,
		     int);
void		 ui_window_load(struct ui_window *, int,
		     const struct window_src *);

/* tree.c: a run's step rows laid out as its flow's graph (pure). */
enum tree_kind {
	TREE_STEP,		/* a step row */
	TREE_JOIN,		/* a step row joining a fan-out's branches */
	TREE_NOT_REACHED,	/* a flow step with no row; the run ended */
	TREE_BRANCH,		/* "branch 2 of 3", over that branch's rows */
	TREE_FANOUT		/* a large fan-out's branches by status */
};
struct tree_row {
	enum tree_kind		 kind;
	enum step_status	 status;	/* a branch's: its most active */
	int			 depth;
	int			 last;		/* the last of its siblings */
	uint64_t		 rails;		/* bit k: a line at level k */
	const struct store_step	*row;		/* steps; fan-out of the rest */
	int			 spec;		/* flow step, -1 unknown */
	int64_t			 fanout_id;	/* branch, fan-out, join */
	int			 branch_no;	/* branch, from 0 */
	int			 fanout;	/* index in tree->fanouts, -1 */
	int			 foreach;	/* index in tree->foreachs, -1 */
	int			 item;		/* an item's or a gate's row */
};
/* A for-each's items counted by the store (its items were not read). */
struct tree_tally {
	int64_t				 root;	/* the items' item_of */
	struct store_item_tally		 counts;
};
/* A for-each row: how it stands, and whether its items show. */
struct tree_foreach {
	int64_t				 id;
	const struct store_step		*row;
	struct flow_foreach_tally	 tally;
	int				 expanded;
	int				 gate_waits;	/* a gate of it */
};
struct tree_fanout {
	int64_t			 id;
	const struct store_step	*row;
	int			 nbranches;
	int			 nrows;		/* rows under it */
	int			 large;		/* collapses */
	int			 expanded;
	int			 counts[STEP_NSTATUS];	/* large: branches */
};
struct tree {
	const struct flow	*flow;		/* the input's */
	struct tree_row		*rows;
	size_t			 n;
	struct tree_fanout	*fanouts;
	size_t			 nfanouts;
	struct tree_foreach	*foreachs;
	size_t			 nforeachs;
};
struct tree_input {
	const struct flow	*flow;		/* NULL: rows as they come */
	const struct store_step	*steps;		/* store_step_list's */
	size_t			 nsteps;
	int			 ended;		/* show what was not reached */
	const int64_t		*expanded;	/* large fan-outs opened */
	size_t			 nexpanded;
	int			 max_branches;	/* wider ones collapse; 0: 8 */
	int			 max_rows;	/* so do bigger ones; 0: 30 */
	const struct tree_tally	*tallies;	/* closed for-eachs' items */
	size_t			 ntallies;
};
struct tree	*ui_tree_build(const struct tree_input *);
void		 ui_tree_free(struct tree *);
int		 ui_tree_find_step(const struct tree *, int64_t);

/* tree.c, tree-index.c, tree-foreach.c: what the layout's files share. */
/* A row's place in a sort: by lane then id, or by id alone. */
struct tree_key {
	int64_t		 fanout;
	int64_t		 id;
	int		 branch;
	size_t		 idx;
};

/* What is being walked: a lane's rows, or a fan-out's branches. */
struct tree_frame {
	int		 is_fanout;
	size_t		 pos, hi;	/* in ctx->lane */
	size_t		 clo, chi;	/* not-reached specs after a lane */
	int		 depth;		/* of the rows it emits */
	uint64_t	 rails;		/* their rails */
	int		 tail_last;	/* a lane's end is its siblings' end */
	int		 fo;		/* fan-out: index in tree->fanouts */
	int		 branch;	/* fan-out: the next branch, -1 first */
};

struct tree_ctx {
	const struct tree_input	*in;
	struct tree		*t;
	size_t			 n;
	struct tree_key		*byid;
	struct tree_key		*lane;
	struct tree_key		*member;	/* items and gates, by owner */
	size_t			 nmember;
	int			*spec;
	int			*sub;		/* rows under a fan-out row */
	unsigned char		*act;		/* most active status under */
	int			*fo;		/* fan-out index of a row */
	char			*placed;	/* a flow step has a row */
	char			*shown;		/* a row was laid out */
	int			*chain;		/* not-reached specs in lanes */
	size_t			 nchain;
	struct tree_frame	*frames;
	size_t			 nframes, sframes;
	size_t			 srows;
	size_t			 sfanouts;
};
void		 ui_tree_index(struct tree_ctx *);
ssize_t		 ui_tree_find(const struct tree_ctx *, int64_t);
size_t		 ui_tree_lane_lo(const struct tree_ctx *, int64_t, int);
void		 ui_tree_specs(struct tree_ctx *);
void		 ui_tree_subtrees(struct tree_ctx *);
int		 ui_tree_fanout_new(struct tree_ctx *);
void		 ui_tree_fanouts(struct tree_ctx *);
enum step_status ui_tree_lane_status(const struct tree_ctx *, size_t, size_t);
struct tree_row	*ui_tree_emit(struct tree_ctx *, enum tree_kind, int,
		     uint64_t, int);
void		 ui_tree_foreach(struct tree_ctx *, size_t, int, uint64_t,
		     int);

/* timeline.c: the run view's rows as a Gantt chart. */
struct timeline {
	const struct tree	*tree;
	const int		*vis;		/* the rows shown, in tree */
	const struct ui_list	*list;		/* the cursor over vis */
	int64_t			 start;		/* the run's, 0: its rows' */
	int64_t			 end;		/* 0: still going (now) */
	int			 name_w;	/* the names' column */
};
void		 ui_timeline_draw(struct ui *, const struct timeline *, int,
		     int);

/* run.c, run-row.c, run-header.c: the run view. */
/*
 * A run view: the workflow, its rows and their layout; the expanded
 * fan-outs and the flow are kept across reads.
 */
struct run {
	int64_t			 id;
	int64_t			 want;	/* ui_run_open's step, until shown */
	int			 placed;	/* the cursor was placed once */
	struct store_workflow	*wf;
	struct flow		*flow;
	struct store_step	*steps;
	size_t			 nsteps;
	struct tree		*tree;
	int			*vis;	/* tree rows shown (a filter) */
	struct ui_list		 list;
	int64_t			*open;	/* large fan-outs expanded */
	size_t			 nopen;
	int			 timeline;
	int			 follow;
	int			 live;	/* durations move */
	int			 name_w;	/* widest label */
	int			 tool_w;
	int			 tries;	/* some row has attempt > 1 */
	char			*error;	/* reading failed */
	int64_t			 next_load;	/* reads wait till */
	int			 force;	/* read now (a key asked) */
	char			*filter;	/* the view's as last laid out (a copy) */
	struct tree_tally	*tallies;	/* closed for-eachs, counted */
	size_t			 ntallies;
	int			 reread;	/* f opened a for-each: read again */
};

/* Where the columns go at this width (0: dropped). */
struct run_cols {
	int	 name, tool, try, took, result;
};
int		 ui_run_label(struct ui *, int, int, const struct tree *,
		     const struct tree_row *, int);
const char	*ui_run_label_text(const struct tree *,
		     const struct tree_row *, char *, size_t);
void		 ui_run_widths(struct run *);
void		 ui_run_fit(const struct run *, int, struct run_cols *);
void		 ui_run_title(struct ui *, const struct run_cols *, int);
void		 ui_run_row(struct ui *, const struct run *, int, int,
		     const struct run_cols *);
void		 ui_run_oneline(const char *, struct buf *);
int		 ui_run_header(struct ui *, const struct run *, int, int);

/* Top views, each in its own file. */
extern const struct view_ops ui_view_workflows;
extern const struct view_ops ui_view_gates;
extern const struct view_ops ui_view_templates;
extern const struct view_ops ui_view_schedules;
extern const struct view_ops ui_view_audit;
extern const struct view_ops ui_view_run;
extern const struct view_ops ui_view_step;
extern const struct view_ops ui_view_log;
extern const struct view_ops ui_view_help;
extern const struct view_ops ui_view_prompt;
extern const struct view_ops ui_view_form;
extern const struct view_ops ui_view_versions;
extern const struct view_ops ui_view_diff;
extern const struct view_ops ui_view_messages;

/* Which workflow or step the page under the cursor is about. */
int64_t		 ui_workflows_selected(struct view *);
int		 ui_workflows_status(struct view *, enum run_status *, int *);
int64_t		 ui_audit_selected(struct view *);
int		 ui_gates_selected(struct view *, int64_t *, int64_t *);
const char	*ui_templates_selected(struct view *);
int		 ui_run_selected(struct view *, int64_t *, int64_t *);
int		 ui_run_state(struct view *, enum step_status *, int *);
int		 ui_run_status(struct view *, enum run_status *, int *);
int		 ui_step_state(struct view *, enum step_status *, int *);
int		 ui_run_toggle_timeline(struct view *);
const char	*ui_run_retry_from(struct view *);
void		 ui_run_follow(struct ui *, struct view *);
void		 ui_run_open(struct ui *, int64_t, int64_t);
void		 ui_step_open(struct ui *, int64_t);
int		 ui_step_selected(struct view *, int64_t *, int64_t *);
void		 ui_pager_open(struct ui *, int64_t);

/*
 * step.c, step-gate.c, step-wait.c: the step view, written out as lines in load with
 * the ui_step_* builders and wrapped to the width in draw.
 */
struct stepv;
void		 ui_step_add(struct stepv *, enum ui_paint, int, int, int,
		     const char *);
void		 ui_step_field(struct stepv *, const char *, enum ui_paint,
		     const char *, ...) printflike(4, 5);
void		 ui_step_heading(struct stepv *, const char *);
void		 ui_step_json(struct stepv *, const char *, int);
const char	*ui_step_when(int64_t, char *, size_t);
void		 ui_step_gate(struct ui *, struct stepv *,
		     const struct store_step *, const struct store_workflow *);
int		 ui_step_gate_foreach(struct ui *, struct stepv *,
		     const struct store_step *, const struct store_workflow *,
		     const struct flow_policy *);
void		 ui_step_wait(struct ui *, struct stepv *,
		     const struct store_step *);

/* pager.c: a step's log as lines (the step view shows the last few). */
struct log_line {
	int64_t		 at;		/* when its first byte came */
	char		 stream;	/* 'o' out, 'e' err, 's' sluice, 'c' cut */
	int		 open;		/* no newline yet: more may join it */
	char		*raw;		/* while open: the bytes as they came */
	char		*text;		/* as shown: no escapes, tabs expanded */
};
struct log_lines {
	struct log_line	*v;
	size_t		 n;
	size_t		 size;
	int		 cut;		/* the log limit was reached */
};
void		 ui_pager_lines_add(struct log_lines *,
		     const struct store_log *, size_t);
void		 ui_pager_lines_free(struct log_lines *);
const char	*ui_pager_stream_mark(const struct ui *, char, enum ui_paint *);

/* prompt.c: one line of input, or a yes/no question, over any view. */
typedef void	 (*prompt_cb)(struct ui *, const char *, void *);
/* Tab's choices for a line: whole lines, in order; *n says how many. */
typedef char	**(*prompt_complete_cb)(struct ui *, const char *, size_t *);
void		 ui_prompt_open(struct ui *, const char *, const char *, int,
		     prompt_cb, void *, void (*)(void *));
void		 ui_prompt_live(struct ui *, prompt_cb);
void		 ui_prompt_completion(struct ui *, prompt_complete_cb);
void		 ui_prompt_append(struct ui *, struct buf *, int);
void		 ui_prompt_rubout(struct buf *, int);
void		 ui_confirm_open(struct ui *, const char *, const char *,
		     prompt_cb, void *, void (*)(void *));
void		 ui_prompt_footer(struct view *, struct buf *);

/* help.c, help-legend.c: the help's lines, wrapped when drawn. */
struct help_text;
void		 ui_help_add(struct help_text *, enum ui_paint, int,
		     const char *, ...) printflike(4, 5);
void		 ui_help_legend(const struct ui *, struct help_text *);
void		 ui_help_footer(struct view *, struct buf *);

/* form.c: run a template. */
void		 ui_form_open(struct ui *, const char *, const char *);
void		 ui_form_footer(struct view *, struct buf *);
void		 ui_form_open_again(struct ui *, int64_t);

/* versions.c, diffview.c: a template's versions and the diff of two. */
/* messages.c: the session's messages, and the last command to copy. */
struct ui_messages;
void		 ui_messages_add(struct ui *, const char *, int);
int		 ui_messages_last_is(const struct ui *, const char *);
void		 ui_messages_command(struct ui *, const char *);
void		 ui_messages_free(struct ui *);
void		 ui_messages_open(struct ui *);
void		 ui_messages_copy(struct ui *);

void		 ui_versions_open(struct ui *, const char *);
void		 ui_diffview_open(struct ui *, const char *, int64_t, int64_t);
void		 ui_versions_run_diff(struct ui *, int64_t);
/* How a run's template version stands to the one that last completed. */
enum ui_version_good {
	UI_GOOD_NO_TEMPLATE,	/* the run was not started from a template */
	UI_GOOD_NONE_YET,	/* no run of its template has completed */
	UI_GOOD_SAME,		/* its version is the one that last did */
	UI_GOOD_DIFFERS		/* another version did: there is a diff */
};
int		 ui_versions_good(struct ui *, const struct store_workflow *,
		     int64_t *, char **);

/* edit.c: a template in $VISUAL or $EDITOR while the loop runs. */
void		 ui_edit_open(struct ui *, const char *);

/* action.c: what the console asks the engine for. */
void		 ui_action_send(struct ui *, const char *, int64_t, int64_t,
		     struct cJSON *, const char *);
void		 ui_action_poll(struct ui *);
void		 ui_action_answer(struct ui *, const char *,
		     const struct engine_reply *);
void		 ui_action_quote(struct buf *, const char *);
void		 ui_action_echo(struct ui *, struct buf *, const char *);
void		 ui_action_approve(struct ui *, int64_t, int);
void		 ui_action_cancel(struct ui *, int64_t, int64_t);
void		 ui_action_retry(struct ui *, int64_t, const char *);
void		 ui_action_clear(struct ui *);
void		 ui_action_skip(struct ui *, int64_t);
void		 ui_action_pause(struct ui *, int64_t);

/* command.c: the ":" line. */
void		 ui_command_open(struct ui *);

/* headless.c */
void		 ui_headless(struct ui *, const char *);

/* console.c */
void		 ui_changed(struct ui *);
void		 ui_dirty(struct ui *);
void		 ui_quit(struct ui *);
void		 ui_trace(struct ui *, const char *);
void		 ui_engine_state(struct ui *, struct buf *);

#endif /* SLUICE_UI_INT_H */
