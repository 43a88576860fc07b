/* jsonq.h - JSON string quoting (src/base/jsonq.c). */
#ifndef TRACEFOLD_JSONQ_H
#define TRACEFOLD_JSONQ_H

#include <stddef.h>

/* Writes s[0..len) as a quoted JSON string through put (called with pieces
 * of the output, in order): valid UTF-8 kept, '"', '\\' and control
 * characters escaped, each invalid byte written as \\ufffd. */
void tf_json_quote(const char *s, size_t len, void (*put)(void *u, const char *p, size_t n), void *u);

#endif
