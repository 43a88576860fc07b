/* pq_snappy.c - a snappy decompressor (the raw block format, as Parquet's
 * SNAPPY codec uses it: no framing), from google/snappy's
 * format_description.txt: the uncompressed length as a ULEB128 varint,
 * then elements, each a tag byte whose low two bits say its kind:
 *   00 literal: length - 1 in the upper six bits, or (60..63) in the 1..4
 *      little-endian bytes after the tag; then the bytes;
 *   01 copy, length 4..11 ((tag >> 2) & 7) + 4, offset 11 bits: the tag's
 *      upper three bits, then one byte;
 *   10 copy, length 1..64 (tag >> 2) + 1, offset 2 bytes little endian;
 *   11 copy, length as 10, offset 4 bytes little endian.
 * A copy repeats the bytes from offset back (it may overlap what it
 * writes); an offset of 0 or before the start is invalid. */
#include <string.h>
#include "pq_rint.h"

int64_t pq_snappy_len(const uint8_t *p, size_t len)
{
	uint64_t v = 0;
	for (size_t i = 0; i < len && i < 5; i++) {
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80))
			return v > UINT32_MAX ? -1 : (int64_t)v;
	}
	return -1;
}

int pq_snappy_dec(const uint8_t *p, size_t len, uint8_t *out, size_t outlen, const char **why)
{
	int64_t n = pq_snappy_len(p, len);
	if (n < 0 || (uint64_t)n != outlen) {
		*why = n < 0 ? "a bad snappy length" : "the snappy length differs from the page's uncompressed size";
		return -1;
	}
	size_t at = 0, o = 0;
	while (p[at++] & 0x80)
		;
	while (at < len) {
		uint8_t tag = p[at++];
		size_t l, off = 0;
		if ((tag & 3) == 0) {
			l = tag >> 2;
			if (l >= 60) {
				size_t nb = l - 59;
				if (nb > len - at)
					goto short_in;
				l = 0;
				for (size_t k = 0; k < nb; k++)
					l |= (size_t)p[at + k] << (8 * k);
				at += nb;
			}
			l++;
			if (l > len - at)
				goto short_in;
			if (l > outlen - o)
				goto long_out;
			memcpy(out + o, p + at, l);
			at += l;
			o += l;
			continue;
		}
		if ((tag & 3) == 1) {
			if (at >= len)
				goto short_in;
			l = ((tag >> 2) & 7) + 4;
			off = (size_t)(tag >> 5) << 8 | p[at++];
		} else {
			size_t nb = (tag & 3) == 2 ? 2 : 4;
			if (nb > len - at)
				goto short_in;
			l = (size_t)(tag >> 2) + 1;
			for (size_t k = 0; k < nb; k++)
				off |= (size_t)p[at + k] << (8 * k);
			at += nb;
		}
		if (off == 0 || off > o) {
			*why = "a snappy copy from before the start";
			return -1;
		}
		if (l > outlen - o)
			goto long_out;
		for (size_t k = 0; k < l; k++, o++)
			out[o] = out[o - off];
	}
	if (o != outlen) {
		*why = "the snappy data ends before its length";
		return -1;
	}
	return 0;
short_in:
	*why = "the snappy data ends inside an element";
	return -1;
long_out:
	*why = "the snappy data is longer than its length";
	return -1;
}
