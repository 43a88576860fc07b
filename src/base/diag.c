/* diag.c - the diagnostics counters (diag.h): the table of diag.def, their
 * sums and their text.  Error codes and records are err.c. */
#include <stdio.h>
#include "tracefold/diag.h"
#include "sat.h"

static const struct {
	const char *name;
	tf_severity sev;
	const char *text;
} diag_table[TF_DIAG_COUNT] = {
#define X(id, sev, text) { #id, TF_SEV_##sev, text },
#include "tracefold/diag.def"
#undef X
};

const char *tf_diag_name(tf_diag_id id) { return diag_table[id].name; }
const char *tf_diag_text(tf_diag_id id) { return diag_table[id].text; }
bool tf_diag_timed(tf_diag_id id)
{
	return tf_diag_severity(id) == TF_SEV_REPAIR || id == TF_DIAG_window_clipped || id == TF_DIAG_gpu_attributed ||
	       id == TF_DIAG_gpu_unattributed || id == TF_DIAG_gpu_unattributed_no_corr ||
	       id == TF_DIAG_gpu_unattributed_early || id == TF_DIAG_gpu_unattributed_no_launch ||
	       id == TF_DIAG_gpu_op_unknown;
}

tf_severity tf_diag_severity(tf_diag_id id) { return diag_table[id].sev; }

void tf_diag_add(tf_diag *dst, const tf_diag *src)
{
	for (int i = 0; i < TF_DIAG_COUNT; i++) {
		dst->n[i] += src->n[i];
		dst->ns[i] = tf_sat_addu(dst->ns[i], src->ns[i]);
	}
}

void tf_diag_repair(tf_diag *d, tf_diag_id id, int64_t ns)
{
	d->n[id]++;
	if (ns > 0)
		d->ns[id] = tf_sat_addu(d->ns[id], (uint64_t)ns);
}

uint64_t tf_diag_problems(const tf_diag *d)
{
	uint64_t n = 0;
	for (int i = 0; i < TF_DIAG_COUNT; i++)
		if (diag_table[i].sev == TF_SEV_REPAIR || diag_table[i].sev == TF_SEV_WARN)
			n += d->n[i];
	return n;
}

void tf_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	double v = (double)ns;
	if (v >= 1e9)
		snprintf(buf, len, "%.6g s", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.6g ms", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.6g us", v / 1e3);
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
}

void tf_diag_format(const tf_diag *d, tf_severity min_sev, const char *sep, int human, char *buf, size_t len)
{
	size_t used = 0;
	if (len)
		buf[0] = 0;
	for (int i = 0; i < TF_DIAG_COUNT; i++) {
		if (!d->n[i])
			continue;
		tf_severity s = diag_table[i].sev;
		/* INFO < SKIP < REPAIR < WARN in importance */
		int rank = s == TF_SEV_INFO ? 0 : s == TF_SEV_SKIP ? 1 : s == TF_SEV_REPAIR ? 2 : 3;
		int min = min_sev == TF_SEV_INFO ? 0 : min_sev == TF_SEV_SKIP ? 1 : min_sev == TF_SEV_REPAIR ? 2 : 3;
		if (rank < min)
			continue;
		char moved[64] = "";
		if (d->ns[i] && human) {
			char t[32];
			tf_fmt_ns(d->ns[i], t, sizeof(t));
			snprintf(moved, sizeof(moved), " (moved %s)", t);
		} else if (d->ns[i]) {
			snprintf(moved, sizeof(moved), "%s%s_ns=%llu", sep, diag_table[i].name,
				 (unsigned long long)d->ns[i]);
		}
		int w = snprintf(buf + used, used < len ? len - used : 0, "%s%s=%llu%s",
				 used ? sep : "", diag_table[i].name, (unsigned long long)d->n[i], moved);
		if (w < 0)
			break;
		used += (size_t)w;
		if (used >= len)
			break;
	}
}
