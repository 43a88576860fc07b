/* help.h - a command's --help, said once and printed as text, as a man
 * page or as the words a shell completes (help.c, docs/install.md). */
#ifndef TRACEFOLD_HELP_H
#define TRACEFOLD_HELP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum {
	TF_HELP_TEXT = 0, /* --help: text on stdout */
	TF_HELP_MAN,      /* roff into the page tf_help_man_begin opened */
	TF_HELP_WORDS,    /* the options only, kept for tf_help_words */
};
extern int tf_help_mode;
/* Where text mode prints (NULL: stdout, the default). */
void tf_help_to(FILE *f);

/* The prose of a help: "usage: tracefold CMD ..." lines, paragraphs
 * (blank lines between; lines indented two spaces or more are shown as
 * they are), headings ("options:" alone on a line; the first is a man
 * section, later ones subsections) and "exit status: ..." (a man section
 * of its own). */
void tf_help_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A named entry of a list (commands, formats): "  NAME       text"; page:
 * its man page, named in the man page's entry (NULL: none). */
void tf_help_item(const char *name, const char *page, const char *text);

/* Prints the help of command cmd (NULL: tracefold's own), in the mode
 * set. */
typedef void (*tf_help_fn)(const char *cmd);

/* Opens a man page on out: its .TH and NAME ("page - summary"), then man
 * mode; main_page: every heading is a section (tracefold(1)).  End: the
 * rest of the prose, SEE ALSO, text mode again. */
void tf_help_man_begin(FILE *out, const char *page, const char *summary, bool main_page);
void tf_help_man_end(const char *see_also);

/* An option as the help said it (copies; help: its lines joined by spaces). */
typedef struct tf_help_word {
	const char *short_name, *long_name, *value, *help;
} tf_help_word;
/* The options fn(cmd) says, in the order said (valid until the next call
 * or tf_help_words_free). */
size_t tf_help_words(tf_help_fn fn, const char *cmd, const tf_help_word **out);
void tf_help_words_free(void);

#endif
