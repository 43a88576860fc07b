/* commands.c - the command table and tracefold's own --help.  Each command
 * lives in src/cmd/<name>.c and is one row here; an output format's own
 * command (tracefold chrome, events, ...) is a field of its writer's row
 * (tf_writers[], writer.h) and takes the place of the row WRITERS here. */
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
	{ "completion", tf_cmd_completion, "a bash or zsh completion script (make install installs them)" },
	{ "manpage", tf_cmd_manpage, "the man pages, in roff (make install installs them)" },
};
#define NCMDS (sizeof(commands) / sizeof(commands[0]))

/* name and summary as the n-th entry of the lists, while they have room */
static void put_cmd(const char **names, const char **summaries, size_t *n, const char *name, const char *summary)
{
	if (*n < TF_CMD_MAX) {
		names[*n] = name;
		summaries[*n] = summary;
		++*n;
	}
}

size_t tf_cmd_names(const char **names, const char **summaries)
{
	size_t n = 0;
	for (size_t i = 0; i < NCMDS; i++) {
		if (commands[i].name)
			put_cmd(names, summaries, &n, commands[i].name, commands[i].summary);
		else
			for (int k = 0; tf_writers[k]; k++)
				if (tf_writers[k]->command)
					put_cmd(names, summaries, &n, tf_writers[k]->command, tf_writers[k]->summary);
	}
	return n;
}

int tf_cmd_run(const char *name, int argc, char **argv)
{
	const tf_writer *w = tf_writer_by_command(name);
	if (w)
		return tf_cmd_write(w, argc, argv);
	for (size_t k = 0; k < NCMDS; k++)
		if (commands[k].name && strcmp(name, commands[k].name) == 0)
			return commands[k].fn(argc, argv);
	return -1;
}

void tf_usage(void)
{
	tf_help_printf("usage: tracefold [-v|-q] COMMAND [ARGS...]\n"
		       "       tracefold --version | --help\n"
		       "\n"
		       "Turns performance traces into profiles: call stacks rebuilt per thread,\n"
		       "self and inclusive time, GPU work under the call that launched it.\n"
		       "\n"
		       "commands:\n");
	const char *names[TF_CMD_MAX], *sums[TF_CMD_MAX];
	size_t n = tf_cmd_names(names, sums);
	for (size_t i = 0; i < n; i++) {
		char page[64];
		snprintf(page, sizeof(page), "tracefold-%s", names[i]);
		tf_help_item(names[i], page, sums[i]);
	}
	tf_help_printf("\ninput formats (traces, then sampled profiles, then profiles, added as they are):\n");
	static const int kinds[] = { TF_INPUT_EVENTS, TF_INPUT_SAMPLES, TF_INPUT_PROFILE };
	for (int k = 0; k < 3; k++)
		for (int i = 0; tf_formats[i]; i++)
			if (tf_formats[i]->kind == kinds[k])
				tf_help_item(tf_formats[i]->name, NULL, tf_formats[i]->description);
	tf_help_printf("\noutput formats:\n");
	for (int i = 0; tf_writers[i]; i++)
		tf_help_item(tf_writers[i]->name, NULL, tf_writers[i]->description);
	tf_help_printf("\nglobal options:\n");
	tf_help_opt("-v", "--verbose", NULL, "more detail on stderr");
	tf_help_opt("-q", "--quiet", NULL, "no repair summary on stderr");
	tf_help_opt("-V", "--version", NULL, "the version and what this build has (features,\nlibraries)");
	tf_help_opt("-h", "--help", NULL, "this text: the commands and formats");
	tf_help_printf("\n"
		       "--mpi (an input option of the commands that read traces) shares the inputs\n"
		       "out among the processes of an MPI job: tracefold-mpi, built with 'make MPI=1',\n"
		       "under mpirun or srun (docs/distributed.md).\n"
		       "\n"
		       "'tracefold COMMAND --help' describes a command; docs/cli.md has everything.\n"
		       "\n"
		       "exit status: 0 success, 1 regression found (diff --fail-above, diff --gate),\n"
		       "             2 usage error, 3 unreadable or invalid input / output failure,\n"
		       "             4 diff --gate --fail-unresolved: a change the runs cannot resolve\n");
}

void tf_cmd_help(const char *cmd)
{
	if (!cmd) {
		tf_usage();
		return;
	}
	char name[64], help[] = "--help";
	snprintf(name, sizeof(name), "%s", cmd);
	char *argv[] = { name, help, NULL };
	tf_cmd_run(cmd, 2, argv);
}
