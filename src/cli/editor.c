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
 * editor.c: "sluice template edit", like crontab -e.  The document goes to
 * a private temporary file under a header of '#' lines, the user's $VISUAL
 * or $EDITOR (else vi) runs on it, and the text that comes back is checked
 * and saved.  On errors the editor reopens with them listed in the header;
 * an empty or unchanged file cancels; a save that lost a race with another
 * editor is detected by version and offered for re-editing.  The CLI may
 * block here (the console has its own, non-blocking editor path).
 */

#include <sys/types.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

/* What the editor is being opened for; decides what "unchanged" means. */
enum editor_round {
	EDITOR_FIRST,		/* the saved document, or the skeleton */
	EDITOR_ERRORS,		/* the user's text under its errors */
	EDITOR_CONFLICT		/* the user's text, to replace a newer one */
};

struct editor {
	struct client		*ctx;
	const struct flow_tools	*tools;
	const char		*name;
	char			*path;		/* the temporary file */
	int64_t			 expect;	/* the version to replace */
	char			*presented;	/* shown this round */
	enum editor_round	 round;
	struct buf		 notes;		/* extra header lines */
};

/* The lines of the header that are always there. */
#define EDITOR_HEADER_LINES	3

/* Shell metacharacters: an editor string with any of them goes to sh -c. */
#define EDITOR_SHELL_CHARS	" \t\n|&;<>()$`\\\"'*?[]#~=%{}!"

/* What a new template starts from. */
static const char editor_skeleton[] =
    "{\n"
    "  \"description\": \"What this template is for\",\n"
    "  \"inputs\": {\n"
    "    \"target\": {\n"
    "      \"description\": \"What a run works on\",\n"
    "      \"required\": true\n"
    "    }\n"
    "  },\n"
    "  \"flow\": {\n"
    "    \"start\": {\n"
    "      \"name\": \"approve\",\n"
    "      \"description\": \"Someone approves before anything runs\",\n"
    "      \"gate\": {\n"
    "        \"message\": \"Go ahead with {{input.target}}?\"\n"
    "      },\n"
    "      \"next\": \"say\"\n"
    "    },\n"
    "    \"say\": {\n"
    "      \"tool\": \"echo\",\n"
    "      \"args\": {\n"
    "        \"target\": \"{{input.target}}\"\n"
    "      },\n"
    "      \"done\": true\n"
    "    }\n"
    "  }\n"
    "}\n";

static int	editor_start(struct editor *);
static int	editor_tempfile(struct editor *);
static int	editor_write(struct editor *, const char *);
static int	editor_spawn(const char *);
static int	editor_wait(pid_t);
static int	editor_round(struct editor *);
static int	editor_consider(struct editor *, const char *);
static int	editor_errors(struct editor *, const char *,
		    struct flow_diags *);
static int	editor_save(struct editor *, const char *,
		    const struct flow_doc *);
static int	editor_conflict(struct editor *, const char *);
static int	editor_ask(const char *, ...) printflike(1, 2);
static int	editor_keep(struct editor *, const char *);
static void	editor_note(struct buf *, const char *);
static const char *editor_strip(const char *);
static int	editor_blank(const char *);

/*
 * Edit template name: loop editor rounds until the document is saved, the
 * user cancels, or it cannot go on.  Returns the exit code.
 */
int
cli_template_edit(struct client *ctx, const char *name)
{
	struct editor	 ed;
	int		 rc;

	memset(&ed, 0, sizeof ed);
	ed.ctx = ctx;
	ed.name = name;
	buf_init(&ed.notes);
	if ((rc = client_store(ctx, CLIENT_STORE_ANY|CLIENT_STORE_CREATE)) != 0)
		return (rc);
	/* Refused before editing; the engine checks again on save. */
	if (!store_is_readonly(ctx->store) &&
	    (rc = cli_authorize(ctx, "template save", name)) != 0)
		return (rc);
	if ((rc = client_tools(ctx, &ed.tools)) != 0)
		return (rc);
	if ((rc = editor_start(&ed)) != 0)
		goto out;
	if ((rc = editor_tempfile(&ed)) != 0)
		goto out;
	while ((rc = editor_round(&ed)) == -1)
		/* again */;
out:
	free(ed.path);
	free(ed.presented);
	buf_free(&ed.notes);
	return (rc);
}

