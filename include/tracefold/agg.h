/* agg.h - the aggregate: a call-path tree plus values per (call path, label set).
 *
 *   stack builder --(node, labelset, values)--> tf_agg --> writers / top / diff
 *
 * Nodes are keyed by (parent node, frame name); node 0 is the root (no frame).
 * A sample is (node, labelset) with one int64 per sample type.  The first
 * TF_AGG_DENSE_TYPES types (calls, wall, a few counters) are a vector per
 * sample; the types after them are stored only where a sample has a value
 * (with -c all there can be thousands of counters, each sampled in a few
 * regions: N counters in N regions hold N values, not N^2).  Two
 * aggregates over the same string table merge by addition (associative and
 * commutative up to node numbering): this is the reduce step for threads,
 * ranks, inputs and MPI.  Node, label set and sample ids are assigned in
 * first-seen order; writers do not depend on them: they walk the samples in
 * tf_agg_sample_order, which depends only on content, so a profile's bytes
 * are the same whatever order its inputs (or parts of them) were read and
 * merged in. */
#ifndef TRACEFOLD_AGG_H
#define TRACEFOLD_AGG_H

#include <stdint.h>
#include <stddef.h>
#include "strtab.h"
#include "cpath.h"
#include "err.h"

typedef struct tf_agg tf_agg;

#define TF_AGG_ROOT TF_CPATH_ROOT
#define TF_AGG_MAX_LABELS 8 /* rank or pid, thread, step, and a collective's five (coll.h) */
/* Sample types with an index below this are stored densely (see above). */
#define TF_AGG_DENSE_TYPES 8

typedef struct tf_label {
	tf_str key;
	tf_str str;     /* string value, or 0 when numeric */
	int64_t num;    /* numeric value when str == 0 */
	tf_str num_unit;
} tf_label;

typedef struct tf_sample_type {
	tf_str type;    /* "wall", "calls", a counter name */
	tf_str unit;    /* "nanoseconds", "count", ... */
} tf_sample_type;

/* A call path: the tree is its own module (cpath.h), which the aggregate
 * and the stack builder share. */
typedef tf_cpath_node tf_agg_node;

typedef struct tf_agg_sample {
	uint32_t node;
	uint32_t labelset;
} tf_agg_sample;

/* st is borrowed and must outlive the agg.  The agg has its own call-path
 * tree; tf_agg_new_cpath uses cp (borrowed, outlives the agg; NULL = own),
 * so that the stack builder's node ids are the agg's. */
tf_agg *tf_agg_new(tf_strtab *st);
tf_agg *tf_agg_new_cpath(tf_strtab *st, tf_cpath *cp);
tf_cpath *tf_agg_cpath(const tf_agg *a);
void tf_agg_free(tf_agg *a); /* NULL-safe */
tf_strtab *tf_agg_strtab(const tf_agg *a);

/* Sample types.  Returns the index of (type, unit), adding it if new; an
 * existing type with another unit is TF_ECLASH.  Adding a type after samples
 * exist is allowed (old samples get 0). */
int tf_agg_type(tf_agg *a, const char *type, const char *unit);
int tf_agg_type_find(const tf_agg *a, const char *type); /* -1 if absent */
int tf_agg_ntypes(const tf_agg *a);
/* Drops the sample types from index n on, whose dense values must be
 * zeros (a trace aggregate of samples only: calls and wall, once permuted
 * last).  A sparse value of one of them, or n out of range: TF_EUSAGE and
 * nothing changes. */
int tf_agg_drop_types(tf_agg *a, int n);
tf_sample_type tf_agg_type_get(const tf_agg *a, int i);
/* "type/unit type/unit ..." of the sample types, for messages (always NUL-terminated). */
void tf_agg_types_text(const tf_agg *a, char *buf, size_t len);
/* The default sample type index for viewers (pprof default_sample_type), -1 none. */
void tf_agg_set_default_type(tf_agg *a, int i);
int tf_agg_default_type(const tf_agg *a);
/* Sample types of counters are named TF_COUNTER_TYPE_PREFIX + the counter's
 * name ("counter:bytes processed"), so they never collide with calls/wall. */
