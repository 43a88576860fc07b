/* completion.c - `tracefold completion bash|zsh`: a shell completion
 * script made from the commands' own --help (help.c, TF_HELP_WORDS): the
 * commands, each one's options, the values some options take (input and
 * output format names from the registries, the words of --format and
 * --by), files and folders where an option or argument names one.
 * make install puts them where bash-completion and zsh look
 * (docs/install.md). */
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "tracefold/reader.h"
#include "tracefold/writer.h"

/* What an option's value is completed with. */
enum { V_NONE, V_FILE, V_DIR, V_WORDS };

/* The words some options take, per command (NULL: any command). */
static const struct {
	const char *cmd, *opt, *words;
} choices[] = {
	{ "info", "--format", "text json" },
	{ NULL, "--format", "text markdown json" },
	{ "top", "--by", "self total calls" },
	{ "diff", "--by", "self total" },
	{ "flame", "--by", "rank thread" },
	{ "flame", "--colors", "hash category" },
	{ NULL, "--sample-type", "wall gpu calls" },
	{ NULL, "--sample-index", "wall gpu calls" },
	{ NULL, "--phases", "x be" },
	{ "events", "--compression", "none zstd gzip" },
	{ "perfetto", "--compression", "deflate none" },
	{ "convert", "--compression", "none zstd gzip deflate" },
	{ NULL, "--partition", "rank rank,step rank,time=1s none" },
};

/* The words of a command's first argument (NULL words: the command names). */
static const struct {
	const char *cmd, *words;
} positional[] = {
	{ "history", "add" },
	{ "completion", "bash zsh" },
	{ "manpage", NULL },
};

static char g_formats[512], g_writers[512], g_commands[1024];

static const char *first_words(const char *cmd)
{
	for (size_t i = 0; i < sizeof(positional) / sizeof(positional[0]); i++)
		if (!strcmp(positional[i].cmd, cmd))
			return positional[i].words ? positional[i].words : g_commands;
	return NULL;
}

/* An option's names, the short one first: "-n|--count" (sep "|"). */
static void put_names(const tf_help_word *w, const char *sep)
{
	if (w->short_name)
		printf("%s%s", w->short_name, sep);
	fputs(w->long_name, stdout);
}

/* How w's value is completed (*words: the words for V_WORDS). */
static int value_kind(const char *cmd, const tf_help_word *w, const char **words)
{
	if (!w->value)
		return V_NONE;
	if (!strcmp(w->long_name, "--input-format")) {
		*words = g_formats;
		return V_WORDS;
	}
	if (!strcmp(w->long_name, "--to")) {
		*words = g_writers;
		return V_WORDS;
	}
	for (size_t i = 0; i < sizeof(choices) / sizeof(choices[0]); i++)
		if ((!choices[i].cmd || !strcmp(choices[i].cmd, cmd)) && !strcmp(choices[i].opt, w->long_name)) {
			*words = choices[i].words;
			return V_WORDS;
		}
	if (strstr(w->value, "DIR"))
		return V_DIR;
	if (strstr(w->value, "FILE") || strstr(w->value, "OUT") || strstr(w->value, "BASE") ||
	    strstr(w->value, "PROFILE"))
		return V_FILE;
	return V_NONE;
}

/* Appends name to the space-separated list in buf (at: its length). */
static void add_name(char *buf, size_t size, size_t *at, const char *name)
{
	if (*at < size)
		*at += (size_t)snprintf(buf + *at, size - *at, "%s%s", *at ? " " : "", name);
}

static void list_names(const char **names, size_t nc)
{
	size_t nc_at = 0, nf = 0, nw = 0;
	g_commands[0] = g_formats[0] = g_writers[0] = 0;
	for (size_t i = 0; i < nc; i++)
		add_name(g_commands, sizeof(g_commands), &nc_at, names[i]);
	for (int i = 0; tf_formats[i]; i++)
		add_name(g_formats, sizeof(g_formats), &nf, tf_formats[i]->name);
	for (int i = 0; tf_writers[i]; i++)
		add_name(g_writers, sizeof(g_writers), &nw, tf_writers[i]->name);
}

/* ---- bash ---- */

/* Whether w's long name came before index i (writers may share an
 * option: convert lists it once per writer). */
static bool said_before(const tf_help_word *w, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (!strcmp(w[k].long_name, w[i].long_name))
			return true;
	return false;
}

/* The bash action of a value of kind k. */
static void bash_action(int k, const char *words)
{
	if (k == V_WORDS)
		printf(" _tracefold_reply -W '%s'; return ;;\n", words);
	else if (k == V_DIR)
		printf(" _tracefold_reply -d; return ;;\n");
	else if (k == V_FILE)
		printf(" _tracefold_reply -f; return ;;\n");
	else
		printf(" return ;;\n");
}