/* Load the current document (or the skeleton) and the version to replace. */
static int
editor_start(struct editor *ed)
{
	struct store_template	*t;
	char			*cause;
	size_t			 len;
	int			 rc;

	rc = store_template_get(ed->ctx->store, ed->name, 0, &t, &cause);
	if (rc == STORE_NOTFOUND) {
		free(cause);
		ed->presented = xstrdup(editor_skeleton);
		ed->expect = 0;
		buf_puts(&ed->notes, "# This is a new template: a skeleton to "
		    "start from (see sluice-flow(5)).\n");
		return (0);
	}
	if (rc != 0)
		return (client_store_fail(ed->ctx, rc, cause));
	len = strlen(t->document);
	if (len > 0 && t->document[len - 1] == '\n')
		ed->presented = xstrdup(t->document);
	else
		xasprintf(&ed->presented, "%s\n", t->document);
	ed->expect = t->version;
	store_template_free(t);
	return (0);
}

/* Make the private temporary file, sluice-NAME-XXXXXX.json, mode 0600. */
static int
editor_tempfile(struct editor *ed)
{
	const char	*dir;
	int		 fd;

	dir = getenv("TMPDIR");
	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	xasprintf(&ed->path, "%s/sluice-%s-XXXXXX.json", dir, ed->name);
	if ((fd = mkstemps(ed->path, 5)) == -1) {
		cli_error("%s: %s", ed->path, strerror(errno));
		return (EXIT_FAILED);
	}
	if (fchmod(fd, 0600) == -1) {
		cli_error("%s: %s", ed->path, strerror(errno));
		close(fd);
		unlink(ed->path);
		return (EXIT_FAILED);
	}
	close(fd);
	return (0);
}

/* Write the header (when doc is presented) and doc to the temporary file. */
static int
editor_write(struct editor *ed, const char *doc)
{
	struct buf	 b;
	int		 fd, rc = 0;

	buf_init(&b);
	buf_add(&b, "", 0);
	if (doc == ed->presented) {
		if (ed->expect > 0)
			buf_printf(&b, "# Editing template %s (version %lld) "
			    "in DB %s\n", ed->name, (long long)ed->expect,
			    store_path(ed->ctx->store));
		else
			buf_printf(&b, "# Editing template %s (new) in DB %s\n",
			    ed->name, store_path(ed->ctx->store));
		buf_puts(&b, "# Lines starting with # at the top are "
		    "ignored.\n# Save an empty file or quit without changes "
		    "to cancel.\n");
		if (ed->notes.len > 0)
			buf_puts(&b, ed->notes.data);
	}
	buf_puts(&b, doc);
	fd = open(ed->path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd == -1 || file_write_all(fd, b.data, b.len) != 0) {
		cli_error("%s: %s", ed->path, strerror(errno));
		rc = -1;
	}
	if (fd != -1 && close(fd) == -1 && rc == 0) {
		cli_error("%s: %s", ed->path, strerror(errno));
		rc = -1;
	}
	buf_free(&b);
	return (rc);
}

/* One round: present, edit, read back and decide; -1 means go round again. */
static int
editor_round(struct editor *ed)
{
	char	*text, *cause;
	size_t	 len;
	int	 rc;

	if (editor_write(ed, ed->presented) != 0)
		return (EXIT_FAILED);
	if ((rc = editor_spawn(ed->path)) != 0) {
		if (ed->round == EDITOR_FIRST)
			unlink(ed->path);
		else
			cli_error("your edit is kept in %s", ed->path);
		return (rc);
	}
	text = file_read(ed->path, 2 * SLUICE_MAX_DOCUMENT, &len, &cause);
	if (text == NULL) {
		cli_error("%s", cause);
		free(cause);
		return (EXIT_FAILED);
	}
	if (strlen(text) != len) {
		cli_error("%s: contains a NUL byte; nothing saved", ed->path);
		free(text);
		return (EXIT_FAILED);
	}
	rc = editor_consider(ed, editor_strip(text));
	free(text);
	return (rc);
}

