/* strtab.h - string interning.  Every name in the pipeline is a tf_str id;
 * id 0 is always the empty string.  Ids are dense, assigned in first-seen
 * order, so anything keyed by them is deterministic for a given input. */
#ifndef TRACEFOLD_STRTAB_H
#define TRACEFOLD_STRTAB_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t tf_str;
typedef struct tf_strtab tf_strtab;

tf_strtab *tf_strtab_new(void);
void tf_strtab_free(tf_strtab *st); /* NULL-safe */
/* Interns s[0..len); returns its id, or (tf_str)-1 on allocation failure. */
tf_str tf_strtab_intern(tf_strtab *st, const char *s, size_t len);
tf_str tf_strtab_intern_cstr(tf_strtab *st, const char *s);
/* The NUL-terminated text of id; valid until the table is freed. */
const char *tf_strtab_get(const tf_strtab *st, tf_str id);
size_t tf_strtab_len(const tf_strtab *st, tf_str id);
uint32_t tf_strtab_count(const tf_strtab *st);
/* Bytes held (for memory reporting). */
size_t tf_strtab_bytes(const tf_strtab *st);

#endif
