/* regress.c - main() for the fuzz targets without libFuzzer: replays every
 * file named on the command line, and every file in every directory named
 * (not recursive), through LLVMFuzzerTestOneInput, in name order.  Used by
 * tests/e2e/fuzz_regress.sh on tests/fuzz/corpus/<target>/ with the release
 * and the ASan+UBSan builds.  A broken contract aborts (fz_fail), so the
 * exit status is non-zero and the last "replay" line names the input. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz.h"

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return 1;
	}
	size_t cap = 4096, n = 0, k;
	unsigned char *b = malloc(cap);
	while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			unsigned char *nb = realloc(b, cap *= 2);
			if (!nb)
				free(b);
			b = nb;
		}
	}
	fclose(f);
	if (!b) {
		fprintf(stderr, "out of memory reading %s\n", path);
		return 1;
	}
	fprintf(stderr, "replay %s (%zu bytes)\n", path, n);
	/* an exact-size copy, so ASan sees reads past the input's end */
	unsigned char *exact = malloc(n ? n : 1);
	if (!exact) {
		free(b);
		return 1;
	}
	memcpy(exact, b, n);
	free(b);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int bad = 0, runs = 0;
	for (int i = 1; i < argc; i++) {
		struct stat sb;
		if (stat(argv[i], &sb) != 0) {
			fprintf(stderr, "cannot open %s\n", argv[i]);
			bad = 1;
			continue;
		}
		if (!S_ISDIR(sb.st_mode)) {
			bad |= replay(argv[i]);
			runs++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		if (!d) {
			bad = 1;
			continue;
		}
		char **names = NULL;
		size_t n = 0;
		struct dirent *de;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char **nn = realloc(names, (n + 1) * sizeof(*nn));
			if (!nn)
				break;
			names = nn;
			names[n] = malloc(strlen(argv[i]) + strlen(de->d_name) + 2);
			if (!names[n])
				break;
			sprintf(names[n], "%s/%s", argv[i], de->d_name);
			n++;
		}
		closedir(d);
		qsort(names, n, sizeof(*names), cmp);
		for (size_t k = 0; k < n; k++) {
			bad |= replay(names[k]);
			runs++;
			free(names[k]);
		}
		free(names);
	}
	printf("%d inputs replayed\n", runs);
	return bad;
}
