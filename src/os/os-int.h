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
 * frees them (through the functions below) when it is freed.
 */

#ifndef SLUICE_OS_INT_H
#define SLUICE_OS_INT_H

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

#endif /* SLUICE_OS_INT_H */
