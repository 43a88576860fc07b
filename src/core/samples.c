/* samples.c - the call path of a sampled stack under the open regions
 * (include/tracefold/samples.h). */
#include <stdlib.h>
#include "tracefold/samples.h"
#include "hmap.h"

struct tf_sample_paths {
	tf_ctx *ctx;
	tf_cpath *cp;
	tf_hmap done;     /* node << 32 | stack -> call path */
	tf_str *frames;   /* scratch: one stack's frames, leaf first */
	uint32_t cap;
};

tf_sample_paths *tf_sample_paths_new(tf_ctx *ctx, tf_cpath *cp)
{
	tf_sample_paths *p = calloc(1, sizeof(*p));
	if (p) {
		p->ctx = ctx;
		p->cp = cp;
	}
	return p;
}

void tf_sample_paths_free(tf_sample_paths *p)
{
	if (!p)
		return;
	tf_hmap_free(&p->done);
	free(p->frames);
	free(p);
}

uint32_t tf_sample_path(tf_sample_paths *p, uint32_t node, uint32_t stack)
{
	uint64_t key = (uint64_t)node << 32 | stack;
	uint32_t v = tf_hmap_get(&p->done, key);
	if (v != UINT32_MAX)
		return v;
	const tf_cpath *st = tf_ctx_stacks(p->ctx);
	uint32_t n = 0, at = node;
	for (uint32_t s = stack; st && s != TF_CPATH_ROOT;) {
		const tf_cpath_node *sn = tf_cpath_get(st, s);
		if (n == p->cap) {
			uint32_t nc = p->cap ? p->cap * 2 : 64;
			tf_str *f = realloc(p->frames, nc * sizeof(*f));
			if (!f)
				return (uint32_t)-1;
			p->frames = f;
			p->cap = nc;
		}
		p->frames[n++] = sn->frame;
		s = sn->parent;
	}
	while (n && at != (uint32_t)-1) {
		tf_str f = tf_ctx_frame_name(p->ctx, p->frames[--n]);
		at = f == (tf_str)-1 ? (uint32_t)-1 : tf_cpath_child(p->cp, at, f);
	}
	if (at == (uint32_t)-1 || tf_hmap_put(&p->done, key, at) < 0)
		return (uint32_t)-1;
	return at;
}
