/* rec_long: a name and an annotation longer than the library takes (300 KB
 * of 3-byte UTF-8 characters): the name is cut at 64 KiB at a character's
 * start, the annotation left out, the events kept (tests/e2e/record.sh). */
#include <stdlib.h>
#include <string.h>
#include <tracefold/record.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	tfr *r = tfr_open(argv[1], NULL);
	size_t n = 300000;
	char *s = malloc(n + 1);
	if (!r || !s)
		return 1;
	for (size_t i = 0; i < n; i += 3)
		memcpy(s + i, "\xe2\x82\xac", 3); /* the euro sign */
	s[n] = 0;
	tfr_begin(r, 0, s);
	tfr_arg_string(r, "long", s);
	tfr_end(r, 0);
	tfr_arg_int(r, "lost", 1);
	tfr_counter(r, 0, 1.0); /* no track: nothing, its annotation dropped */
	tfr_begin(r, 0, "after");
	tfr_end(r, 0);
	free(s);
	return tfr_close(r) ? 1 : 0;
}
