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
 * console.c: the console's life.  It shares one loop with the engine:
 * when no engine runs on the database the console is the engine; when
 * one does, it attaches (actions go through the inbox, the screen
 * follows the database) and takes over if that engine goes away.  The
 * screen is drawn in a before-sleep hook registered after the engine's,
 * so it shows what the turn just committed, and only when something
 * marked it dirty.  Stop signals end it promptly with the terminal put
 * back; a closed terminal ends the screen, and an engine it hosts with
 * work in flight goes on headless (headless.c).
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ui/ui-int.h"
#include "ui/curses-lib.h"

#define UI_WATCH_MS	100	/* how often to look for database changes */
#define UI_WATCH_ATTACHED_MS 2000	/* the same, told of them by the engine */
#define UI_TICK_MS	1000	/* ages, the engine's heartbeat, take-over */

static void	 ui_before_sleep(void *);
static void	 ui_watch(void *);
static void	 ui_tick(void *);
static void	 ui_signal(int, void *);
static void	 ui_engine_try(struct ui *, int);
static void	 ui_counts(struct ui *);
static void	 ui_finish(struct ui *);

/* Something on screen changed: draw before the loop next sleeps. */
void
ui_dirty(struct ui *ui)
{
	ui->dirty = 1;
}

/* Leave the main loop at the end of this turn. */
void
ui_quit(struct ui *ui)
{
	ui->quit = 1;
	loop_break(ui->loop);
}

/* With $SLUICE_TRACE: "U what mono_us", for the console benchmark. */
void
ui_trace(struct ui *ui, const char *what)
{
	if (ui->trace == NULL)
		return;
	fprintf(ui->trace, "U %s %lld\n", what, (long long)time_mono_us());
	fflush(ui->trace);
}

/* The header's engine state; in cluster mode, the leader first. */
void
ui_engine_state(struct ui *ui, struct buf *b)
{
	int64_t	 age;

	if (ui->leader != NULL)
		buf_printf(b, "leader %s, epoch %lld  ", ui->leader,
		    (long long)ui->leader_epoch);

	if (ui->engine != NULL) {
		buf_puts(b, ui->quit_wait ? "engine: this console (stopping)" :
		    "engine: this console");
		return;
	}
	if (ui_attach_state(ui, b) == 0)
		return;
	if (ui->lease.pid == 0) {
		buf_puts(b, ui->readonly ? "engine: none (read-only)" :
		    "engine: none");
		return;
	}
	buf_printf(b, "engine: pid %lld on %s", (long long)ui->lease.pid,
	    ui->lease.host != NULL ? ui->lease.host : "?");
	age = time_now_ms() - ui->lease.heartbeat_at;
	/* Attached, the socket's silence counts, not the lease's. */
	if (ui->attach == NULL && ui->lease.heartbeat_at > 0 &&
	    age > UI_STALE_MS)
		buf_printf(b, " (silent %llds)", (long long)(age / 1000));
}

/*
 * Become the engine if none runs (quietly at start, with a message when
 * taking over from one that went away); else note who is.
 */
static void
ui_engine_try(struct ui *ui, int announce)
{
	char	*cause = NULL;
	int64_t	 was = ui->lease.pid;
	int	 rc;

	if (ui->engine != NULL)
		return;
	if (ui_attach_ready(ui) || ui_attach_open(ui) == 0) {
		/*
		 * The socket says who once it answers; until then the
		 * lease does, so the header never says "none" while an
		 * engine runs (a dumb terminal shows only the first draw).
		 * Once it has answered, the lease is not read again: a
		 * member reads it through the engine, and a stopped
		 * engine would hold each such read (and with it every
		 * draw, "silent" included) for the link's whole wait.
		 */
		if (ui_attach_known(ui))
			return;
		store_lease_clear(&ui->lease);
		if (store_lease_get(ui->store, &ui->lease, &cause) != 0) {
			log_debug("%s: %s", __func__, cause);
			free(cause);
		}
		return;
	}
	if (!ui->readonly && !client_probe(ui->store)) {
		rc = engine_open(ui->loop, ui->store, ui->cfg->tools,
		    &ui->cfg->opts, &ui->engine, &cause);
		if (rc == 0) {
			store_lease_clear(&ui->lease);
			if (announce)
				ui_screen_message(ui, 0, "the engine (pid "
				    "%lld) went away; this console runs it now",
				    (long long)was);
			return;
		}
		log_debug("%s: %s", __func__, cause);
		if (rc != LOCK_HELD && announce)
			ui_screen_message(ui, 1, "cannot run the engine: %s",
			    cause);
		free(cause);
		cause = NULL;
	}
	store_lease_clear(&ui->lease);
	if (store_lease_get(ui->store, &ui->lease, &cause) != 0) {
		log_debug("%s: %s", __func__, cause);
		free(cause);
	}
}