/* Decide what to do with the document the user left in the file. */
static int
editor_consider(struct editor *ed, const char *doc)
{
	struct flow_diags	*diags;
	struct flow_doc		*fd;
	size_t			 len = strlen(doc);
	int			 rc;

	if (editor_blank(doc)) {
		cli_error("empty file; nothing saved");
		unlink(ed->path);
		return (EXIT_OK);
	}
	if (strcmp(doc, ed->presented) == 0) {
		if (ed->round == EDITOR_FIRST) {
			cli_error("no changes; nothing saved");
			unlink(ed->path);
			return (EXIT_OK);
		}
		if (ed->round == EDITOR_ERRORS) {
			cli_error("template %s still has errors; nothing "
			    "saved", ed->name);
			return (editor_keep(ed, doc));
		}
	}
	if (len > SLUICE_MAX_DOCUMENT) {
		cli_error("document is larger than the limit of %d KiB; "
		    "nothing saved", SLUICE_MAX_DOCUMENT / 1024);
		return (editor_keep(ed, doc));
	}
	fd = client_doc_parse(ed->ctx, doc, len, ed->tools, ed->name, &diags);
	if (fd == NULL)
		return (editor_errors(ed, doc, diags));
	client_diags_print(ed->ctx, diags, ed->name);
	flow_diags_free(diags);
	rc = editor_save(ed, doc, fd);
	flow_doc_free(fd);
	return (rc);
}

/*
 * The document has errors: list them in the header (line numbers counted
 * from the top of the file as the user sees it) and go round again.
 */
static int
editor_errors(struct editor *ed, const char *doc, struct flow_diags *diags)
{
	struct flow_diag	*d, copy;
	char			*s;
	int			 n = 0, skip;

	TAILQ_FOREACH(d, diags, entry)
		n++;
	/* Three fixed lines, "# Errors:", then one line per diagnostic. */
	skip = EDITOR_HEADER_LINES + 1 + n;
	buf_reset(&ed->notes);
	buf_add(&ed->notes, "", 0);
	buf_puts(&ed->notes, "# Errors:\n");
	TAILQ_FOREACH(d, diags, entry) {
		copy = *d;
		if (copy.line > 0)
			copy.line += skip;
		s = flow_diag_format(&copy, ed->name);
		editor_note(&ed->notes, s);
		free(s);
	}
	flow_diags_free(diags);
	free(ed->presented);
	ed->presented = xstrdup(doc);
	ed->round = EDITOR_ERRORS;
	return (-1);
}

/* Append one "#   TEXT" header line, keeping it one line. */
static void
editor_note(struct buf *b, const char *text)
{
	const char	*p;

	buf_puts(b, "#   ");
	for (p = text; *p != '\0'; p++)
		buf_putc(b, *p == '\n' || *p == '\r' ? ' ' : *p);
	buf_putc(b, '\n');
}

/* Save the checked document over the expected version. */
static int
editor_save(struct editor *ed, const char *doc, const struct flow_doc *fd)
{
	struct engine_reply	 r;
	char			*loop;
	int			 rc;

	if ((loop = client_subflow_loop(ed->ctx->store, ed->name, fd)) != NULL) {
		cli_error("template %s would call itself: %s", ed->name, loop);
		free(loop);
		editor_keep(ed, doc);
		return (EXIT_USAGE);
	}
	/* Checked here; the engine checks again and saves. */
	rc = client_template_request(ed->ctx, ed->name, doc, ed->expect, &r);
	if (rc == 0 && r.conflict) {
		engine_reply_clear(&r);
		return (editor_conflict(ed, doc));
	}
	if (rc == 0 && r.code != 0) {
		cli_error("%s", r.message != NULL ? r.message : "refused");
		rc = r.code;
	}
	if (rc != 0) {
		engine_reply_clear(&r);
		editor_keep(ed, doc);
		return (rc);
	}
	cli_printf("saved template %s version %lld\n", ed->name,
	    (long long)r.version);
	engine_reply_clear(&r);
	unlink(ed->path);
	return (EXIT_OK);
}

/*
 * Someone saved the template since this edit began.  Say who; at a terminal
 * offer to re-edit on top of their version, else keep the user's text.
 */
