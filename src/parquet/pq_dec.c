/* pq_dec.c - the Parquet value decoders of the reader (pq_rint.h), the
 * inverse of pq_enc.c, from the format's Encodings.md:
 *   - bit packing: values LSB first, each starting at the bit after the
 *     previous one;
 *   - RLE/bit-packed hybrid: runs, each a ULEB128 header; (count << 1) and
 *     the value in ceil(width / 8) little-endian bytes for an RLE run,
 *     (groups << 1 | 1) and groups * 8 bit-packed values for a bit-packed
 *     run (the last group may hold padding past the values asked for, and
 *     a writer may end the data short of the padding);
 *   - DELTA_BINARY_PACKED: header <block size in values> <miniblocks per
 *     block> <total value count> <first value (zigzag ULEB128)>, then per
 *     block <min delta (zigzag)> <one bit-width byte per miniblock>
 *     <miniblocks>; a miniblock holds block size / miniblocks values of
 *     its width, padded; miniblocks past the last value may be absent.
 * Every read is bounds-checked: a short or invalid input returns -1. */
#include <string.h>
#include "pq_rint.h"

/* A plain and slow but exact version for widths over 56 bits. */
static uint64_t bits_wide(const uint8_t *p, size_t bit, int width)
{
	uint64_t v = 0;
	for (int i = 0; i < width; i++, bit++)
		v |= (uint64_t)((p[bit >> 3] >> (bit & 7)) & 1) << i;
	return v;
}

static inline uint64_t get_bits(const uint8_t *p, size_t bit, int width)
{
	if (width > 56)
		return bits_wide(p, bit, width);
	uint64_t v = 0;
	size_t byte = bit >> 3;
	int sh = (int)(bit & 7), nb = (width + sh + 7) / 8;
	for (int i = 0; i < nb; i++)
		v |= (uint64_t)p[byte + (size_t)i] << (8 * i);
	return (v >> sh) & ((1ull << width) - 1);
}

static int uleb(const uint8_t *p, size_t len, size_t *at, uint64_t *v)
{
	*v = 0;
	for (int s = 0; s < 64; s += 7) {
		if (*at >= len)
			return -1;
		uint8_t c = p[(*at)++];
		*v |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			return 0;
	}
	return -1;
}

ptrdiff_t pq_rle_dec(const uint8_t *p, size_t len, int width, uint32_t *out, size_t n, const char **why)
{
	if (width < 0 || width > 32) {
		*why = "a bit width over 32 in an RLE/bit-packed run";
		return -1;
	}
	size_t at = 0, i = 0;
	int vb = (width + 7) / 8;
	while (i < n) {
		uint64_t h;
		if (uleb(p, len, &at, &h) < 0) {
			*why = "the RLE/bit-packed data ends early";
			return -1;
		}
		if (h & 1) {
			uint64_t groups = h >> 1;
			if (groups > ((uint64_t)1 << 40)) {
				*why = "the RLE/bit-packed data ends early";
				return -1;
			}
			size_t cnt = (size_t)groups * 8, bytes = (size_t)groups * (size_t)width;
			if (cnt > n - i)
				cnt = n - i;
			size_t need = (cnt * (size_t)width + 7) / 8;
			if (need > len - at) {
				*why = "the RLE/bit-packed data ends early";
				return -1;
			}
			if (width == 0)
				memset(out + i, 0, cnt * sizeof(*out));
			else
				for (size_t k = 0; k < cnt; k++)
					out[i + k] = (uint32_t)get_bits(p + at, k * (size_t)width, width);
			i += cnt;
			at += bytes < len - at ? bytes : len - at;
		} else {
			uint64_t cnt = h >> 1;
			if (cnt == 0) {
				*why = "an empty RLE run";
				return -1;
			}
			if ((size_t)vb > len - at) {
				*why = "the RLE/bit-packed data ends early";
				return -1;
			}
			uint32_t v = 0;
			for (int k = 0; k < vb; k++)
				v |= (uint32_t)p[at + (size_t)k] << (8 * k);
			at += (size_t)vb;
			if (width < 32 && (v >> width)) {
				*why = "an RLE run's value is wider than its bit width";
				return -1;
			}
			if (cnt > n - i)
				cnt = n - i;
			for (size_t k = 0; k < cnt; k++)
				out[i + k] = v;
			i += (size_t)cnt;
		}
	}
	return (ptrdiff_t)at;
}

ptrdiff_t pq_delta_dec(const uint8_t *p, size_t len, bool is32, int64_t *out, size_t max, size_t *count,
		       const char **why)
{
	size_t at = 0;
	uint64_t bs, nmb, total, first;
	*why = "the DELTA_BINARY_PACKED data ends early";
	if (uleb(p, len, &at, &bs) < 0 || uleb(p, len, &at, &nmb) < 0 || uleb(p, len, &at, &total) < 0 ||
	    uleb(p, len, &at, &first) < 0)
		return -1;
	if (bs == 0 || bs % 128 || nmb == 0 || bs % nmb || (bs / nmb) % 32 || bs > (1u << 20)) {
		*why = "a bad DELTA_BINARY_PACKED block header";
		return -1;
	}
	if (total > max) {
		*why = "a DELTA_BINARY_PACKED count over the page's values";
		return -1;
	}
	*count = (size_t)total;
	if (total == 0)
		return (ptrdiff_t)at;
	uint64_t mask = is32 ? 0xffffffffull : ~0ull;
	uint64_t cur = (first >> 1) ^ -(first & 1);
	out[0] = is32 ? (int64_t)(int32_t)(uint32_t)cur : (int64_t)cur;
	size_t i = 1, per = (size_t)(bs / nmb);
	while (i < total) {
		uint64_t mzz;
		if (uleb(p, len, &at, &mzz) < 0)
			return -1;
		uint64_t mind = (mzz >> 1) ^ -(mzz & 1);
		if (nmb > len - at)
			return -1;
		const uint8_t *widths = p + at;
		at += (size_t)nmb;
		for (size_t m = 0; m < nmb && i < total; m++) {
			int w = widths[m];
			if (w > 64) {
				*why = "a DELTA_BINARY_PACKED bit width over 64";
				return -1;
			}
			size_t bytes = per * (size_t)w / 8;
			if (bytes > len - at)
				return -1;
			size_t cnt = per < total - i ? per : (size_t)(total - i);
			const uint8_t *mb = p + at;
			for (size_t k = 0; k < cnt; k++) {
				uint64_t d = w ? get_bits(mb, k * (size_t)w, w) : 0;
				cur = (cur + mind + d) & mask;
				out[i + k] = is32 ? (int64_t)(int32_t)(uint32_t)cur : (int64_t)cur;
			}
			i += cnt;
			at += bytes;
		}
	}
	return (ptrdiff_t)at;
}
