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
 * secret-input.c: the values of a run's secret inputs ("secret": true,
 * SPEC §13), kept outside the shared database for the life of the run:
 * DB.secrets/ID.json, mode 0600 in a 0700 directory of the engine's
 * account.  The database holds "***" in their place.  The file goes once
 * the run's end has committed (not before: a crash in between resumes a
 * run that still needs them), and an engine that starts removes the files
 * of runs that ended while none ran (or that were never recorded: a crash
 * between the file and the commit).
 */

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static char	*secret_input_dir(const struct engine *);
static char	*secret_input_path(const struct engine *, int64_t);
static int	 secret_input_dir_make(const char *, char **);
static void	 secret_input_unlink(const char *);

/* DB.secrets, beside the database. */
static char *
secret_input_dir(const struct engine *e)
{
	char	*dir;

	xasprintf(&dir, "%s.secrets", e->dbpath);
	return (dir);
}

/* DB.secrets/ID.json. */
static char *
secret_input_path(const struct engine *e, int64_t id)
{
	char	*path;

	xasprintf(&path, "%s.secrets/%lld.json", e->dbpath, (long long)id);
	return (path);
}

/* Make the directory, or make sure it is ours alone. */
static int
secret_input_dir_make(const char *dir, char **cause)
{
	struct stat	sb;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		xasprintf(cause, "%s: %s", dir, strerror(errno));
		return (-1);
	}
	if (lstat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode) ||
	    sb.st_uid != geteuid()) {
		xasprintf(cause, "%s: not a directory of this account", dir);
		return (-1);
	}
	if ((sb.st_mode & 077) != 0 && chmod(dir, 0700) != 0) {
		xasprintf(cause, "%s: %s", dir, strerror(errno));
		return (-1);
	}
	return (0);
}

/* Remove a file, its bytes overwritten first (a later read finds none). */
static void
secret_input_unlink(const char *path)
{
	struct stat	 sb;
	char		 zero[512];
	off_t		 left;
	size_t		 n;
	int		 fd;

	if ((fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)) != -1) {
		memset(zero, 0, sizeof zero);
		if (fstat(fd, &sb) == 0) {
			for (left = sb.st_size; left > 0; left -= (off_t)n) {
				n = left > (off_t)sizeof zero ? sizeof zero :
				    (size_t)left;
				if (write(fd, zero, n) != (ssize_t)n)
					break;
			}
			(void)fsync(fd);
		}
		close(fd);
	}
	if (unlink(path) != 0 && errno != ENOENT)
		log_debug("%s: %s: %s", __func__, path, strerror(errno));
}

/* Keep a new run's secret inputs; 0, or -1 and why. */
int
engine_secret_input_save(struct engine *e, int64_t id, const cJSON *values,
    char **cause)
{
	char	*dir, *path, *text;
	size_t	 len;
	int	 fd, rc = -1;

	dir = secret_input_dir(e);
	path = secret_input_path(e, id);
	if (secret_input_dir_make(dir, cause) != 0)
		goto out;
	(void)unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		goto out;
	}
	text = json_print(values);
	len = strlen(text);
	if (fchmod(fd, 0600) != 0 || write(fd, text, len) != (ssize_t)len ||
	    fsync(fd) != 0) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		close(fd);
		secret_input_unlink(path);
	} else {
		close(fd);
		rc = 0;
	}
	explicit_bzero(text, len);
	free(text);
out:
	free(path);
	free(dir);
	return (rc);
}

/*
 * A run's secret inputs into memory (and its mask), when it has any;
 * with none, or the file gone (the run ended before), nothing.
 */
void
engine_secret_input_load(struct engine *e, struct ewf *wf)
{
	const cJSON	*c;
	char		*path, *text, *cause = NULL, *s;
	size_t		 len;
	cJSON		*v;

	path = secret_input_path(e, wf->id);
	if (access(path, F_OK) != 0) {
		free(path);
		return;
	}
	text = file_read(path, SLUICE_MAX_INPUT, &len, &cause);
	free(path);
	if (text == NULL) {
		log_debug("%s: %s", __func__, cause);
		free(cause);
		return;
	}
	v = cJSON_ParseWithLength(text, len);
	explicit_bzero(text, len);
	free(text);
	if (!cJSON_IsObject(v)) {
		cJSON_Delete(v);
		return;
	}
	for (c = v->child; c != NULL; c = c->next) {
		if (cJSON_IsString(c))
			mask_add(wf->mask, c->valuestring,
			    strlen(c->valuestring));
		else {
			s = json_print(c);
			mask_add(wf->mask, s, strlen(s));
			free(s);
		}
	}
	engine_secret_wipe(wf->secret_input);
	wf->secret_input = v;
}

/*
 * A run ended: its secret inputs go from memory now, and from the disk
 * once the end is committed (engine_secret_input_committed).
 */
void
engine_secret_input_drop(struct engine *e, struct ewf *wf)
{
	engine_secret_wipe(wf->secret_input);
	wf->secret_input = NULL;
	e->secret_gone = xreallocarray(e->secret_gone, e->nsecret_gone + 1,
	    sizeof *e->secret_gone);
	e->secret_gone[e->nsecret_gone++] = wf->id;
#ifdef SLUICE_TEST_CLOCK
	engine_test_hold("ended");	/* the end written, not committed */
#endif
	if (!e->in_txn)
		engine_secret_input_committed(e);
}

/* The turn that ended those runs has committed: remove their files. */
void
engine_secret_input_committed(struct engine *e)
{
	size_t	 i;

	for (i = 0; i < e->nsecret_gone; i++)
		engine_secret_input_forget(e, e->secret_gone[i]);
	free(e->secret_gone);
	e->secret_gone = NULL;
	e->nsecret_gone = 0;
}

/*
 * A run that never began (scheduled or queued) was cancelled: its file
 * goes now, not at the next engine start.
 */
void
engine_secret_input_forget(struct engine *e, int64_t id)
{
	char	*path;

	path = secret_input_path(e, id);
	if (access(path, F_OK) == 0)
		secret_input_unlink(path);
	free(path);
}

/*
 * At start: remove the files of runs that have ended or do not exist,
 * which an engine killed before it could remove them left behind.
 */
void
engine_secret_input_sweep(struct engine *e)
{
	struct store_workflow	*w;
	struct dirent		*de;
	DIR			*d;
	char			*dir, *path, *end, *cause = NULL;
	long long		 id;
	int			 gone, rc;

	dir = secret_input_dir(e);
	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		id = strtoll(de->d_name, &end, 10);
		gone = 1;
		if (id > 0 && strcmp(end, ".json") == 0) {
			rc = store_workflow_get(e->store, id, &w, &cause);
			if (rc == 0) {
				gone = w->status != RUN_RUNNING &&
				    w->status != RUN_SCHEDULED &&
				    w->status != RUN_QUEUED;
				store_workflow_free(w);
			} else if (rc != STORE_NOTFOUND)
				gone = 0;	/* busy: look next time */
		}
		free(cause);
		cause = NULL;
		if (!gone)
			continue;
		xasprintf(&path, "%s/%s", dir, de->d_name);
		secret_input_unlink(path);
		free(path);
	}
	closedir(d);
	free(dir);
}
