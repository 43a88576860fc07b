/* jsonq.c - JSON string quoting, shared by every JSON the tool writes
 * (reports, Chrome traces): '"' and '\' escaped, control characters as
 * \u00XX, invalid UTF-8 bytes as U+FFFD, so every string is valid JSON. */
#include <string.h>
#include "jsonq.h"

/* Length of the valid UTF-8 sequence at s, or 0. */
static int utf8_len(const unsigned char *s, size_t avail)
{
	int n;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if ((size_t)n > avail)
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && s[0] == 0xe0 && s[1] < 0xa0)
		return 0;
	if (n == 3 && s[0] == 0xed && s[1] >= 0xa0)
		return 0;
	if (n == 4 && s[0] == 0xf0 && s[1] < 0x90)
		return 0;
	if (n == 4 && s[0] == 0xf4 && s[1] >= 0x90)
		return 0;
	return n;
}

void tf_json_quote(const char *s, size_t len, void (*put)(void *u, const char *p, size_t n), void *u)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	char esc[8];
	put(u, "\"", 1);
	while (p < end) {
		const unsigned char *run = p; /* copy runs of plain bytes at once */
		while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
			p++;
		if (p > run)
			put(u, (const char *)run, (size_t)(p - run));
		if (p >= end)
			break;
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p++;
			put(u, esc, 2);
		} else if (*p < 0x20) {
			static const char hex[] = "0123456789abcdef";
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[*p >> 4];
			esc[5] = hex[*p & 15];
			p++;
			put(u, esc, 6);
		} else {
			int n = utf8_len(p, (size_t)(end - p));
			if (!n) {
				put(u, "\\ufffd", 6);
				p++;
			} else {
				put(u, (const char *)p, (size_t)n);
				p += n;
			}
		}
	}
	put(u, "\"", 1);
}