static void bash_cmd(const char *cmd)
{
	const tf_help_word *w;
	size_t n = tf_help_words(tf_cmd_help, cmd, &w);
	printf("\t%s)\n\t\topts='", cmd);
	for (size_t i = 0, said = 0; i < n; i++)
		if (!said_before(w, i)) {
			fputs(said++ ? " " : "", stdout);
			put_names(&w[i], " ");
		}
	printf("'\n");
	const char *words1 = first_words(cmd);
	if (words1)
		printf("\t\tfirst='%s'\n", words1);
	printf("\t\tcase $prev in\n");
	/* the options whose values complete alike (to nothing: no file names
	 * offered; to files; to folders), one pattern a kind; those with words,
	 * one pattern each */
	const char *words;
	for (int k = V_NONE; k < V_WORDS; k++) {
		bool any = false;
		for (size_t i = 0; i < n; i++) {
			if (!w[i].value || said_before(w, i) || value_kind(cmd, &w[i], &words) != k)
				continue;
			fputs(any ? "|" : "\t\t", stdout);
			put_names(&w[i], "|");
			any = true;
		}
		if (any) {
			printf(")");
			bash_action(k, NULL);
		}
	}
	for (size_t i = 0; i < n; i++)
		if (w[i].value && !said_before(w, i) && value_kind(cmd, &w[i], &words) == V_WORDS) {
			fputs("\t\t", stdout);
			put_names(&w[i], "|");
			printf(")");
			bash_action(V_WORDS, words);
		}
	printf("\t\tesac ;;\n");
}

static void bash(const char **names, size_t nc)
{
	printf("# bash completion for tracefold: made by 'tracefold completion bash' from the\n"
	       "# commands' --help (tracefold %s); make install puts it in\n"
	       "# share/bash-completion/completions/tracefold.\n"
	       "_tracefold_reply()\n{\n"
	       "\tmapfile -t COMPREPLY < <(compgen \"$@\" -- \"$cur\")\n"
	       "}\n"
	       "_tracefold()\n{\n"
	       "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd='' i k opts='' first=''\n"
	       "\tCOMPREPLY=()\n"
	       "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	       "\t\tcase ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac\n"
	       "\tdone\n"
	       "\tif [[ -z $cmd ]]; then\n"
	       "\t\tif [[ $cur == -* ]]; then\n"
	       "\t\t\t_tracefold_reply -W '",
	       TRACEFOLD_VERSION);
	/* tracefold's own options, as tracefold --help says them */
	const tf_help_word *g;
	size_t ng = tf_help_words(tf_cmd_help, NULL, &g);
	for (size_t i = 0; i < ng; i++) {
		fputs(i ? " " : "", stdout);
		put_names(&g[i], " ");
	}
	printf("'\n"
	       "\t\telse\n\t\t\t_tracefold_reply -W '%s'\n"
	       "\t\tfi\n\t\treturn\n\tfi\n"
	       "\t# after '--' every word is an argument (a file)\n"
	       "\tfor ((k = i + 1; k < COMP_CWORD; k++)); do\n"
	       "\t\tif [[ ${COMP_WORDS[k]} == -- ]]; then _tracefold_reply -f; return; fi\n"
	       "\tdone\n"
	       "\tcase $cmd in\n",
	       g_commands);
	for (size_t i = 0; i < nc; i++)
		bash_cmd(names[i]);
	printf("\t*) return ;;\n\tesac\n"
	       "\tif [[ $cur == -* ]]; then\n"
	       "\t\t_tracefold_reply -W \"$opts\"\n"
	       "\telif [[ -n $first && $((COMP_CWORD - i)) == 1 ]]; then\n"
	       "\t\t_tracefold_reply -W \"$first\"\n"
	       "\telse\n"
	       "\t\t_tracefold_reply -f\n"
	       "\tfi\n"
	       "}\n"
	       "complete -o filenames -o bashdefault -F _tracefold tracefold tracefold-mpi\n");
	tf_help_words_free();
}

/* ---- zsh ---- */

/* Text inside a single-quoted zsh word and an _arguments spec: the
 * quote closed and opened again, brackets and colons escaped; at most max
 * bytes, cut after a word (with "..."). */
static void zsh_text(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;
	bool cut = n > max;
	if (cut) {
		n = max;
		while (n && s[n] != ' ')
			n--;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'')
			fputs("'\\''", stdout);
		else if (s[i] == '[' || s[i] == ']' || s[i] == ':' || s[i] == '\\')
			printf("\\%c", s[i]);
		else
			putchar(s[i]);
	}
	if (cut)
		fputs("...", stdout);
}

