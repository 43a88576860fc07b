/* main.c - tracefold's entry point: the global flags, then the command
 * (the table: src/cmd/commands.c). */
#include <signal.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"
#include "tracefold/io.h"
#include "tracefold/pipeline.h"
#include "tracefold/reader.h"
#include "tracefold/writer.h"

/* What this build has, for a bug report or a CI log: the version, MPI,
 * the input and output formats, the libraries, how it was compiled. */
static void version(void)
{
	const char *mpi = tf_mpi_build();
	printf("tracefold %s%s%s%s\n", TRACEFOLD_VERSION, mpi ? " (" : "", mpi ? mpi : "", mpi ? ")" : "");
	printf("gzip input: %s\n", tf_inflater());
	printf("mpi: %s\n", mpi ? "yes (this is tracefold-mpi: --mpi under mpirun or srun)"
			      : "no (tracefold-mpi, built by 'make MPI=1', runs --mpi)");
	printf("input formats:");
	for (int i = 0; tf_formats[i]; i++)
		printf(" %s", tf_formats[i]->name);
	printf("\noutput formats:");
	for (int i = 0; tf_writers[i]; i++)
		printf(" %s", tf_writers[i]->name);
	char libs[512];
	tf_build_libraries(libs, sizeof(libs));
	printf("\nlibraries: %s\n", libs);
#if defined(__SANITIZE_ADDRESS__)
	const char *san = ", AddressSanitizer";
#else
	const char *san = "";
#endif
#if defined(__clang__)
	printf("compiler: clang %s%s\n", __clang_version__, san);
#elif defined(__GNUC__)
	printf("compiler: gcc %s%s\n", __VERSION__, san);
#endif
}

/* A plain input is read through mapped windows of the page cache
 * (src/io/io.c): if another program cuts the file short while it is read,
 * touching the pages past its new end raises SIGBUS.  The run cannot go
 * on; it ends as a failed run does, saying why (exit 3), no output
 * replaced (what was being written stays in its hidden temporary file).
 * A build with AddressSanitizer keeps its own handler. */
#ifndef __SANITIZE_ADDRESS__
static void on_sigbus(int sig)
{
	(void)sig;
	static const char msg[] = "tracefold: an input file was cut short by another program while it was read "
				  "(SIGBUS): no output was written (TRACEFOLD_NO_MMAP=1 reads inputs with read(2))\n";
	ssize_t r = write(2, msg, sizeof(msg) - 1);
	(void)r;
	_exit(TF_EXIT_INPUT);
}
#endif

int main(int argc, char **argv)
{
#if defined(__GLIBC__)
	/* glibc raises its mmap threshold to the largest block freed so far
	 * (up to 32 MiB), so the large arrays one input's tracks and tables
	 * freed stay in the heap for the next input and add to the peak: a
	 * fixed 1 MiB threshold gives such arrays back when freed
	 * (docs/performance.md, "Multi-GB traces") */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
#ifndef __SANITIZE_ADDRESS__
	struct sigaction sa = { .sa_handler = on_sigbus };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
#endif
	const char *nomap = getenv("TRACEFOLD_NO_MMAP");
	tf_in_map_inputs(!(nomap && *nomap && strcmp(nomap, "0") != 0));
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (tf_is_help(a)) {
			tf_usage();
			return fflush(stdout) == 0 ? TF_EXIT_OK : TF_EXIT_INPUT;
		} else if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
			version();
			return fflush(stdout) == 0 ? TF_EXIT_OK : TF_EXIT_INPUT;
		} else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
			tf_verbose++;
		} else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			tf_quiet = 1;
		} else {
			fprintf(stderr, "tracefold: unknown option '%s'\nTry 'tracefold --help'.\n", a);
			return TF_EXIT_USAGE;
		}
	}
	if (i >= argc) {
		tf_help_to(stderr);
		tf_usage();
		return TF_EXIT_USAGE;
	}
	int rc = tf_cmd_run(argv[i], argc - i, argv + i);
	if (rc < 0) {
		fprintf(stderr, "tracefold: '%s' is not a command\nTry 'tracefold --help'.\n", argv[i]);
		return TF_EXIT_USAGE;
	}
	rc = tf_mpi_end(rc); /* --mpi: one status for every process */
	/* a full disk or closed pipe on stdout is an error, said once: not
	 * again when the command already failed writing to it */
	if ((fflush(stdout) != 0 || ferror(stdout)) && rc == TF_EXIT_OK) {
		tf_msg("cannot write to standard output");
		rc = TF_EXIT_INPUT;
	}
	return rc;
}
