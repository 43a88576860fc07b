/* strtab.c - string interning: open addressing over dense ids, texts in
 * large arena blocks (no per-string malloc). */
#include <stdlib.h>
#include <string.h>
#include "tracefold/strtab.h"
#include "grow.h"

typedef struct {
	char *text;
	uint32_t len;
	uint32_t hash;
} entry;

struct tf_strtab {
	entry *ents;       /* by id */
	uint32_t n, cap;
	uint32_t *slots;   /* id + 1, 0 = empty */
	uint32_t nslots;   /* power of two */
	char **blocks;
	size_t nblocks, capblocks;
	char *cur;
	size_t cur_left;
	size_t bytes;
};

#define BLOCK_BYTES (256u * 1024u)

/* 8 bytes at a time (a multiply and a shift per word, the last word
 * padded with zeros): names are 10 to 100 bytes, and FNV-1a's multiply
 * per byte was most of the cost of interning (issue 33).  Only lookups
 * use the hash: ids are dense, in order of first sight, whatever it is. */
static uint32_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ len, w;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
		h ^= h >> 31;
	}
	if (i < len) { /* the last 1 to 7 bytes: the 8 that end the string when it has 8, else 4 + 4 or bytes */
		if (len >= 8) {
			memcpy(&w, s + len - 8, 8);
		} else if (len >= 4) {
			uint32_t a, b;
			memcpy(&a, s, 4);
			memcpy(&b, s + len - 4, 4);
			w = (uint64_t)a << 32 | b;
		} else {
			w = 0;
			for (unsigned k = 0; i < len; i++, k += 8)
				w |= (uint64_t)(unsigned char)s[i] << k;
		}
		h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
		h ^= h >> 31;
	}
	h *= 0x94D049BB133111EBull;
	return (uint32_t)(h ^ (h >> 32));
}

tf_strtab *tf_strtab_new(void)
{
	tf_strtab *st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->nslots = 1024;
	st->slots = calloc(st->nslots, sizeof(uint32_t));
	if (!st->slots || tf_strtab_intern(st, "", 0) != 0) {
		tf_strtab_free(st);
		return NULL;
	}
	return st;
}

void tf_strtab_free(tf_strtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nblocks; i++)
		free(st->blocks[i]);
	free(st->blocks);
	free(st->ents);
	free(st->slots);
	free(st);
}

static char *arena_alloc(tf_strtab *st, size_t n)
{
	if (n > st->cur_left) {
		size_t sz = n > BLOCK_BYTES ? n : BLOCK_BYTES;
		if (tf_grow_n((void **)&st->blocks, &st->capblocks, st->nblocks + 1, sizeof(*st->blocks), false) < 0)
			return NULL;
		char *b = malloc(sz);
		if (!b)
			return NULL;
		st->blocks[st->nblocks++] = b;
		st->cur = b;
		st->cur_left = sz;
		st->bytes += sz;
	}
	char *p = st->cur;
	st->cur += n;
	st->cur_left -= n;
	return p;
}

static int rehash(tf_strtab *st)
{
	uint32_t ns = st->nslots * 2;
	uint32_t *slots = calloc(ns, sizeof(uint32_t));
	if (!slots)
		return -1;
	for (uint32_t id = 0; id < st->n; id++) {
		uint32_t i = st->ents[id].hash & (ns - 1);
		while (slots[i])
			i = (i + 1) & (ns - 1);
		slots[i] = id + 1;
	}
	free(st->slots);
	st->slots = slots;
	st->nslots = ns;
	return 0;
}

tf_str tf_strtab_intern(tf_strtab *st, const char *s, size_t len)
{
	if (st->n + 2 >= st->nslots && rehash(st) < 0)
		return (tf_str)-1;
	uint32_t h = hash_bytes(s, len);
	uint32_t mask = st->nslots - 1;
	uint32_t i = h & mask;
	while (st->slots[i]) {
		const entry *e = &st->ents[st->slots[i] - 1];
		if (e->hash == h && e->len == len && memcmp(e->text, s, len) == 0)
			return st->slots[i] - 1;
		i = (i + 1) & mask;
	}
	if (len > UINT32_MAX - 1)
		return (tf_str)-1;
	if (tf_grow((void **)&st->ents, &st->cap, st->n + 1, sizeof(*st->ents)) < 0)
		return (tf_str)-1;
	char *t = arena_alloc(st, len + 1);
	if (!t)
		return (tf_str)-1;
	memcpy(t, s, len);
	t[len] = 0;
	uint32_t id = st->n++;
	st->ents[id] = (entry){ t, (uint32_t)len, h };
	st->slots[i] = id + 1;
	if ((uint64_t)st->n * 4 > (uint64_t)st->nslots * 3 && rehash(st) < 0) {
		/* table still valid, just fuller; the next insert retries */
	}
	return id;
}

tf_str tf_strtab_intern_cstr(tf_strtab *st, const char *s)
{
	return tf_strtab_intern(st, s, strlen(s));
}

const char *tf_strtab_get(const tf_strtab *st, tf_str id)
{
	return id < st->n ? st->ents[id].text : "";
}

size_t tf_strtab_len(const tf_strtab *st, tf_str id)
{
	return id < st->n ? st->ents[id].len : 0;
}

uint32_t tf_strtab_count(const tf_strtab *st) { return st->n; }

size_t tf_strtab_bytes(const tf_strtab *st)
{
	return st->bytes + (size_t)st->cap * sizeof(entry) + (size_t)st->nslots * 4;
}
