/* chrome_keys.c - the Chrome reader's predicted members (chrome_int.h's
 * tf_chrome_kp, used by chrome_event.c's tf_chrome_parse_event): what the
 * last events had in each member's place, learned here.  The argument for
 * every entry is the same: the bytes it holds, met again in the same place
 * (after '{' for the first member, after a value for the others), are read
 * the same way again, so a match stands for the token-by-token reading. */
#include <string.h>
#include "chrome_int.h"

void tf_chrome_kp_init(tf_chrome *r)
{
	for (unsigned i = 0; i < KP_N; i++) {
		for (unsigned j = 0; j < KP_WAYS; j++)
			r->kp[i][j].need = 0x10000;
		r->kw[i].need = r->kc[i].need = 0x10000;
	}
	r->kp_ready = true;
}

/* A prediction of member i (tf_chrome's kp) from its bytes [s, colon]: s
 * just after the value before it (or at the '{'), colon at its key's ':'
 * (a space after it too; field dst, read as kind), or at the event's '}'
 * (kind KP_END).  Kept when they are 16 or fewer and 17 bytes are left
 * from s (as the match needs), in place of the oldest of the slot's ways.
 * Any bytes will do: the same bytes, at the same member (so in the same
 * place: after '{' or after a value), are read as the same separator, key
 * and ':' again. */
void tf_chrome_kp_learn(tf_chrome *r, size_t i, const u8 *s, const u8 *colon, const u8 *end,
			const tf_chrome_fields *f, const tf_json_span *dst, int kind)
{
	size_t n = (size_t)(colon - s) + 1;
	if (i >= KP_N || n > 16 || end - s < 17)
		return;
	tf_chrome_kp *e = &r->kp[i][r->kp_new[i]];
	r->kp_new[i] = (uint8_t)((r->kp_new[i] + 1) % KP_WAYS);
	n += kind != KP_END && n < 16 && colon[1] == ' ';
	u8 b[16] = { 0 };
	memcpy(b, s, n);
	memcpy(e->word, b, 16);
	e->need = (1u << n) - 1;
	e->len = (uint8_t)n;
	e->kind = (uint8_t)kind;
	e->off = dst ? (int16_t)((const char *)dst - (const char *)f) : -1;
}

/* Member i's bytes from s after its value (the span dst, or args' {} when
 * kind is KP_ARGS) was read: n of them up to the value's end and `term`
 * more after it that the value's reading looked at (a number's or
 * literal's next byte), 16 at most: when the last event had the same
 * bytes there (kc), they become the whole member's prediction (kw). */
void tf_chrome_kw_learn(tf_chrome *r, size_t i, const u8 *s, size_t n, size_t term, const u8 *end,
			const tf_chrome_fields *f, const tf_json_span *dst, int kind)
{
	if (end - s < 17 || dst->esc)
		return;
	tf_chrome_kp *c = &r->kc[i];
	size_t k = n + term;
	uint32_t need = (1u << k) - 1;
	if (c->need == need && tf_chrome_kp_match(c, s)) {
		r->kw[i] = *c;
		return;
	}
#ifdef __SSE2__
	__m128i keep = _mm_cmpgt_epi8(_mm_set1_epi8((char)k),
				      _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
	_mm_storeu_si128((__m128i *)(void *)c->word,
			 _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)s), keep));
#else
	u8 b[16] = { 0 };
	memcpy(b, s, k);
	memcpy(c->word, b, 16);
#endif
	c->need = need;
	c->len = (uint8_t)n;
	c->kind = (uint8_t)kind;
	c->off = (int16_t)((const char *)dst - (const char *)f);
	c->voff = (uint8_t)(dst->p - s);
	c->vlen = (uint8_t)dst->n;
	c->vtype = dst->type;
}
