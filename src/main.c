/* main.c - tracefold's entry point: global flags and the command table.
 * Each command lives in src/cmd/<name>.c and is one row here; an output
 * format's own command (tracefold chrome, events, ...) is a field of its
 * writer's row (tf_writers[], writer.h) and takes the place of the row
 * WRITERS here. */
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "tracefold/io.h"
#include "tracefold/reader.h"
#include "tracefold/writer.h"

static const tf_cmd commands[] = {
	{ "profile", tf_cmd_profile, "aggregate traces into a gzipped pprof profile" },
	{ "convert", tf_cmd_convert, "one read of the traces, several outputs (formats below)" },
	{ NULL,      NULL,           NULL }, /* WRITERS: the writers' commands */
	{ "info",    tf_cmd_info,    "describe traces: ranks, threads, span, event counts, repairs" },
	{ "top",     tf_cmd_top,     "hotspot table of traces or profiles (text, markdown, json)" },
	{ "diff",    tf_cmd_diff,    "compare two runs; can fail a CI job on a regression" },
	{ "merge",   tf_cmd_merge,   "sum pprof profiles into one" },
	{ "fold",    tf_cmd_fold,    "folded stacks (flamegraph.pl, speedscope); docs/folded.md" },
	{ "flame",   tf_cmd_flame,   "a flame graph picture (SVG, HTML), or a differential one" },
	{ "overview", tf_cmd_overview, "per rank and step: where the time went, stragglers, waits" },
	{ "history", tf_cmd_history, "keep earlier runs of a baseline for diff --gate --history" },
};
#define NCMDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tracefold [-v|-q] COMMAND [ARGS...]\n"
		"       tracefold --version | --help\n"
		"\n"
		"Turns performance traces into profiles: call stacks rebuilt per thread,\n"
		"self and inclusive time, GPU work under the call that launched it.\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < NCMDS; i++) {
		if (commands[i].name) {
			fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
			continue;
		}
		for (int k = 0; tf_writers[k]; k++)
			if (tf_writers[k]->command)
				fprintf(f, "  %-10s %s\n", tf_writers[k]->command, tf_writers[k]->summary);
	}
	fprintf(f, "\ninput formats (traces, then profiles, added as they are):\n");
	for (int i = 0; tf_formats[i]; i++)
		if (tf_formats[i]->kind == TF_INPUT_EVENTS)
			fprintf(f, "  %-10s %s\n", tf_formats[i]->name, tf_formats[i]->description);
	for (int i = 0; tf_formats[i]; i++)
		if (tf_formats[i]->kind != TF_INPUT_EVENTS)
			fprintf(f, "  %-10s %s\n", tf_formats[i]->name, tf_formats[i]->description);
	fprintf(f, "\noutput formats:\n");
	for (int i = 0; tf_writers[i]; i++)
		fprintf(f, "  %-10s %s\n", tf_writers[i]->name, tf_writers[i]->description);
	fprintf(f,
		"\nglobal options:\n"
		"  -v, --verbose  more detail on stderr\n"
		"  -q, --quiet    no repair summary on stderr\n"
		"\n"
		"--mpi (an input option of the commands that read traces) shares the inputs\n"
		"out among the processes of an MPI job: tracefold-mpi, built with 'make MPI=1',\n"
		"under mpirun or srun (docs/distributed.md).\n"
		"\n"
		"exit status: 0 success, 1 regression found (diff --fail-above, diff --gate),\n"
		"             2 usage error, 3 unreadable or invalid input / output failure,\n"
		"             4 diff --gate --fail-unresolved: a change the runs cannot resolve\n"
		"\n"
		"'tracefold COMMAND --help' describes a command; docs/cli.md has everything.\n");
}

int main(int argc, char **argv)
{
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (tf_is_help(a)) {
			usage(stdout);
			return fflush(stdout) == 0 ? TF_EXIT_OK : TF_EXIT_INPUT;
		} else if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
			const char *mpi = tf_mpi_build();
			printf("tracefold %s%s%s%s\n", TRACEFOLD_VERSION, mpi ? " (" : "", mpi ? mpi : "", mpi ? ")" : "");
			printf("gzip input: %s\n", tf_inflater());
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
		usage(stderr);
		return TF_EXIT_USAGE;
	}
	const tf_writer *w = tf_writer_by_command(argv[i]);
	for (size_t k = 0; k < NCMDS; k++) {
		if (w || (commands[k].name && strcmp(argv[i], commands[k].name) == 0)) {
			int rc = w ? tf_cmd_write(w, argc - i, argv + i) : commands[k].fn(argc - i, argv + i);
			rc = tf_mpi_end(rc); /* --mpi: one status for every process */
			/* a full disk or closed pipe on stdout is an error, said once:
			 * not again when the command already failed writing to it */
			if ((fflush(stdout) != 0 || ferror(stdout)) && rc == TF_EXIT_OK) {
				tf_msg("cannot write to standard output");
				rc = TF_EXIT_INPUT;
			}
			return rc;
		}
	}
	fprintf(stderr, "tracefold: '%s' is not a command\nTry 'tracefold --help'.\n", argv[i]);
	return TF_EXIT_USAGE;
}
