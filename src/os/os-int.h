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
 * os-int.h: what the files of the os layer share and nobody else sees.
 * The loop keeps one slot for signal.c's state and one for proc.c's, and
 * frees them (through the functions below) when it is freed; a child
 * process's state is shared by proc.c, proc-child.c and proc-stdin.c.
 */

#ifndef SLUICE_OS_INT_H
#define SLUICE_OS_INT_H

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/tree.h>

#include "util/util.h"
#include "os/os.h"

struct signal_set;
struct proc_set;

/* loop.c: the per-loop slots. */
struct signal_set	*loop_get_signals(const struct loop *);
void			 loop_set_signals(struct loop *, struct signal_set *);
struct proc_set		*loop_get_procs(const struct loop *);
void			 loop_set_procs(struct loop *, struct proc_set *);

/* signal.c and proc.c: tear down a loop's state, from loop_free. */
void			 signal_set_free(struct signal_set *);
void			 proc_set_free(struct proc_set *);

/* proc.c, proc-child.c, proc-stdin.c: what a spawn's files share. */
/* One of a child's output pipes, the argument of its watcher. */
struct proc_pipe {
	struct proc	*p;
	int		 stream;	/* 1 or 2 */
	int		 fd;		/* -1 once at EOF */
	struct loop_fd	*w;
};

/* Data for the child's stdin, written as the pipe takes it. */
struct proc_stdin {
	int		 fd;		/* -1 once closed */
	struct loop_fd	*w;
	char		*data;
	size_t		 len;
	size_t		 off;
	int		 closing;	/* PROC_F_TALK: close once written */
};

struct proc {
	struct proc_set	*set;
	pid_t		 pid;
	pid_t		 pgid;
	int64_t		 start;
	int		 flags;		/* PROC_F_* */
	int		 state;		/* PROC_S_* */
	int		 status;
	int		 busy;		/* output callbacks on the stack */
	struct proc_pipe pipe[2];
	struct proc_stdin in;
	struct loop_timer *timer;	/* SIGKILL after the grace */
	int64_t		 deadline;	/* monotonic ms of the SIGKILL */
	char		**marks;	/* its processes' environment marks */
	pid_t		*seen;		/* descendants found by parent links */
	int64_t		*seen_start;	/* and their start times */
	size_t		 nseen;
	int64_t		 pipe_grace;	/* ms to read pipes after reaping */
	struct loop_timer *drain;	/* then stop reading */

	proc_output_cb	 outcb;
	proc_exit_cb	 exitcb;
	void		*arg;

	RB_ENTRY(proc)	 entry;		/* in the tree until reaped */
	LIST_ENTRY(proc) all;		/* in the list until freed */
};
RB_HEAD(proc_tree, proc);
LIST_HEAD(proc_list, proc);

/* A loop's children. */
struct proc_set {
	struct loop	*loop;
	struct proc_tree tree;		/* unreaped, by pid */
	struct proc_list all;
	int		 running;	/* unreaped and not abandoned */
	char		*buf;		/* one read buffer for all */
};

/* Descriptors made for one spawn: read ends first. */
struct proc_fds {
	int		 in[2];		/* -1 -1: /dev/null */
	int		 out[2];
	int		 err[2];
};
__dead void		 proc_child(const struct proc_spec *,
			     struct proc_fds *);
void			 proc_stdin_start(struct proc *,
			     const struct proc_spec *);
void			 proc_stdin_close(struct proc *);

#endif /* SLUICE_OS_INT_H */
