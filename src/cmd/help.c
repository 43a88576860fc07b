/* help.c - every command's --help, printed three ways from the same calls:
 * as text (the --help itself), as a man page (tracefold manpage) and as
 * the words a shell completes (tracefold completion).  A command's help
 * says its prose with tf_help_printf, its options with tf_help_opt (the
 * rows of its option table, tf_opts_help, and the shared input options)
 * and lists with tf_help_item; the man page and the completion words are
 * made by calling that same help (tf_help_man_begin, tf_help_words), so
 * they can never say other options than --help does (docs/install.md). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "help.h"

int tf_help_mode = TF_HELP_TEXT;
static FILE *g_text; /* text mode's stream; NULL: stdout */

void tf_help_to(FILE *f)
{
	g_text = f;
}

static FILE *text_out(void)
{
	return g_text ? g_text : stdout;
}

/* ---- man mode: prose is gathered until an option or an item (or the
 * end) comes, then turned into roff on g_man ---- */
static FILE *g_man;
static char *g_prose;
static size_t g_nprose, g_capprose;
static int g_nheads;       /* headings seen: the first is a .SH (OPTIONS) */
static bool g_all_sh;      /* tracefold(1): every heading is a section */
static bool g_described;   /* .SH DESCRIPTION said */

/* ---- words mode ---- */
static tf_help_word *g_words;
static size_t g_nwords, g_capwords;

/* Text as roff: backslashes escaped, every '-' a minus sign (options stay
 * what a reader can type); a line that would start with a control
 * character gets \&. */
static void roff_put(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (i == 0 && (c == '.' || c == '\''))
			fputs("\\&", g_man);
		if (c == '\\')
			fputs("\\e", g_man);
		else if (c == '-')
			fputs("\\-", g_man);
		else
			fputc(c, g_man);
	}
}

static void roff_puts(const char *s)
{
	roff_put(s, strlen(s));
}

/* One line of filled text: its leading blanks dropped, then roff_put. */
static void roff_line(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	if (!n)
		return;
	roff_put(s, n);
	/* "e.g." ending a line is no sentence's end: no wider space after it */
	if ((n >= 4 && (!memcmp(s + n - 4, "e.g.", 4) || !memcmp(s + n - 4, "i.e.", 4))) ||
	    (n >= 3 && !memcmp(s + n - 3, "vs.", 3)))
		fputs("\\&", g_man);
	fputc('\n', g_man);
}

/* "options:", "trace inputs:", "the gate (docs/gate.md):": a short line
 * in lower case ending in ':' that is no sentence */
static bool is_heading(const char *s, size_t n)
{
	if (n < 2 || n >= 72 || s[0] < 'a' || s[0] > 'z' || s[n - 1] != ':')
		return false;
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] == '.' && s[i + 1] == ' ')
			return false;
	return true;
}

/* What made the prose be turned into roff: an option, a list entry, the
 * end of the page. */
enum { AT_OPT, AT_ITEM, AT_END };

/* A heading: a section (.SH) on tracefold(1), for the first one (the
 * options), and for one that heads prose or a list; a subsection (.SS) for
 * a later group of options ("trace inputs", "the gate"). */
static void heading(const char *s, size_t n, bool sub)
{
	bool sh = g_all_sh || g_nheads == 0 || !sub;
	g_nheads++;
	fputs(sh ? ".SH " : ".SS ", g_man);
	char name[72];
	bool paren = false; /* a section's name is upper case, what it says in (...) not */
	for (size_t i = 0; i + 1 < n; i++) {
		char c = s[i];
		paren = paren || c == '(';
		if ((sh && !paren) || i == 0)
			c = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
		name[i] = c;
	}
	roff_put(name, n - 1);
	fputc('\n', g_man);
}

static void describe(void)
{
	if (!g_described)
		fputs(".SH DESCRIPTION\n", g_man);
	g_described = true;
}

/* A paragraph (lines without a blank one between): a heading, the usage
 * lines, the exit statuses, or text whose indented lines are shown as
 * they are. */
