/* tau.h - internals of the TAU reader (src/read/tau.c) that unit tests use.
 * Not part of the public interface.  Format facts: docs/format-tau.md. */
#ifndef TRACEFOLD_READ_TAU_H
#define TRACEFOLD_READ_TAU_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "tracefold/event.h"

/* One decoded .trc record, whatever its layout. */
typedef struct tf_tau_rec {
	int64_t ev;
	uint16_t nid, tid;
	int64_t par;
	uint64_t ti; /* microseconds */
} tf_tau_rec;

/* Record layout: 24 bytes (TAU_EV / TAU_EV32) or 32 bytes (legacy TAU_EV64),
 * and whether the fields are in the other byte order than this machine's. */
typedef struct tf_tau_layout {
	unsigned recsize; /* 24 or 32 */
	bool swap;
	bool guessed;     /* no (or several) hypotheses had EV_INIT's parameter 3 */
} tf_tau_layout;

/* Detects the layout from the first n bytes of a .trc (as TAU's readers do:
 * the first record is EV_INIT with parameter 3). */
tf_tau_layout tf_tau_detect_layout(const unsigned char *p, size_t n);
void tf_tau_decode(const unsigned char *p, tf_tau_layout lay, tf_tau_rec *out);
/* Unpacks a MESSAGE_SEND/RECV parameter (partner, tag, length, comm). */
void tf_tau_unpack_msg(int64_t par, tf_message *m);
/* Trims TAU's trailing type separator and blanks: "main " -> len of "main". */
size_t tf_tau_trim_len(const char *s, size_t len);

/* One EDF line, parsed.  Returns 1 for a definition, 0 for a header/comment/
 * empty line, -1 for a malformed line.  name points into line. */
typedef struct tf_tau_edf_line {
	int64_t id;
	const char *group; size_t group_len;
	int64_t tag;
	const char *name; size_t name_len;
	const char *kind; size_t kind_len;
} tf_tau_edf_line;
int tf_tau_edf_parse_line(const char *line, size_t len, tf_tau_edf_line *out);

#endif
