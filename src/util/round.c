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
 * round.c: a double to the nearest integer, halfway cases away from
 * zero (llround's rule), without libm.  llround was the only function
 * sluice took from libm, and loading a library costs every command's
 * start (opening it, mapping it, relocating it, and one more symbol
 * table searched on every lookup): a "sluice approve" talks to the
 * engine sooner without it.
 */

#include <stdint.h>

#include "util/util.h"

/*
 * x rounded to the nearest integer, halfway cases away from zero, for
 * |x| < 2^63.  The cast cuts toward zero, and x minus its integer part
 * is exact in a double, so the comparison with one half decides the
 * way exactly as llround does (x + 0.5 would not: it rounds up the
 * largest double below one half).
 */
int64_t
round_int64(double x)
{
	int64_t	 t = (int64_t)x;
	double	 f = x - (double)t;

	if (f >= 0.5)
		return (t + 1);
	if (f <= -0.5)
		return (t - 1);
	return (t);
}
