/* hmap.h - open-addressing map from a 64-bit key to a 32-bit value, used
 * for the aggregate's node, label-set and sample indexes.  Header-only;
 * keys are hashed with a 64-bit mixer, linear probing, load <= 1/2. */
#ifndef TRACEFOLD_HMAP_H
#define TRACEFOLD_HMAP_H

#include <stdint.h>
#include <stdlib.h>
#include "grow.h"

typedef struct tf_hmap {
	uint64_t *keys;
	uint32_t *vals;   /* value + 1; 0 = empty */
	uint32_t cap;     /* power of two */
	uint32_t n;
} tf_hmap;

static inline uint64_t tf_mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static inline void tf_hmap_free(tf_hmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}

static inline int tf_hmap_grow(tf_hmap *m)
{
	uint32_t nc = m->cap ? m->cap * 2 : 256;
	uint64_t *k = malloc((size_t)nc * sizeof(*k));
	uint32_t *v = calloc(nc, sizeof(*v));
	if (!k || !v) {
		free(k);
		free(v);
		return -1;
	}
	for (uint32_t i = 0; i < m->cap; i++) {
		if (!m->vals[i])
			continue;
		uint32_t j = (uint32_t)tf_mix64(m->keys[i]) & (nc - 1);
		while (v[j])
			j = (j + 1) & (nc - 1);
		k[j] = m->keys[i];
		v[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = k;
	m->vals = v;
	m->cap = nc;
	return 0;
}

/* Returns the value for key, or UINT32_MAX if absent. */
static inline uint32_t tf_hmap_get(const tf_hmap *m, uint64_t key)
{
	if (!m->cap)
		return UINT32_MAX;
	uint32_t mask = m->cap - 1;
	for (uint32_t j = (uint32_t)tf_mix64(key) & mask; m->vals[j]; j = (j + 1) & mask)
		if (m->keys[j] == key)
			return m->vals[j] - 1;
	return UINT32_MAX;
}

/* Inserts key -> val (key must be absent).  Returns 0 or -1 on OOM. */
static inline int tf_hmap_put(tf_hmap *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap && tf_hmap_grow(m) < 0)
		return -1;
	uint32_t mask = m->cap - 1;
	uint32_t j = (uint32_t)tf_mix64(key) & mask;
	while (m->vals[j])
		j = (j + 1) & mask;
	m->keys[j] = key;
	m->vals[j] = val + 1;
	m->n++;
	return 0;
}

/* Sets key -> val, adding key when absent.  Returns 0 or -1 on OOM. */
static inline int tf_hmap_set(tf_hmap *m, uint64_t key, uint32_t val)
{
	if (m->cap) {
		uint32_t mask = m->cap - 1;
		for (uint32_t j = (uint32_t)tf_mix64(key) & mask; m->vals[j]; j = (j + 1) & mask)
			if (m->keys[j] == key) {
				m->vals[j] = val + 1;
				return 0;
			}
	}
	return tf_hmap_put(m, key, val);
}

#endif
