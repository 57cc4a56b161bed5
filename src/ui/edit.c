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
 * edit.c: "e" on a template.  The console hands the terminal to a child
 * "sluice template edit NAME" (the crontab -e loop of SPEC §8: header,
 * errors listed and the editor reopened, empty or unchanged cancels, a
 * concurrent save offered for re-editing) and waits for it in the loop, so
 * the engine runs on while the editor is open.  Its own stdin watcher is
 * off meanwhile (the keys are the editor's) and SIGINT is the editor's.
 * When the child fails, its last words stay on the terminal until Enter.
 */

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/wait.h>

#include "ui/ui-int.h"
#include "ui/curses-lib.h"

extern char	**environ;

struct edit {
	struct ui	*ui;
	char		*name;
	int64_t		 version;	/* before the edit, 0 new */
};

static void	 edit_exit(struct proc *, int, void *);
static int64_t	 edit_version(struct ui *, const char *);

/* A template's current version, 0 when there is none. */
static int64_t
edit_version(struct ui *ui, const char *name)
{
	struct store_template	*t;
	char			*cause = NULL;
	int64_t			 v;

	if (store_template_get(ui->store, name, 0, &t, &cause) != 0) {
		free(cause);
		return (0);
	}
	v = t->version;
	store_template_free(t);
	return (v);
}

/* Open the editor on a template: suspend curses, start the child. */
void
ui_edit_open(struct ui *ui, const char *name)
{
	struct proc_spec	 spec;
	struct edit		*ed;
	char			 self[PATH_MAX];
	char			*argv[10], *cause = NULL;
	ssize_t			 len;
	int			 n = 0;

	/* Read-only: "template edit" saves through the engine's socket. */
	if (ui->readonly && !ui_attach_ready(ui)) {
		ui_screen_message(ui, 1, "the database is read-only to you and "
		    "no engine answers: start its engine (systemctl start "
		    "sluice-engine)");
		return;
	}
	if ((len = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0) {
		ui_screen_message(ui, 1, "cannot find the sluice program: %s",
		    strerror(errno));
		return;
	}
	self[len] = '\0';
	argv[n++] = self;
	argv[n++] = (char *)"--db";
	argv[n++] = (char *)store_path(ui->store);
	if (ui->cfg->tools_arg != NULL) {
		argv[n++] = (char *)"--tools";
		argv[n++] = (char *)ui->cfg->tools_arg;
	}
	argv[n++] = (char *)"template";
	argv[n++] = (char *)"edit";
	argv[n++] = (char *)name;
	argv[n] = NULL;
	memset(&spec, 0, sizeof spec);
	spec.argv = argv;
	spec.envp = environ;
	spec.flags = PROC_F_INHERIT | PROC_F_NOPGRP;
	ed = xcalloc(1, sizeof *ed);
	ed->ui = ui;
	ed->name = xstrdup(name);
	ed->version = edit_version(ui, name);
	ui_term_suspend(ui);
	loop_fd_events(ui->tty, 0);
	ui->editing = 1;
	if (proc_spawn(ui->loop, &spec, NULL, edit_exit, ed, &cause) == NULL) {
		ui->editing = 0;
		loop_fd_events(ui->tty, POLLIN);
		ui_term_resume(ui);
		ui_screen_message(ui, 1, "cannot start the editor: %s", cause);
		free(cause);
		free(ed->name);
		free(ed);
	}
}

/*
 * The child ended: say what came of it.  A failure leaves the terminal as
 * the child left it (its message on screen) until Enter is pressed.
 */
static void
edit_exit(struct proc *p, int status, void *arg)
{
	struct edit	*ed = arg;
	struct ui	*ui = ed->ui;
	int64_t		 now;

	(void)p;
	ui->editing = 0;
	if (ui->tty == NULL) {
		/* The terminal went away under the editor: no screen. */
		free(ed->name);
		free(ed);
		return;
	}
	now = edit_version(ui, ed->name);
	if (now != ed->version)
		ui_screen_message(ui, 0, "sluice template edit %s: saved "
		    "version %lld", ed->name, (long long)now);
	else
		ui_screen_message(ui, 0, "sluice template edit %s: nothing "
		    "saved", ed->name);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		loop_fd_events(ui->tty, POLLIN);
		ui_term_resume(ui);
	} else {
		fputs("\r\nsluice: press Enter to return to the console\r\n",
		    stderr);
		ui->wait_enter = 1;
		loop_fd_events(ui->tty, POLLIN);
	}
	free(ed->name);
	free(ed);
}