#define TF_COUNTER_TYPE_PREFIX "counter:"
/* The sample type a report or picture shows: name (a type, or a counter by
 * its own name), or with name NULL the default type, else "wall", else the
 * last type, as pprof picks.  Returns the index, -1 when nothing matches. */
int tf_agg_type_pick(const tf_agg *a, const char *name);

/* Call-path tree (the agg's tf_cpath).  Returns the child of parent named
 * frame, creating it; (uint32_t)-1 on allocation failure. */
uint32_t tf_agg_child(tf_agg *a, uint32_t parent, tf_str frame);
uint32_t tf_agg_nnodes(const tf_agg *a);
const tf_agg_node *tf_agg_node_get(const tf_agg *a, uint32_t id);

/* Label sets; (uint32_t)-1 on failure.  The labels are kept sorted by
 * content, whatever order they are given in: by key bytes, then string
 * values before numeric ones, then the string value's bytes, the number,
 * the unit's bytes (bytes compared as memcmp, the shorter first on a common
 * prefix), so the written order does not depend on interning order. */
uint32_t tf_agg_labelset(tf_agg *a, const tf_label *labels, int n);
int tf_agg_labelset_get(const tf_agg *a, uint32_t id, const tf_label **labels_out);
uint32_t tf_agg_nlabelsets(const tf_agg *a);

/* Adds v to sample (node, labelset) at type index t (creating the sample,
 * even when v is 0). */
int tf_agg_add(tf_agg *a, uint32_t node, uint32_t labelset, int t, int64_t v);
/* The dense value vector of sample (node, labelset), created zeroed if new:
 * one lookup for several adds to the types with an index below
 * TF_AGG_DENSE_TYPES (and below n_types); others need tf_agg_add.  Valid
 * until the agg changes; NULL on failure. */
int64_t *tf_agg_values(tf_agg *a, uint32_t node, uint32_t labelset);
/* Adds a whole value vector (n_types values). */
int tf_agg_add_values(tf_agg *a, uint32_t node, uint32_t labelset, const int64_t *values);

size_t tf_agg_nsamples(const tf_agg *a);
tf_agg_sample tf_agg_sample_get(const tf_agg *a, size_t i);
/* The value of type t of sample i (0 where it has none). */
int64_t tf_agg_sample_value(const tf_agg *a, size_t i, int t);
/* All n_types values of sample i into values_out (zeros included). */
void tf_agg_sample_values(const tf_agg *a, size_t i, int64_t *values_out);
/* Whether sample i has a non-zero value (pprof drops the others). */
int tf_agg_sample_nonzero(const tf_agg *a, size_t i);

/* The canonical order of the samples, a permutation of 0 .. nsamples-1
 * (malloc'd into *order_out; free it): by call path, in the depth-first
 * preorder of the call-path tree where the children of a node are ordered
 * by their frame's bytes (memcmp, the shorter first on a common prefix),
 * then by label set, label by label in the order above (a label set that is
 * a prefix of another first).  It depends only on content, never on ids or
 * the order things were added: the order writers walk samples in.
 * O(n log n) in call paths, label sets and samples.  0 or TF_ENOMEM. */
int tf_agg_sample_order(const tf_agg *a, uint32_t **order_out);

/* Reorders the sample types: new index i holds old type perm[i] (perm: a
 * permutation of 0 .. ntypes-1, else TF_EUSAGE).  Values (dense and
 * sparse) and the default type follow; linear in the values held.  Type
 * indices held elsewhere (an agg sink's) are stale afterwards.  0,
 * TF_EUSAGE or TF_ENOMEM (the agg unchanged then). */
int tf_agg_permute_types(tf_agg *a, const int *perm);

/* dst += src.  Same string table required.  Sample types are matched by
 * name (a type of the same name with another unit is TF_ECLASH); a type in
 * src missing from dst is TF_ECLASH (allow_new_types TF_AGG_TYPES_SAME),
 * added to dst with 0 in its other samples (TF_AGG_TYPES_ADD: the union of
 * the types), or left out (TF_AGG_TYPES_DROP). */
enum { TF_AGG_TYPES_SAME = 0, TF_AGG_TYPES_ADD = 1, TF_AGG_TYPES_DROP = 2 };
int tf_agg_merge(tf_agg *dst, const tf_agg *src, int allow_new_types);
/* A copy of src (over its string table) with only the sample types
 * types[0..n) (indices of src's), in that order; samples, labels, comments
 * and metadata as src's (a sample left with only zeros stays, as pprof's
 * writer drops those).  NULL when out of memory. */
