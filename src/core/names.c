/* names.c - the rules of stable names (include/tracefold/names.h). */
#include <string.h>
#include "tracefold/names.h"

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Does s[i..n) start with lit? */
static int at(const char *s, size_t n, size_t i, const char *lit)
{
	size_t k = strlen(lit);
	return i + k <= n && memcmp(s + i, lit, k) == 0;
}

/* The length of ", KEY = <digits>" at s[i..n) for the numbering keys of
 * PyTorch's NVTX ranges, 0 if there is none; ", input_op_ids = " takes the
 * rest of the name. */
static size_t nvtx_suffix(const char *s, size_t n, size_t i)
{
	static const char *const keys[] = { ", seq = ", ", op_id = " };
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		if (!at(s, n, i, keys[k]))
			continue;
		size_t j = i + strlen(keys[k]), d = j;
		while (j < n && is_digit(s[j]))
			j++;
		if (j > d && (j == n || s[j] == ','))
			return j - i;
	}
	if (at(s, n, i, ", input_op_ids = "))
		return n - i;
	return 0;
}

/* One rule over s[0..n) into out: addresses (nvtx false) or NVTX suffixes. */
static size_t pass(const char *s, size_t n, int nvtx, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		if (!nvtx && s[i] == ' ' && at(s, n, i, " at 0x") && i + 6 < n && is_hex(s[i + 6])) {
			size_t j = i + 6;
			while (j < n && is_hex(s[j]))
				j++;
			if (j == n || !(is_hex(s[j]) || (s[j] >= 'g' && s[j] <= 'z') || (s[j] >= 'G' && s[j] <= 'Z') ||
					s[j] == '_')) {
				i = j;
				continue;
			}
		}
		if (nvtx && s[i] == ',') {
			size_t k = nvtx_suffix(s, n, i);
			if (k) {
				i += k;
				continue;
			}
		}
		out[o++] = s[i++];
	}
	return o;
}

size_t tf_name_normalize(const char *s, size_t n, unsigned rules, char *out)
{
	/* in this order, each on the result of the one before */
	size_t m = n;
	if (rules & TF_NAMES_ADDR)
		m = pass(s, n, 0, out);
	else
		memmove(out, s, n);
	if (rules & TF_NAMES_NVTX)
		m = pass(out, m, 1, out); /* in place: out never runs ahead of the input */
	if ((rules & TF_NAMES_STEP) && m > 13 && memcmp(out, "ProfilerStep#", 13) == 0) {
		size_t j = 13;
		while (j < m && is_digit(out[j]))
			j++;
		if (j == m) /* "ProfilerStep#5", also from an NVTX range "ProfilerStep#5, op_id = 12" */
			m = 12;
	}
	return m;
}