static void paragraph(const char *p, size_t n, bool options_follow)
{
	const char *end = p + n;
	const char *nl = memchr(p, '\n', n);
	if (!nl && is_heading(p, n)) {
		heading(p, n, options_follow);
		return;
	}
	/* a heading over its own text ("writing the outputs:\nEvery ...") */
	if (nl && is_heading(p, (size_t)(nl - p)) && memcmp(p, "exit status:", 12) && memcmp(p, "usage: ", 7)) {
		heading(p, (size_t)(nl - p), false);
		n -= (size_t)(nl + 1 - p);
		p = nl + 1;
	}
	if (n > 7 && !memcmp(p, "usage: ", 7)) {
		fputs(".SH SYNOPSIS\n.nf\n", g_man);
		for (const char *l = p; l < end;) {
			const char *e = memchr(l, '\n', (size_t)(end - l));
			size_t len = e ? (size_t)(e - l) : (size_t)(end - l);
			size_t skip = !memcmp(l, "usage: ", 7) ? 7 : 0;
			while (skip < len && l[skip] == ' ')
				skip++;
			roff_line(l + skip, len - skip);
			l += len + (e != NULL);
		}
		fputs(".fi\n", g_man);
		return;
	}
	/* the exit statuses: one filled paragraph (their lines are indented
	 * under "exit status:" in the text) */
	bool exits = n > 12 && !memcmp(p, "exit status:", 12);
	if (exits) {
		fputs(".SH EXIT STATUS\n", g_man);
		p += 12;
	} else {
		describe();
		fputs(".PP\n", g_man);
	}
	bool nf = false;
	for (const char *l = p; l < end;) {
		const char *e = memchr(l, '\n', (size_t)(end - l));
		size_t len = e ? (size_t)(e - l) : (size_t)(end - l);
		bool verb = !exits && len > 2 && l[0] == ' ' && l[1] == ' ';
		if (verb != nf)
			fputs(verb ? ".RS 2\n.nf\n" : ".fi\n.RE\n", g_man);
		nf = verb;
		if (verb) {
			roff_put(l + 2, len - 2);
			fputc('\n', g_man);
		} else {
			roff_line(l, len);
		}
		l += len + (e != NULL);
	}
	if (nf)
		fputs(".fi\n.RE\n", g_man);
}

/* Turns the prose gathered so far into roff, paragraph by paragraph; at:
 * what comes next (AT_*). */
static void flush_prose(int at)
{
	const char *p = g_prose, *end = g_prose + g_nprose;
	while (p < end) {
		while (p < end && *p == '\n')
			p++;
		const char *q = p;
		while (q < end && !(q[0] == '\n' && q + 1 < end && q[1] == '\n'))
			q++;
		size_t n = (size_t)(q - p);
		while (n && p[n - 1] == '\n')
			n--;
		const char *rest = q;
		while (rest < end && *rest == '\n')
			rest++;
		if (n)
			paragraph(p, n, at == AT_OPT && rest == end);
		p = q;
	}
	g_nprose = 0;
}

void tf_help_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (tf_help_mode == TF_HELP_TEXT) {
		vfprintf(text_out(), fmt, ap);
	} else if (tf_help_mode == TF_HELP_MAN) {
		va_list aq;
		va_copy(aq, ap);
		int n = vsnprintf(NULL, 0, fmt, aq);
		va_end(aq);
		if (n > 0 && g_nprose + (size_t)n + 1 > g_capprose) {
			size_t cap = (g_nprose + (size_t)n + 1) * 2;
			char *p = realloc(g_prose, cap);
			if (!p) {
				va_end(ap);
				return;
			}
			g_prose = p;
			g_capprose = cap;
		}
		if (n > 0) {
			vsnprintf(g_prose + g_nprose, (size_t)n + 1, fmt, ap);
			g_nprose += (size_t)n;
		}
	}
	va_end(ap);
}

/* An option or item in roff: .TP, the tag (its short name, if any, and
 * name in bold, its value in italics), then the text's lines. */
static void man_entry(int at, const char *short_name, const char *name, const char *value, const char *text)
{
	flush_prose(at);
	describe();
	fputs(".TP\n", g_man);
	if (short_name) {
		fputs("\\fB", g_man);
		roff_puts(short_name);
		fputs("\\fR, ", g_man);
	}
	fputs("\\fB", g_man);
	roff_puts(name);
	fputs("\\fR", g_man);
	if (value) {
		fputs(" \\fI", g_man);
		roff_puts(value);
		fputs("\\fR", g_man);
	}
	fputc('\n', g_man);
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		roff_line(p, len);
		p += len + (nl != NULL);
	}
}