static int
editor_conflict(struct editor *ed, const char *doc)
{
	struct store_template	*t;
	char			*cause;
	int			 rc;

	rc = store_template_get(ed->ctx->store, ed->name, 0, &t, &cause);
	if (rc != 0) {
		if (rc == STORE_NOTFOUND)
			cli_error("template %s was removed meanwhile",
			    ed->name);
		else
			cli_error("%s", cause);
		free(cause);
		return (editor_keep(ed, doc));
	}
	cli_error("template %s was changed meanwhile (now version %lld by %s)",
	    ed->name, (long long)t->version,
	    t->updated_by != NULL ? t->updated_by : "?");
	if (!editor_ask("Re-edit your version on top of version %lld? [y/N] ",
	    (long long)t->version)) {
		store_template_free(t);
		return (editor_keep(ed, doc));
	}
	buf_reset(&ed->notes);
	buf_printf(&ed->notes, "# Version %lld was saved by %s while you "
	    "edited. Below is your text: saving it,\n# even unchanged, "
	    "replaces version %lld.\n", (long long)t->version,
	    t->updated_by != NULL ? t->updated_by : "?",
	    (long long)t->version);
	ed->expect = t->version;
	store_template_free(t);
	free(ed->presented);
	ed->presented = xstrdup(doc);
	ed->round = EDITOR_CONFLICT;
	return (-1);
}

/* Ask a yes/no question when stdin and stderr are terminals; 1 for yes. */
static int
editor_ask(const char *fmt, ...)
{
	va_list	 ap;
	char	 line[64];

	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO))
		return (0);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	if (fgets(line, sizeof line, stdin) == NULL)
		return (0);
	return (line[0] == 'y' || line[0] == 'Y');
}

/* Leave the user's text (without the header) in the file; exit code 1. */
static int
editor_keep(struct editor *ed, const char *doc)
{
	if (editor_write(ed, doc) == 0)
		cli_error("your edit is kept in %s", ed->path);
	return (EXIT_FAILED);
}

/*
 * Run the editor on path and wait for it, ignoring SIGINT and SIGQUIT
 * meanwhile (they are the editor's).  The path reaches a shell only as a
 * positional parameter, never inside the command string.
 */
static int
editor_spawn(const char *path)
{
	struct sigaction	 ign, oint, oquit;
	const char		*editor;
	char			*cmd = NULL;
	pid_t			 pid;
	int			 rc;

	if ((editor = getenv("VISUAL")) == NULL || *editor == '\0')
		editor = getenv("EDITOR");
	if (editor == NULL || *editor == '\0')
		editor = "vi";
	if (strpbrk(editor, EDITOR_SHELL_CHARS) != NULL)
		xasprintf(&cmd, "%s \"$1\"", editor);
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	fflush(stdout);
	fflush(stderr);
	switch (pid = fork()) {
	case -1:
		cli_error("fork: %s", strerror(errno));
		rc = EXIT_FAILED;
		break;
	case 0:
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		closefrom(STDERR_FILENO + 1);	/* not the database */
		if (cmd != NULL)
			execl("/bin/sh", "sh", "-c", cmd, "sh", path,
			    (char *)NULL);
		else
			execlp(editor, editor, path, (char *)NULL);
		fprintf(stderr, "sluice: %s: %s\n", cmd != NULL ? "/bin/sh" :
		    editor, strerror(errno));
		_exit(127);
	default:
		rc = editor_wait(pid);
		break;
	}
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	free(cmd);
	return (rc);
}

/* Wait for the editor; 0 when it exited with status 0. */
static int
editor_wait(pid_t pid)
{
	int	 status;

	while (waitpid(pid, &status, 0) == -1) {
		if (errno != EINTR) {
			cli_error("waitpid: %s", strerror(errno));
			return (EXIT_FAILED);
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return (0);
	if (WIFSIGNALED(status))
		cli_error("editor killed by signal %d; nothing saved",
		    WTERMSIG(status));
	else
		cli_error("editor exited with status %d; nothing saved",
		    WEXITSTATUS(status));
	return (EXIT_FAILED);
}

/* Skip the leading lines that start with '#'. */
static const char *
editor_strip(const char *text)
{
	const char	*p = text;

	while (*p == '#') {
		if ((p = strchr(p, '\n')) == NULL)
			return ("");
		p++;
	}
	return (p);
}

/* Is text empty or only white space? */
static int
editor_blank(const char *text)
{
	for (; *text != '\0'; text++) {
		if (!isspace((unsigned char)*text))
			return (0);
	}
	return (1);
}
