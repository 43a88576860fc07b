/* overview_html.c - the HTML page of `tracefold overview` (placeholder
 * until the page lands: the text report in a <pre>). */
#include <stdio.h>
#include "overview.h"

int tf_ov_print(FILE *f, const tf_ov_report *r, int fmt);

int tf_ov_print_html(FILE *f, const tf_ov_report *r)
{
	fputs("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>tracefold overview</title></head><body><pre>", f);
	int rc = tf_ov_print(f, r, 0);
	fputs("</pre></body></html>\n", f);
	return rc;
}
