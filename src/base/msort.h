/* msort.h - a stable merge sort of uint32_t ids with a comparison that gets
 * a context pointer (C11's qsort has none, and a global would not do for
 * threads).  O(n log n) comparisons; tmp holds n ids. */
#ifndef TRACEFOLD_MSORT_H
#define TRACEFOLD_MSORT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef int (*tf_msort_cmp)(const void *ctx, uint32_t x, uint32_t y);

static inline void tf_msort_u32(uint32_t *a, uint32_t *tmp, size_t n, tf_msort_cmp cmp, const void *ctx)
{
	/* bottom-up: runs of 1, 2, 4, ... merged from a into tmp and back */
	uint32_t *src = a, *dst = tmp;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = cmp(ctx, src[j], src[i]) < 0 ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		uint32_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a && n)
		memcpy(a, src, n * sizeof(uint32_t));
}

/* Bytes a[0..na) against b[0..nb): memcmp, the shorter first on a common prefix. */
static inline int tf_bytes_cmp(const char *a, size_t na, const char *b, size_t nb)
{
	int c = memcmp(a, b, na < nb ? na : nb);
	if (c)
		return c < 0 ? -1 : 1;
	return (na > nb) - (na < nb);
}

#endif