tf_agg *tf_agg_select_types(const tf_agg *src, const int *types, int n);

/* Profile-level metadata carried with the aggregate (pprof fields). */
typedef struct tf_agg_meta {
	int64_t time_nanos;     /* start of the earliest input, 0 unknown */
	int64_t duration_nanos; /* span of all inputs */
	int64_t period;         /* pprof period (1) */
	tf_str main_file;       /* file name of the profile's one mapping (pprof's
	                         * "main binary"): the bytewise least of the inputs'
	                         * names (a trace's base name, a read profile's first
	                         * mapping file); 0 = none.  A merge keeps the
	                         * bytewise smaller of dst's and src's (either when
	                         * the other has none), so it does not depend on the
	                         * order of merges. */
} tf_agg_meta;
tf_agg_meta *tf_agg_meta_get(tf_agg *a);
/* Free-text comments (inputs, repair counts); copied. */
int tf_agg_comment(tf_agg *a, const char *text);
size_t tf_agg_ncomments(const tf_agg *a);
const char *tf_agg_comment_get(const tf_agg *a, size_t i);

/* Approximate bytes held. */
size_t tf_agg_bytes(const tf_agg *a);

/* Calls fn(arg, type, value) for each non-zero value of sample i: the dense
 * types in index order, then the others in no particular order (each type
 * once); time linear in the values the sample holds, not in the types.
 * Stops at fn's first negative return and returns it; 0 otherwise. */
typedef int (*tf_agg_value_fn)(void *arg, int type, int64_t value);
int tf_agg_sample_each(const tf_agg *a, size_t i, tf_agg_value_fn fn, void *arg);

/* Samples under a step label, set aside (agg_steps.c; the overview,
 * docs/performance.md "The overview's rank-steps"): once called, a sample
 * whose label set has the numeric label `key` is held in an open table
 * and, folded, added to the agg under its label set without that label,
 * and noted as a tf_agg_stepped (wall time; a GPU activity's or a memory
 * sample's not noted, but a call without time may be, when a fold comes
 * between the adds of one sample).  The notes are in the order the
 * samples under the step were first made (a sample made again in a later
 * window has a later note as well: its first is its place): exactly so
 * for the samples with wall time, which are what the notes are for.  Past budget bytes (0:
 * never) they go to a temporary file in tmp_dir (NULL: /tmp), unlinked
 * at once (spill.h).  The agg's own samples never have that label then.
 * tf_agg_steps_fold empties the open table (done by tf_agg_type and
 * tf_agg_permute_types; call it before reading the samples).  0,
 * TF_ENOMEM or TF_EIO (tf_agg_steps_error says it). */
typedef struct tf_agg_stepped {
	uint32_t node, labelset;        /* labelset: with the step label */
	int64_t wall;
} tf_agg_stepped;
int tf_agg_steps_aside(tf_agg *a, const char *key, size_t budget, const char *tmp_dir);
int tf_agg_steps_fold(tf_agg *a);
uint64_t tf_agg_nstepped(const tf_agg *a); /* notes made */
/* Calls fn for each note in order; stops at fn's first non-zero return
 * and returns it; else 0, TF_ENOMEM or TF_EIO. */
typedef int (*tf_agg_stepped_fn)(void *arg, const tf_agg_stepped *s);
int tf_agg_steps_each(const tf_agg *a, tf_agg_stepped_fn fn, void *arg);
const tf_error *tf_agg_steps_error(const tf_agg *a); /* the temporary file's first failure, NULL none */
/* dst's notes += src's (folded first), with src's nodes mapped by
 * node_map (UINT32_MAX: out of memory) and label sets made in dst.  dst
 * must set its notes aside too (else TF_EUSAGE). */
int tf_agg_steps_absorb(tf_agg *dst, tf_agg *src, uint32_t (*node_map)(void *arg, uint32_t node), void *arg);

/* Keeps the first n comments (a distributed run: the other processes'
 * copies of the command's own go). */
void tf_agg_comments_truncate(tf_agg *a, size_t n);

#endif