/*
 * The header's counts, and the bell when a new gate starts waiting; and
 * who leads (cluster mode), which a takeover's epoch bump changes.
 */
static void
ui_counts(struct ui *ui)
{
	char	*cause = NULL;

	free(ui->leader);
	if (store_node_leader(ui->store, &ui->leader, &ui->leader_epoch,
	    &cause) != 0) {
		log_debug("%s: %s", __func__, cause);
		free(cause);
		cause = NULL;
	}

	if (store_counts(ui->store, &ui->counts, &cause) != 0) {
		ui_screen_read_failed(ui, "%s", cause);
		free(cause);
		return;
	}
	if (ui->counts.newest_gate > ui->gate_seen) {
		if (ui->gate_seen != 0)
			ui_term_bell(ui);
		ui->gate_seen = ui->counts.newest_gate;
	}
}

/* The database changed (or may have): the visible views read again. */
void
ui_changed(struct ui *ui)
{
	struct view	*v;

	ui->mark = store_change_mark(ui->store);
	for (v = ui->top; v != NULL; v = v->below)
		v->dirty_data = 1;
	ui_counts(ui);
	ui_action_poll(ui);
	ui_dirty(ui);
}

/*
 * Every 100 ms: if the database moved, the visible views read again.
 * Attached to an engine's socket, the engine says when it commits, so
 * this only looks seldom, for writers that are not the engine; a member
 * reading through the engine (service mode) has no other writer, and
 * does not ask at all: an engine that stopped answering would hold the
 * console up until the read gave up.
 */
static void
ui_watch(void *arg)
{
	struct ui	*ui = arg;

	if ((!store_is_remote(ui->store) || !ui_attach_ready(ui)) &&
	    store_change_mark(ui->store) != ui->mark)
		ui_changed(ui);
	loop_timer_start(ui->watch, ui_attach_ready(ui) ? UI_WATCH_ATTACHED_MS :
	    UI_WATCH_MS);
}

/* Every second: ages move, and an attached console checks the engine. */
static void
ui_tick(void *arg)
{
	struct ui	*ui = arg;
	struct view	*v;

	ui_attach_tick(ui);
	if (ui->engine == NULL)
		ui_engine_try(ui, 1);
	/* A server's database: who leads, also when nothing else moved. */
	if (store_is_server(ui->store) && ++ui->leader_ticks % 5 == 0)
		ui_counts(ui);
	ui_lost_ask(ui);	/* after the take-over: it may tell */
	for (v = ui->top; v != NULL; v = v->below) {
		if (v->ops->tick != NULL && v->ops->tick(ui, v))
			ui_dirty(ui);
		if (v == ui_view_page(ui))
			break;
	}
	if (ui->engine == NULL)
		ui_dirty(ui);		/* the heartbeat's age */
	if (ui->quit_wait && engine_finished(ui->engine))
		ui_quit(ui);
	loop_timer_start(ui->tick, UI_TICK_MS);
}

/* Before the loop sleeps: read what changed, draw, flush. */
static void
ui_before_sleep(void *arg)
{
	struct ui	*ui = arg;

	if (ui->quit || !ui->dirty || ui->editing || ui->wait_enter)
		return;
	ui->dirty = 0;
	ui_view_load_all(ui);
	ui_screen_draw(ui);
	wnoutrefresh(stdscr);
	doupdate();
	if (!ui->first_drawn) {
		ui->first_drawn = 1;
		ui_trace(ui, "first");
	}
	ui_trace(ui, "draw");
}

/*
 * SIGTERM, SIGINT: stop now, interrupting running steps first, as a
 * second signal to "sluice engine" does.  SIGHUP: the terminal is gone;
 * an engine this console hosts goes on headless (SPEC §11).
 */
