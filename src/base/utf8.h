/* utf8.h - one character of a UTF-8 byte string, for the writers of XML
 * and HTML text (the flame graph's SVG, the overview's page), which show
 * what it refuses as U+FFFD. */
#ifndef TRACEFOLD_UTF8_H
#define TRACEFOLD_UTF8_H

#include <stddef.h>

/* The length of the valid UTF-8 sequence at s (n bytes left, n > 0), its
 * code point in *cp; 0 if invalid (overlong, past U+10FFFF, cut) or not
 * a character XML 1.0 can hold (surrogates, U+FFFE, U+FFFF). */
static inline size_t tf_utf8_xml_len(const unsigned char *s, size_t n, unsigned *cp)
{
	unsigned c = s[0], min;
	size_t k;
	*cp = c;
	if (c < 0x80)
		return 1;
	if ((c & 0xE0) == 0xC0)
		k = 2, min = 0x80;
	else if ((c & 0xF0) == 0xE0)
		k = 3, min = 0x800;
	else if ((c & 0xF8) == 0xF0)
		k = 4, min = 0x10000;
	else
		return 0;
	if (k > n)
		return 0;
	*cp = c & (0x7F >> k);
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3F);
	}
	if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF) || *cp == 0xFFFE || *cp == 0xFFFF)
		return 0;
	return k;
}

#endif