static void add_word(const char *short_name, const char *long_name, const char *value, const char *help)
{
	if (g_nwords == g_capwords) {
		size_t cap = g_capwords ? g_capwords * 2 : 64;
		tf_help_word *w = realloc(g_words, cap * sizeof(*w));
		if (!w)
			return;
		g_words = w;
		g_capwords = cap;
	}
	tf_help_word *w = &g_words[g_nwords++];
	w->short_name = short_name ? strdup(short_name) : NULL;
	w->long_name = long_name ? strdup(long_name) : NULL;
	w->value = value ? strdup(value) : NULL;
	/* the help on one line */
	char *h = help ? strdup(help) : NULL;
	for (char *p = h; p && *p; p++)
		if (*p == '\n')
			*p = ' ';
	w->help = h;
}

void tf_help_opt(const char *short_name, const char *long_name, const char *value, const char *help)
{
	if (tf_help_mode == TF_HELP_WORDS) {
		add_word(short_name, long_name, value, help);
		return;
	}
	if (tf_help_mode == TF_HELP_MAN) {
		man_entry(AT_OPT, short_name, long_name, value, help);
		return;
	}
	char left[128];
	int n = snprintf(left, sizeof(left), "  %s%s%s%s%s", short_name ? short_name : "  ", short_name ? ", " : "  ",
			 long_name, value ? " " : "", value ? value : "");
	FILE *f = text_out();
	fprintf(f, "%s%*s", left, n <= 21 ? 23 - n : 2, "");
	for (const char *p = help; *p;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		fprintf(f, "%.*s\n", len, p);
		p += len + (nl != NULL);
		if (*p)
			fprintf(f, "%23s", "");
	}
}

void tf_help_item(const char *name, const char *page, const char *text)
{
	if (tf_help_mode == TF_HELP_TEXT) {
		fprintf(text_out(), "  %-10s %s\n", name, text);
	} else if (tf_help_mode == TF_HELP_MAN) {
		char body[1024];
		snprintf(body, sizeof(body), page ? "%s (%s(1))" : "%s", text, page);
		man_entry(AT_ITEM, NULL, name, NULL, body);
	}
}

void tf_opts_help(const tf_opt *table)
{
	bool h = false; /* -h said: it ends the first section */
	for (const tf_opt *o = table; o && o->long_name; o++) {
		if (o->id == TF_OPT_SECTION && !h) {
			tf_help_opt("-h", "--help", NULL, "this text");
			h = true;
		}
		if (o->id == TF_OPT_SECTION)
			tf_help_printf("\n%s\n", o->help);
		else if (o->help)
			tf_help_opt(o->short_name, o->long_name, o->has_value ? o->value : NULL, o->help);
	}
	if (!h)
		tf_help_opt("-h", "--help", NULL, "this text");
}

/* ---- running a help in another mode ---- */

void tf_help_man_begin(FILE *out, const char *page, const char *summary, bool main_page)
{
	g_man = out;
	g_nheads = 0;
	g_all_sh = main_page;
	g_described = false;
	g_nprose = 0;
	char upper[64];
	size_t i = 0;
	for (; page[i] && i + 1 < sizeof(upper); i++)
		upper[i] = page[i] >= 'a' && page[i] <= 'z' ? (char)(page[i] - 'a' + 'A') : page[i];
	upper[i] = 0;
	fprintf(out, ".\\\" %s(1): made by 'tracefold manpage' from the --help of tracefold %s\n.TH \"", page,
		TRACEFOLD_VERSION);
	roff_puts(upper);
	fprintf(out, "\" 1 \"\" \"tracefold %s\" \"tracefold manual\"\n.nh\n.ad l\n.SH NAME\n", TRACEFOLD_VERSION);
	roff_puts(page);
	fputs(" \\- ", out);
	roff_line(summary, strlen(summary));
	tf_help_mode = TF_HELP_MAN;
}

void tf_help_man_end(const char *see_also)
{
	flush_prose(AT_END);
	fputs(".SH SEE ALSO\n", g_man);
	roff_line(see_also, strlen(see_also));
	tf_help_mode = TF_HELP_TEXT;
	free(g_prose);
	g_prose = NULL;
	g_nprose = g_capprose = 0;
	g_man = NULL;
}

size_t tf_help_words(tf_help_fn fn, const char *cmd, const tf_help_word **out)
{
	tf_help_words_free();
	tf_help_mode = TF_HELP_WORDS;
	fn(cmd);
	tf_help_mode = TF_HELP_TEXT;
	*out = g_words;
	return g_nwords;
}

void tf_help_words_free(void)
{
	for (size_t i = 0; i < g_nwords; i++) {
		free((char *)g_words[i].short_name);
		free((char *)g_words[i].long_name);
		free((char *)g_words[i].value);
		free((char *)g_words[i].help);
	}
	free(g_words);
	g_words = NULL;
	g_nwords = g_capwords = 0;
}