static void
ui_signal(int signo, void *arg)
{
	struct ui	*ui = arg;

	if (signo == SIGWINCH) {
		if (!ui->editing && !ui->wait_enter)
			ui_term_resize(ui);
		return;
	}
	if (signo == SIGINT && (ui->editing || ui->wait_enter))
		return;		/* the editor's, from the keyboard */
	log_debug("%s: signal %d", __func__, signo);
	if (signo == SIGHUP)
		ui->tty_gone = 1;
	ui->quit_wait = 0;
	ui_quit(ui);
}

/*
 * The way out.  With work in flight, an engine whose terminal went away,
 * or whose operator chose to keep it running, goes on headless; a stop
 * signal interrupts the running steps and waits for them (sleeping in the
 * loop, not spinning); then the engine is let go.
 */
static void
ui_finish(struct ui *ui)
{
	ui_term_close(ui);
	if (ui->engine == NULL)
		return;
	loop_resume(ui->loop);
	if ((ui->tty_gone || ui->headless) && !engine_idle(ui->engine)) {
		ui_headless(ui, ui->tty_gone ? "the terminal went away" :
		    "the operator quit and kept the work running");
	} else if (!ui->tty_gone && engine_nrunning(ui->engine) > 0) {
		engine_shutdown(ui->engine, 1);
		while (!engine_finished(ui->engine))
			loop_once(ui->loop, 1);
	}
	engine_close(ui->engine);
	ui->engine = NULL;
}

/* The console: set up, run until quit, put everything back. */
int
ui_main(const struct ui_config *cfg, char **cause)
{
	struct ui	 ui;
	const char	*trace;
	static const int signals[] = { SIGTERM, SIGINT, SIGHUP, SIGWINCH };
	size_t		 i;
	int		 rc;

	memset(&ui, 0, sizeof ui);
	ui.cfg = cfg;
	ui.store = cfg->store;
	ui.readonly = store_is_readonly(cfg->store);
	ui.mouse = !cfg->no_mouse;
	client_read_link_wait(UI_LINK_WAIT_MS);
	ui.loop = loop_create();
	/* Ours before curses', so it installs none of its own. */
	for (i = 0; i < nitems(signals); i++)
		loop_signal(ui.loop, signals[i], ui_signal, &ui);
	signal(SIGPIPE, SIG_IGN);
	if ((trace = getenv("SLUICE_TRACE")) != NULL && *trace != '\0')
		ui.trace = file_open_private(trace);
	ui_engine_try(&ui, 0);
	rc = ui_script_wanted() ? ui_script_open(&ui, cause) :
	    ui_term_open(&ui, cause);
	if (rc != 0) {
		if (ui.engine != NULL)
			engine_close(ui.engine);
		store_lease_clear(&ui.lease);
		loop_free(ui.loop);
		return (-1);
	}
	loop_hook_add(ui.loop, ui_before_sleep, &ui);
	ui_script_start(&ui);	/* after the draw, so it sees the screen */
	ui.watch = loop_timer_create(ui.loop, ui_watch, &ui);
	ui.tick = loop_timer_create(ui.loop, ui_tick, &ui);
	loop_timer_start(ui.tick, UI_TICK_MS);
	ui.mark = store_change_mark(ui.store);
	ui_counts(&ui);
	loop_timer_start(ui.watch, UI_WATCH_MS);
	ui_view_switch(&ui, VIEW_WORKFLOWS);
	if (ui.readonly && !ui_attach_ready(&ui))
		ui_screen_message(&ui, 1, "the database is read-only: you can "
		    "look, not act");
	while (!ui.quit)
		loop_once(ui.loop, 1);
	ui_finish(&ui);
	rc = ui_script_close(&ui);
	while (ui.top != NULL && ui.top->below != NULL)
		ui_view_pop(&ui);
	ui_view_switch(&ui, (enum view_kind)-1);
	ui_attach_close(&ui);
	loop_timer_free(ui.watch);
	loop_timer_free(ui.tick);
	loop_hook_del(ui.loop, ui_before_sleep, &ui);
	ui_action_clear(&ui);
	ui_lost_clear(&ui);
	store_lease_clear(&ui.lease);
	free(ui.leader);
	free(ui.message);
	ui_messages_free(&ui);
	if (ui.trace != NULL)
		fclose(ui.trace);
	loop_free(ui.loop);
	if (rc != 0) {
		xasprintf(cause, "the key script failed");
		return (-1);
	}
	return (0);
}
