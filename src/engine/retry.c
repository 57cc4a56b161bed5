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
 * retry.c: how often a failed step is tried and how long the engine waits
 * before the next attempt.  The policy is the step's retry if it has one,
 * else its tool's, else the defaults (SPEC §3); the delay is pure
 * arithmetic on it, with the random draw passed in so it can be tested.
 */

#include <stdint.h>
#include <string.h>

#include "util/util.h"
#include "flow/flow.h"
#include "engine/tool.h"

static void	retry_policy_from(const struct flow_retry *,
		    struct retry_policy *);
static double	retry_power(double, int);
static int64_t	retry_exponential(const struct retry_policy *, int,
		    uint32_t);

/* Fill the policy from one retry object that is set. */
static void
retry_policy_from(const struct flow_retry *r, struct retry_policy *p)
{
	p->max_attempts = r->max_attempts;
	if (r->nbackoff > 0) {
		p->backoff = r->backoff;
		p->nbackoff = r->nbackoff;
	} else if (r->base > 0) {
		p->base = r->base;
		p->factor = r->factor;
		p->max = r->max;
		p->jitter = r->jitter;
	} else {
		/* Neither form (the parser rejects this): the default waits. */
		p->backoff = flow_default_backoff;
		p->nbackoff = FLOW_DEFAULT_NBACKOFF;
	}
}

/*
 * Work out the effective policy: the step's, else the tool's, else the
 * site's (config.json, may be NULL), else ours.
 */
void
retry_policy_of(const struct flow_step *st, const struct flow_tool *tl,
    const struct flow_retry *site, struct retry_policy *p)
{
	memset(p, 0, sizeof *p);
	if (st != NULL && st->retry.set)
		retry_policy_from(&st->retry, p);
	else if (tl != NULL && tl->retry.set)
		retry_policy_from(&tl->retry, p);
	else if (site != NULL && site->set)
		retry_policy_from(site, p);
	else {
		p->max_attempts = FLOW_DEFAULT_ATTEMPTS;
		p->backoff = flow_default_backoff;
		p->nbackoff = FLOW_DEFAULT_NBACKOFF;
	}
	if (p->max_attempts < 1)
		p->max_attempts = 1;
}

/* How many attempts in all, the first one included. */
int
retry_max_attempts(const struct retry_policy *p)
{
	return (p->max_attempts < 1 ? 1 : p->max_attempts);
}

/*
 * f to the power n by squaring, so a huge n costs a few multiplications; an
 * overflow gives infinity, which the caller clamps.
 */
static double
retry_power(double f, int n)
{
	double	r = 1;

	while (n > 0) {
		if (n & 1)
			r *= f;
		n >>= 1;
		if (n > 0)
			f *= f;
	}
	return (r);
}

/*
 * base * factor^(n-1), capped at max, then varied by up to jitter either
 * way and capped again.  Every comparison is written so that NaN and
 * infinity fall to the clamp, never to a cast.
 */
static int64_t
retry_exponential(const struct retry_policy *p, int n, uint32_t rnd)
{
	double	d, factor, jitter, u, cap;

	cap = (double)FLOW_DURATION_MAX;
	if (p->max > 0 && p->max < FLOW_DURATION_MAX)
		cap = (double)p->max;
	factor = p->factor >= 1 ? p->factor : 1;	/* NaN too */
	jitter = p->jitter > 0 ? p->jitter : 0;
	if (jitter > 1)
		jitter = 1;

	d = (double)p->base * retry_power(factor, n - 1);
	if (!(d <= cap))
		d = cap;
	u = (double)rnd / (double)UINT32_MAX;
	d *= 1 + jitter * (2 * u - 1);
	if (!(d >= 0))
		d = 0;
	if (!(d <= cap))
		d = cap;
	return ((int64_t)(d + 0.5));
}

/*
 * Milliseconds to wait after attempt n (from 1) failed, before attempt
 * n + 1.  rnd is a uniform 32-bit random number, used only for jitter.
 */
int64_t
retry_delay(const struct retry_policy *p, int n, uint32_t rnd)
{
	int64_t	d;
	size_t	i;

	if (n < 1)
		n = 1;
	if (p->backoff == NULL || p->nbackoff == 0)
		d = p->base > 0 ? retry_exponential(p, n, rnd) : 0;
	else {
		i = (size_t)n - 1;
		if (i >= p->nbackoff)
			i = p->nbackoff - 1;	/* the last wait repeats */
		d = p->backoff[i];
	}
	if (d < 0)
		d = 0;
	if (d > FLOW_DURATION_MAX)
		d = FLOW_DURATION_MAX;
	return (d);
}