static void zsh_opt(const char *cmd, const tf_help_word *w, const char *name)
{
	const char *words = NULL;
	int k = value_kind(cmd, w, &words);
	printf("\t\t\t'*%s[", name);
	zsh_text(w->help, 72);
	putchar(']');
	if (w->value) {
		printf(":");
		zsh_text(w->value, 40);
		if (k == V_WORDS)
			printf(":(%s)", words);
		else if (k == V_DIR)
			printf(":_files -/");
		else if (k == V_FILE)
			printf(":_files");
		else
			printf(": ");
	}
	printf("' \\\n");
}

/* The _arguments specs of the options cmd's help says (NULL: tracefold's
 * own), each name once. */
static void zsh_opts(const char *cmd)
{
	const tf_help_word *w;
	size_t n = tf_help_words(tf_cmd_help, cmd, &w);
	for (size_t i = 0; i < n; i++) {
		if (said_before(w, i))
			continue;
		if (w[i].short_name)
			zsh_opt(cmd ? cmd : "", &w[i], w[i].short_name);
		zsh_opt(cmd ? cmd : "", &w[i], w[i].long_name);
	}
}

static void zsh_cmd(const char *cmd)
{
	printf("\t\t%s)\n\t\t\t_arguments -S \\\n", cmd);
	zsh_opts(cmd);
	const char *first = first_words(cmd);
	if (first)
		printf("\t\t\t'1:argument:(%s)' \\\n", first);
	printf("\t\t\t'*:file:_files' ;;\n");
}

static void zsh(const char **names, const char **sums, size_t nc)
{
	printf("#compdef tracefold tracefold-mpi\n"
	       "# zsh completion for tracefold: made by 'tracefold completion zsh' from the\n"
	       "# commands' --help (tracefold %s); make install puts it in\n"
	       "# share/zsh/site-functions/_tracefold.\n"
	       "_tracefold() {\n"
	       "\tlocal curcontext=$curcontext state line\n"
	       "\tlocal -a commands\n"
	       "\tcommands=(\n",
	       TRACEFOLD_VERSION);
	for (size_t i = 0; i < nc; i++) {
		printf("\t\t'%s:", names[i]);
		zsh_text(sums[i], 200);
		printf("'\n");
	}
	printf("\t)\n\t_arguments -C \\\n");
	zsh_opts(NULL);
	printf("\t\t'1:command:->command' \\\n"
	       "\t\t'*::argument:->argument' && return 0\n"
	       "\tcase $state in\n"
	       "\tcommand)\n"
	       "\t\t_describe -t commands 'tracefold command' commands ;;\n"
	       "\targument)\n"
	       "\t\tcurcontext=${curcontext%%:*:*}:tracefold-$line[1]:\n"
	       "\t\tcase $line[1] in\n");
	for (size_t i = 0; i < nc; i++)
		zsh_cmd(names[i]);
	printf("\t\tesac ;;\n\tesac\n}\n_tracefold \"$@\"\n");
	tf_help_words_free();
}

static void help(const tf_opt *opts)
{
	tf_help_printf("usage: tracefold completion bash|zsh\n"
		       "\n"
		       "Prints a completion script for bash or zsh: the commands, each\n"
		       "command's options, the input and output format names after -F and\n"
		       "--to, the words --format and --by take, and file or folder names where\n"
		       "an option or an argument is one.  It is made from the commands' own\n"
		       "--help, so it completes what this build takes.  'make install' puts\n"
		       "them where bash-completion and zsh find them; or, by hand:\n"
		       "\n"
		       "  source <(tracefold completion bash)          # bash, this shell\n"
		       "  tracefold completion zsh > ~/.zfunc/_tracefold # zsh, with ~/.zfunc in fpath\n"
		       "\n"
		       "options:\n");
	tf_opts_help(opts);
	tf_help_printf("\nexit status: 0 ok, 2 usage error\n");
}

int tf_cmd_completion(int argc, char **argv)
{
	static const tf_opt opts[] = { { 0, NULL, NULL, false, NULL, NULL } };
	tf_optstate os = { 0 };
	const char *v, *shell = NULL;
	for (int id; (id = tf_opt_next("completion", argc, argv, opts, NULL, &os, &v)) != TF_OPT_DONE;) {
		if (id == TF_OPT_USAGE)
			return TF_EXIT_USAGE;
		if (id == TF_OPT_HELP) {
			help(opts);
			return TF_EXIT_OK;
		}
		if (shell)
			return tf_usage_error("completion", "one shell only (bash or zsh)");
		shell = v;
	}
	if (!shell || (strcmp(shell, "bash") && strcmp(shell, "zsh")))
		return tf_usage_error("completion", "name the shell: bash or zsh%s%s%s", shell ? " (not '" : "",
				      shell ? shell : "", shell ? "')" : "");
	const char *names[TF_CMD_MAX], *sums[TF_CMD_MAX];
	size_t nc = tf_cmd_names(names, sums);
	list_names(names, nc);
	if (!strcmp(shell, "bash"))
		bash(names, nc);
	else
		zsh(names, sums, nc);
	return TF_EXIT_OK;
}
