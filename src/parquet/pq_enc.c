/* pq_enc.c - the Parquet value encodings beyond PLAIN's fixed-width values
 * (pq_int.h), from the format's Encodings.md:
 *   - bit packing: values LSB first, each starting at the bit after the
 *     previous one (PLAIN booleans, the hybrid's bit-packed runs,
 *     DELTA_BINARY_PACKED miniblocks);
 *   - RLE/bit-packed hybrid: runs, each a ULEB128 header; (count << 1) and
 *     the value in ceil(width / 8) little-endian bytes for an RLE run,
 *     (groups << 1 | 1) and groups * 8 bit-packed values for a bit-packed
 *     run;
 *   - DELTA_BINARY_PACKED: header <block size> <miniblocks per block>
 *     <value count> <first value (zigzag)>, then per block <min delta
 *     (zigzag)> <one bit-width byte per miniblock> <miniblocks>, each
 *     miniblock (value - previous - min delta) bit-packed, padded to its
 *     full 32 values; miniblocks past the last value have width 0 and no
 *     bytes. */
#include <string.h>
#include "pq_int.h"

int pq_bits(uint64_t v)
{
	int n = 0;
	while (v) {
		n++;
		v >>= 1;
	}
	return n;
}

void pq_bits_put(pq_bitw *w, uint64_t v, int width)
{
	while (width > 0) {
		int k = width > 32 ? 32 : width;
		w->acc |= (v & ((1ull << k) - 1)) << w->nacc;
		w->nacc += k;
		v = k == 32 ? v >> 32 : 0;
		width -= k;
		while (w->nacc >= 8) {
			tf_buf_byte(w->b, (unsigned)(w->acc & 0xff));
			w->acc >>= 8;
			w->nacc -= 8;
		}
	}
}

void pq_bits_flush(pq_bitw *w)
{
	if (w->nacc > 0)
		tf_buf_byte(w->b, (unsigned)(w->acc & 0xff));
	w->acc = 0;
	w->nacc = 0;
}

static uint32_t get_u(const void *v, int vsize, size_t i)
{
	if (vsize == 1)
		return ((const uint8_t *)v)[i];
	return ((const uint32_t *)v)[i];
}

/* Equal values from i on, counting at most cap. */
static size_t run_at(const void *v, int vsize, size_t n, size_t i, size_t cap)
{
	uint32_t x = get_u(v, vsize, i);
	size_t r = 1;
	while (i + r < n && r < cap && get_u(v, vsize, i + r) == x)
		r++;
	return r;
}

void pq_rle_hybrid(tf_buf *b, const void *v, int vsize, size_t n, int width)
{
	size_t i = 0;
	int vbytes = (width + 7) / 8;
	while (i < n) {
		size_t r = run_at(v, vsize, n, i, SIZE_MAX);
		if (r >= 8) {
			uint32_t x = get_u(v, vsize, i);
			tf_buf_varint(b, (uint64_t)r << 1);
			for (int k = 0; k < vbytes; k++)
				tf_buf_byte(b, (x >> (8 * k)) & 0xff);
			i += r;
			continue;
		}
		/* groups of 8 until the next group starts a run of 8 */
		size_t j = i;
		do
			j += 8;
		while (j < n && run_at(v, vsize, n, j, 8) < 8);
		tf_buf_varint(b, (uint64_t)((j - i) / 8) << 1 | 1);
		pq_bitw w = { b, 0, 0 };
		for (size_t k = i; k < j; k++)
			pq_bits_put(&w, k < n ? get_u(v, vsize, k) : 0, width);
		pq_bits_flush(&w);
		i = j;
	}
}

#define DELTA_BLOCK 128
#define DELTA_MINI 4
#define DELTA_MINI_VALUES (DELTA_BLOCK / DELTA_MINI)

static int64_t get_s(const void *v, int vsize, size_t i)
{
	if (vsize == 4) {
		int32_t x;
		memcpy(&x, (const char *)v + 4 * i, 4);
		return x;
	}
	int64_t x;
	memcpy(&x, (const char *)v + 8 * i, 8);
	return x;
}

/* v[i] - v[i - 1], wrapping at the column's width */
static int64_t delta_at(const void *v, int vsize, size_t i)
{
	int64_t a = get_s(v, vsize, i), p = get_s(v, vsize, i - 1);
	if (vsize == 4)
		return (int32_t)((uint32_t)a - (uint32_t)p);
	return (int64_t)((uint64_t)a - (uint64_t)p);
}

void pq_delta(tf_buf *b, const void *v, int vsize, size_t n)
{
	tf_buf_varint(b, DELTA_BLOCK);
	tf_buf_varint(b, DELTA_MINI);
	tf_buf_varint(b, n);
	tf_buf_varint(b, tf_zigzag(n ? get_s(v, vsize, 0) : 0));
	int64_t d[DELTA_BLOCK];
	for (size_t i = 1; i < n; i += DELTA_BLOCK) {
		size_t m = n - i < DELTA_BLOCK ? n - i : DELTA_BLOCK;
		int64_t min = INT64_MAX;
		for (size_t k = 0; k < m; k++) {
			d[k] = delta_at(v, vsize, i + k);
			if (d[k] < min)
				min = d[k];
		}
		tf_buf_varint(b, tf_zigzag(min));
		/* within an INT32 column d - min < 2^32: widths stay <= 32 */
		int width[DELTA_MINI];
		for (size_t mb = 0; mb < DELTA_MINI; mb++) {
			uint64_t max = 0;
			for (size_t k = mb * DELTA_MINI_VALUES; k < m && k < (mb + 1) * DELTA_MINI_VALUES; k++)
				if ((uint64_t)d[k] - (uint64_t)min > max)
					max = (uint64_t)d[k] - (uint64_t)min;
			width[mb] = pq_bits(max);
			tf_buf_byte(b, (unsigned)width[mb]);
		}
		for (size_t mb = 0; mb < DELTA_MINI && mb * DELTA_MINI_VALUES < m; mb++) {
			pq_bitw w = { b, 0, 0 };
			for (size_t k = mb * DELTA_MINI_VALUES; k < (mb + 1) * DELTA_MINI_VALUES; k++)
				pq_bits_put(&w, k < m ? (uint64_t)d[k] - (uint64_t)min : 0, width[mb]);
			pq_bits_flush(&w);
		}
	}
}
