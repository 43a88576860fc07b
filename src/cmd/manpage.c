/* manpage.c - `tracefold manpage [-o DIR] [COMMAND]`: the man pages,
 * tracefold(1) and tracefold-COMMAND(1) for every command, made from the
 * commands' own --help (help.c, TF_HELP_MAN): NAME from the command
 * table's summary, SYNOPSIS from the usage lines, DESCRIPTION and OPTIONS
 * from the prose and the option tables, EXIT STATUS, SEE ALSO.  make
 * install writes them into share/man/man1 (docs/install.md). */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cmd.h"
#include "tracefold/io.h"

enum { O_OUTPUT, O_DOCDIR };

/* The page of cmd (NULL: tracefold(1)) on f. */
static void page(FILE *f, const char *cmd, const char *summary, const char **names, size_t nc, const char *docdir)
{
	char name[80], see[2048];
	snprintf(name, sizeof(name), cmd ? "tracefold-%s" : "tracefold", cmd);
	tf_help_man_begin(f, name, cmd ? summary : "traces into profiles, timelines, tables and reports", !cmd);
	tf_cmd_help(cmd);
	size_t n = 0;
	if (cmd) {
		n = (size_t)snprintf(see, sizeof(see), "tracefold(1).  ");
	} else {
		for (size_t i = 0; i < nc && n < sizeof(see); i++)
			n += (size_t)snprintf(see + n, sizeof(see) - n, "tracefold-%s(1)%s", names[i],
					      i + 1 < nc ? ", " : ".  ");
	}
	if (n < sizeof(see))
		snprintf(see + n, sizeof(see) - n, "Every option and format in detail: %s (cli.md, and a page per "
			 "format and analysis).", docdir ? docdir : "the docs/ folder of the tracefold sources");
	tf_help_man_end(see);
}

/* Writes the page to DIR/NAME.1, aside and renamed. */
static int write_page(const char *dir, const char *cmd, const char *summary, const char **names, size_t nc,
		      const char *docdir)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		tf_msg("manpage: out of memory");
		return TF_EXIT_INPUT;
	}
	page(f, cmd, summary, names, nc, docdir);
	if (fclose(f) != 0) {
		free(text);
		tf_msg("manpage: out of memory");
		return TF_EXIT_INPUT;
	}
	char path[4096];
	snprintf(path, sizeof(path), cmd ? "%s/tracefold-%s.1" : "%s/tracefold.1", dir, cmd);
	tf_error err = { 0 };
	int rc = tf_out_write_file(path, text, len, &err);
	free(text);
	return rc ? tf_report(&err) : TF_EXIT_OK;
}

static void help(const tf_opt *opts)
{
	tf_help_printf("usage: tracefold manpage [COMMAND]\n"
		       "       tracefold manpage -o DIR [--docdir DIR]\n"
		       "\n"
		       "Prints the man page of COMMAND (tracefold-COMMAND(1)), or tracefold(1)\n"
		       "without one, in roff: 'tracefold manpage diff | man -l -' shows it.  With\n"
		       "-o it writes every page into DIR (tracefold.1 and tracefold-COMMAND.1 for\n"
		       "each command; each written aside and renamed), as 'make install' does\n"
		       "into share/man/man1.  The pages are made from the commands' own --help,\n"
		       "so they say what this build takes.\n"
		       "\n"
		       "options:\n");
	tf_opts_help(opts);
	tf_help_printf("\nexit status: 0 ok, 2 usage error, 3 a page could not be written\n");
}

int tf_cmd_manpage(int argc, char **argv)
{
	static const tf_opt opts[] = {
		{ O_OUTPUT, "-o", "--output", true, "DIR", "write every page into DIR (made if missing)" },
		{ O_DOCDIR, NULL, "--docdir", true, "DIR", "where the pages say the documentation is\n"
		  "(make install: PREFIX/share/doc/tracefold)" },
		{ 0, NULL, NULL, false, NULL, NULL },
	};
	tf_optstate os = { 0 };
	const char *v, *dir = NULL, *docdir = NULL, *cmd = NULL;
	for (int id; (id = tf_opt_next("manpage", argc, argv, opts, NULL, &os, &v)) != TF_OPT_DONE;) {
		if (id == TF_OPT_USAGE)
			return TF_EXIT_USAGE;
		if (id == TF_OPT_HELP) {
			help(opts);
			return TF_EXIT_OK;
		}
		if (id == O_OUTPUT)
			dir = v;
		else if (id == O_DOCDIR)
			docdir = v;
		else if (cmd)
			return tf_usage_error("manpage", "one command at a time (or -o DIR for all)");
		else
			cmd = v;
	}
	const char *names[TF_CMD_MAX], *sums[TF_CMD_MAX];
	size_t nc = tf_cmd_names(names, sums);
	const char *summary = NULL;
	for (size_t i = 0; cmd && i < nc; i++)
		if (!strcmp(names[i], cmd))
			summary = sums[i];
	if (cmd && !summary)
		return tf_usage_error("manpage", "'%s' is not a command ('tracefold --help' lists them)", cmd);
	if (cmd && dir)
		return tf_usage_error("manpage", "-o writes every page: give no COMMAND with it");
	if (!dir) {
		page(stdout, cmd, summary, names, nc, docdir);
		return TF_EXIT_OK;
	}
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		tf_msg("manpage: cannot make the folder '%s': %s", dir, strerror(errno));
		return TF_EXIT_INPUT;
	}
	int rc = write_page(dir, NULL, NULL, names, nc, docdir);
	for (size_t i = 0; i < nc && rc == TF_EXIT_OK; i++)
		rc = write_page(dir, names[i], sums[i], names, nc, docdir);
	return rc;
}
