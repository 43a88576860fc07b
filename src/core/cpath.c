/* cpath.c - the call-path tree (include/tracefold/cpath.h). */
#include <stdlib.h>
#include <string.h>
#include "tracefold/cpath.h"
#include "hmap.h"

struct tf_cpath {
	tf_cpath_node *nodes;
	uint32_t n, cap;
	tf_hmap idx;             /* parent << 32 | frame -> node */
	/* call stacks repeat: a parent's recent children usually hit */
	struct recent {
		uint32_t child[4];  /* 0 = empty (the root is nobody's child) */
		uint32_t next;      /* round robin */
	} *recent;
	uint32_t caprecent;
};

tf_cpath *tf_cpath_new(void)
{
	tf_cpath *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (tf_grow((void **)&c->nodes, &c->cap, 1, sizeof(tf_cpath_node)) < 0 ||
	    tf_grow((void **)&c->recent, &c->caprecent, 1, sizeof(struct recent)) < 0) {
		tf_cpath_free(c);
		return NULL;
	}
	c->nodes[0] = (tf_cpath_node){ 0, 0, 0 };
	memset(c->recent, 0, (size_t)c->caprecent * sizeof(struct recent));
	c->n = 1;
	return c;
}

void tf_cpath_free(tf_cpath *c)
{
	if (!c)
		return;
	free(c->nodes);
	free(c->recent);
	tf_hmap_free(&c->idx);
	free(c);
}

uint32_t tf_cpath_child(tf_cpath *c, uint32_t parent, tf_str frame)
{
	struct recent *r = &c->recent[parent];
	for (int k = 0; k < 4; k++)
		if (r->child[k] && c->nodes[r->child[k]].frame == frame)
			return r->child[k];
	uint64_t key = (uint64_t)parent << 32 | frame;
	uint32_t id = tf_hmap_get(&c->idx, key);
	if (id == UINT32_MAX) {
		if (tf_grow((void **)&c->nodes, &c->cap, c->n + 1, sizeof(tf_cpath_node)) < 0)
			return (uint32_t)-1;
		uint32_t cap = c->caprecent;
		if (tf_grow((void **)&c->recent, &c->caprecent, c->n + 1, sizeof(struct recent)) < 0)
			return (uint32_t)-1;
		memset(c->recent + cap, 0, (size_t)(c->caprecent - cap) * sizeof(struct recent));
		id = c->n;
		if (tf_hmap_put(&c->idx, key, id) < 0)
			return (uint32_t)-1;
		c->nodes[id] = (tf_cpath_node){ parent, c->nodes[parent].depth + 1, frame };
		c->n++;
	}
	r = &c->recent[parent]; /* may have moved */
	r->child[r->next++ & 3] = id;
	return id;
}

uint32_t tf_cpath_count(const tf_cpath *c) { return c->n; }
const tf_cpath_node *tf_cpath_get(const tf_cpath *c, uint32_t id) { return &c->nodes[id]; }

size_t tf_cpath_bytes(const tf_cpath *c)
{
	return (size_t)c->cap * sizeof(tf_cpath_node) + (size_t)c->caprecent * sizeof(struct recent) +
	       (size_t)c->idx.cap * (sizeof(uint64_t) + sizeof(uint32_t));
}
