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
 * sha256.c: SHA-256 for the audit trail's hash chain and the seals on
 * inbox rows, from libmd (which libbsd itself links), behind the few
 * calls sluice makes.  tests/unit/test-util keeps the FIPS 180-4 vectors.
 */

#include <stdint.h>
#include <string.h>

#include "util/util.h"

/* Begin a digest. */
void
sha256_init(struct sha256 *c)
{
	SHA256Init(&c->ctx);
}

/* Add bytes to it. */
void
sha256_update(struct sha256 *c, const void *data, size_t len)
{
	SHA256Update(&c->ctx, data, len);
}

/* End it: the 32-byte digest. */
void
sha256_final(struct sha256 *c, uint8_t *out)
{
	SHA256Final(out, &c->ctx);
}

/* End it: the digest as 64 lowercase hex digits and a NUL. */
void
sha256_hex(struct sha256 *c, char *out)
{
	static const char	 digits[] = "0123456789abcdef";
	uint8_t			 d[SHA256_LEN];
	int			 i;

	sha256_final(c, d);
	for (i = 0; i < SHA256_LEN; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 0xf];
	}
	out[2 * SHA256_LEN] = '\0';
}
