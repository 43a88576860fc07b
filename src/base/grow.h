/* grow.h - the one growable-array helper: geometric growth (doubling from
 * a small start), optional zeroing of the new part.  Every array that grows
 * with its input goes through it (no hand-written realloc loops). */
#ifndef TRACEFOLD_GROW_H
#define TRACEFOLD_GROW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Grows *arr (elements of sz bytes, *cap of them) to hold at least need;
 * the new elements are zeroed when zero.  Returns 0, or -1 when out of
 * memory or when the size overflows (*arr and *cap unchanged then). */
static inline int tf_grow_n(void **arr, size_t *cap, size_t need, size_t sz, bool zero)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 16;
	while (nc < need) {
		if (nc > SIZE_MAX / 2)
			return -1;
		nc *= 2;
	}
	if (sz && nc > SIZE_MAX / sz)
		return -1;
	void *p = realloc(*arr, nc * sz);
	if (!p)
		return -1;
	if (zero)
		memset((char *)p + *cap * sz, 0, (nc - *cap) * sz);
	*arr = p;
	*cap = nc;
	return 0;
}

/* The same for the many arrays counted in uint32_t (ids are 32-bit). */
static inline int tf_grow(void **arr, uint32_t *cap, uint32_t need, size_t sz)
{
	size_t c = *cap;
	if (need <= c)
		return 0;
	if (tf_grow_n(arr, &c, need, sz, false) < 0 || c > UINT32_MAX)
		return -1;
	*cap = (uint32_t)c;
	return 0;
}

#endif
