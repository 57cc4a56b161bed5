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
 * headless.c: a console that hosts the engine and loses its screen (the
 * terminal hung up, or the operator quit and kept the work running) goes
 * on as a headless engine in the same process.  Its running steps are its
 * own children, so nothing is interrupted and nothing runs twice.  The
 * terminal is never touched again: stdin becomes /dev/null, stdout and
 * stderr the engine log beside the database (DB.engine.log, 0600), and
 * further hang-ups are ignored.  It serves commands as any engine does,
 * logs what happens meanwhile (gates waiting, workflows ending), and exits
 * once its work has drained (no workflow running: as "sluice engine
 * --drain"), when an engine started later asks it to hand over, or on
 * SIGTERM (the first lets running steps end, a second interrupts them).
 */

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ui/ui-int.h"

/* What the headless engine needs in its signal callback. */
struct headless {
	struct ui	*ui;
	int		 signals;	/* SIGTERM and SIGINT so far */
	int		 stopping;	/* drained or handing over */
};

static void	 headless_log(const char *, ...) printflike(1, 2);
static int	 headless_open_log(struct ui *, char **);
static void	 headless_detach(int);
static void	 headless_signal(int, void *);
static void	 headless_check(void *);
static void	 headless_event(const char *, int64_t, int64_t, void *);

/* One line in the engine log (stderr is the log now), with the time. */
static void
headless_log(const char *fmt, ...)
{
	va_list	 ap;
	int64_t	 now = time_now_ms();
	char	 when[32];
	time_t	 t = (time_t)(now / 1000);
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		strlcpy(when, "?", sizeof when);
	fprintf(stderr, "%s sluice[%ld]: ", when, (long)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

/*
 * Open DB.engine.log for appending, created 0600 whatever the umask (it
 * may quote inputs and errors).  Returns the descriptor or -1.
 */
static int
headless_open_log(struct ui *ui, char **path)
{
	int	 fd;

	xasprintf(path, "%s.engine.log", store_path(ui->store));
	fd = open(*path, O_WRONLY|O_CREAT|O_APPEND|O_NOFOLLOW|O_CLOEXEC,
	    0600);
	if (fd == -1)
		log_debug("%s: %s: %s", __func__, *path, strerror(errno));
	return (fd);
}

/*
 * Let go of the terminal: stdin from /dev/null, stdout and stderr to the
 * log (or /dev/null), and a session of our own when we can have one (a
 * process group leader cannot; the terminal is gone for it anyway).
 */
static void
headless_detach(int logfd)
{
	int	 null;

	fflush(stdout);
	fflush(stderr);
	if ((null = open("/dev/null", O_RDWR|O_CLOEXEC)) != -1) {
		dup2(null, STDIN_FILENO);
		if (logfd == -1) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		close(null);
	}
	if (logfd != -1) {
		dup2(logfd, STDOUT_FILENO);
		dup2(logfd, STDERR_FILENO);
		close(logfd);
	}
	if (setsid() == -1)
		log_debug("%s: setsid: %s", __func__, strerror(errno));
}

/*
 * Signals once headless: hang-ups are ignored (there is no terminal left
 * to lose); SIGTERM and SIGINT stop it as they stop "sluice engine".
 */
static void
headless_signal(int signo, void *arg)
{
	struct headless	*h = arg;

	if (signo != SIGTERM && signo != SIGINT) {
		log_debug("%s: signal %d ignored", __func__, signo);
		return;
	}
	h->signals++;
	if (h->signals == 1)
		headless_log("signal %d: starting no new step; exiting when "
		    "the %d running ones have ended (signal again to "
		    "interrupt them)", signo, engine_nrunning(h->ui->engine));
	else
		headless_log("signal %d: interrupting the running steps",
		    signo);
	engine_shutdown(h->ui->engine, h->signals > 1);
}

/*
 * What happened while nobody watched, in the log: the events an operator
 * would have seen on the screen (a gate waiting, a workflow's end).
 */
static void
headless_event(const char *event, int64_t workflow_id, int64_t step_id,
    void *arg)
{
	(void)arg;
	if (step_id != 0)
		headless_log("%s: workflow %lld, step %lld", event,
		    (long long)workflow_id, (long long)step_id);
	else
		headless_log("%s: workflow %lld", event,
		    (long long)workflow_id);
}

/*
 * Before the loop sleeps: once no workflow runs, stop; once the engine has
 * finished, do not sleep.  Asked after poll() instead, the answer would
 * wait for the next timer (up to five seconds) although the last step
 * ended in the turn before it.
 */
static void
headless_check(void *arg)
{
	struct headless	*h = arg;
	struct engine	*e = h->ui->engine;

	if (!h->stopping && h->signals == 0 && !engine_handing_over(e) &&
	    engine_idle(e)) {
		h->stopping = 1;
		headless_log("its work has drained: no workflow is running");
		engine_shutdown(e, 0);
	}
	if (engine_finished(e))
		loop_break(h->ui->loop);
}

/*
 * Go on headless until the engine's work has drained; why says what took
 * the screen away.  The terminal is closed already; when it is still
 * there (the operator quit) one line on it says where things went.
 */
void
ui_headless(struct ui *ui, const char *why)
{
	struct headless	 h;
	struct engine	*e = ui->engine;
	char		*path = NULL;
	int		 logfd, handover = 0;
	static const int signals[] = { SIGTERM, SIGINT, SIGHUP, SIGWINCH };
	size_t		 i;

	memset(&h, 0, sizeof h);
	h.ui = ui;
	for (i = 0; i < nitems(signals); i++)
		loop_signal(ui->loop, signals[i], headless_signal, &h);
	loop_timer_stop(ui->watch);
	loop_timer_stop(ui->tick);
	logfd = headless_open_log(ui, &path);
	if (!ui->tty_gone) {
		printf("sluice: the engine goes on headless (pid %ld) with %d "
		    "running step%s and exits when its work is done; log: "
		    "%s\n", (long)getpid(), engine_nrunning(e),
		    engine_nrunning(e) == 1 ? "" : "s", path);
	}
	headless_detach(logfd);
	engine_set_headless(e);
	engine_set_observer(e, headless_event, NULL);
	headless_log("headless: %s; the engine goes on with %d running "
	    "step%s (database %s)", why, engine_nrunning(e),
	    engine_nrunning(e) == 1 ? "" : "s", store_path(ui->store));
	free(path);

	loop_resume(ui->loop);
	loop_hook_add(ui->loop, headless_check, &h);
	while (!engine_finished(e)) {
		loop_once(ui->loop, 1);
		if (!handover && engine_handing_over(e)) {
			handover = h.stopping = 1;
			headless_log("another engine asked for the database: "
			    "starting no new step; exiting when the %d "
			    "running ones have ended", engine_nrunning(e));
		}
	}
	loop_hook_del(ui->loop, headless_check, &h);
	engine_set_observer(e, NULL, NULL);
	headless_log("headless: exiting%s", handover ? "; the other engine "
	    "takes over" : "");
}
