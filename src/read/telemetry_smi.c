/* telemetry_smi.c - GPU telemetry from the vendors' tools as counter
 * tracks (docs/telemetry.md), one track per device ("GPU 0"):
 *
 *   nvidia-smi --query-gpu=timestamp,index,utilization.gpu,... --format=csv -lms N
 *     timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W]
 *     2026/11/27 10:11:12.345, 0, 35 %, 1234 MiB, 75.12 W
 *   (,nounits: no unit after the values, the header still names it;
 *   ,noheader: no header, so the query must be the first line:
 *   "# nvidia-smi --query-gpu=timestamp,index,...", as samples/telemetry.sh
 *   writes it).  The timestamp is the machine's local time: it is read in
 *   the time zone of TZ (the environment; unset: the machine's).
 *
 *   rocm-smi --showuse --showpower --showmemuse --showtemp --csv, in a loop,
 *   each row after a time_ns column (CLOCK_REALTIME ns) that the loop
 *   prefixes (rocm-smi writes no time; samples/telemetry.sh --rocm-smi):
 *     time_ns,device,Temperature (Sensor edge) (C),...,GPU use (%),...
 *     1795000000000000000,card0,34.0,...,12,...
 *   The header of every round is skipped when it is the same.
 *
 * Known columns get tracefold's names and units (gpu.utilization %,
 * gpu.memory_used bytes, gpu.power W, gpu.sm_clock MHz, gpu.temperature
 * C ...); other numeric ones are kept as "nvidia-smi.<field>" or
 * "rocm-smi.<header>" in their own unit; text columns (name, pstate, the
 * first row says) are left out.  "[N/A]", "[Not Supported]": skipped and
 * counted (telemetry_na), never zero. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "telemetry.h"
#include "json.h"

enum { C_TEXT = 0, C_TIME, C_DEVICE, C_VALUE, C_UNDECIDED };

typedef struct smi_col {
	int role;
	tf_str name;
	double scale;
} smi_col;

typedef struct smi {
	bool rocm;
	int ncol;                 /* 0 before the header */
	smi_col c[TEL_MAX_FIELDS];
	char header[4096];        /* rocm: the header, to skip its repeats */
	size_t nheader;
	char day[20];             /* nvidia: the last "YYYY/MM/DD HH:MM:SS" and its epoch seconds */
	int64_t day_s;
} smi;

typedef struct known {
	const char *field, *name;
	double scale;
} known;

static const known nv_known[] = {
	{ "utilization.gpu", "gpu.utilization", 1 },
	{ "utilization.memory", "gpu.memory_utilization", 1 },
	{ "memory.used", "gpu.memory_used", 1048576.0 },
	{ "memory.total", "gpu.memory_total", 1048576.0 },
	{ "memory.free", "gpu.memory_free", 1048576.0 },
	{ "power.draw", "gpu.power", 1 },
	{ "power.draw.instant", "gpu.power", 1 },
	{ "power.draw.average", "gpu.power_average", 1 },
	{ "clocks.sm", "gpu.sm_clock", 1 },
	{ "clocks.current.sm", "gpu.sm_clock", 1 },
	{ "clocks.mem", "gpu.memory_clock", 1 },
	{ "clocks.current.memory", "gpu.memory_clock", 1 },
	{ "clocks.gr", "gpu.graphics_clock", 1 },
	{ "clocks.current.graphics", "gpu.graphics_clock", 1 },
	{ "temperature.gpu", "gpu.temperature", 1 },
	{ "temperature.memory", "gpu.memory_temperature", 1 },
	{ "fan.speed", "gpu.fan_speed", 1 },
	{ NULL, NULL, 0 },
};

static const known rocm_known[] = {
	{ "GPU use (%)", "gpu.utilization", 1 },
	{ "GPU memory use (%)", "gpu.memory_utilization", 1 },
	{ "GPU Memory Allocated (VRAM%)", "gpu.memory_utilization", 1 },
	{ "VRAM Total Used Memory (B)", "gpu.memory_used", 1 },
	{ "VRAM Total Memory (B)", "gpu.memory_total", 1 },
	{ "Average Graphics Package Power (W)", "gpu.power", 1 },
	{ "Current Socket Graphics Package Power (W)", "gpu.power", 1 },
	{ "Temperature (Sensor edge) (C)", "gpu.temperature", 1 },
	{ "Temperature (Sensor junction) (C)", "gpu.junction_temperature", 1 },
	{ "Temperature (Sensor memory) (C)", "gpu.memory_temperature", 1 },
	{ "sclk clock speed:", "gpu.sm_clock", 1 },
	{ "mclk clock speed:", "gpu.memory_clock", 1 },
	{ NULL, NULL, 0 },
};

static int col_named(tel_rd *r, smi_col *c, const char *prefix, const char *f, size_t n, double scale)
{
	char buf[200];
	int w = snprintf(buf, sizeof(buf), "%s%.*s", prefix, (int)n, f);
	if ((c->name = tf_strtab_intern(r->st, buf, w > 0 && (size_t)w < sizeof(buf) ? (size_t)w : strlen(buf))) ==
	    (tf_str)-1)
		return TF_ENOMEM;
	c->scale = scale;
	return 0;
}

/* An nvidia-smi header field: "memory.used [MiB]" (the unit sets the scale). */
static int nv_col(tel_rd *r, smi_col *c, const tel_field *f)
{
	size_t n = f->n, un = 0;
	const char *u = NULL;
	const char *br = memchr(f->p, '[', f->n);
	if (br && f->p[f->n - 1] == ']') {
		u = br + 1;
		un = (size_t)(f->p + f->n - 1 - u);
		n = (size_t)(br - f->p);
		while (n && f->p[n - 1] == ' ')
			n--;
	}
	tel_field name = { f->p, n };
	c->role = C_UNDECIDED;
	if (tel_is(&name, "timestamp")) {
		c->role = C_TIME;
		return 0;
	}
	if (tel_is(&name, "index")) {
		c->role = C_DEVICE;
		return 0;
	}
	double scale = u ? tel_unit_bytes(u, un) : 0;
	for (const known *k = nv_known; k->field; k++)
		if (tel_is(&name, k->field)) {
			c->role = C_VALUE;
			return col_named(r, c, "", k->name, strlen(k->name), scale ? scale : k->scale);
		}
	return col_named(r, c, "nvidia-smi.", name.p, name.n, scale ? scale : 1);
}

static int rocm_col(tel_rd *r, smi_col *c, const tel_field *f, int i)
{
	c->role = C_UNDECIDED;
	if (i == 0) {
		if (!tel_is(f, "time_ns"))
			return 1;
		c->role = C_TIME;
		return 0;
	}
	if (tel_is(f, "device")) {
		c->role = C_DEVICE;
		return 0;
	}
	for (const known *k = rocm_known; k->field; k++)
		if (tel_is(f, k->field)) {
			c->role = C_VALUE;
			return col_named(r, c, "", k->name, strlen(k->name), k->scale);
		}
	return col_named(r, c, "rocm-smi.", f->p, f->n, 1);
}

static int header(tel_rd *r, smi *m, const char *s, size_t n, uint64_t off)
{
	tel_field f[TEL_MAX_FIELDS];
	int k = tel_split(s, n, f, TEL_MAX_FIELDS);
	if (k < 0)
		return tel_error(r, off, "more than %d columns", TEL_MAX_FIELDS);
	bool time = false, dev = false;
	for (int i = 0; i < k; i++) {
		int rc = m->rocm ? rocm_col(r, &m->c[i], &f[i], i) : nv_col(r, &m->c[i], &f[i]);
		if (rc < 0)
			return rc;
		if (rc > 0)
			return tel_error(r, off, "no time_ns column first: rocm-smi writes no time, so its rows must "
				    "follow a CLOCK_REALTIME ns column (samples/telemetry.sh --rocm-smi writes them)");
		time |= m->c[i].role == C_TIME;
		dev |= m->c[i].role == C_DEVICE;
	}
	if (!time)
		return tel_error(r, off, "no timestamp column (query timestamp first: --query-gpu=timestamp,index,...)");
	if (m->rocm && !dev)
		return tel_error(r, off, "no device column");
	m->ncol = k;
	if (m->rocm && n >= sizeof(m->header))
		return tel_error(r, off, "a header of more than 4095 bytes");
	if (m->rocm) {
		memcpy(m->header, s, n);
		m->nheader = n;
	}
	return 0;
}

static int digits(const char *s, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* nvidia-smi's "YYYY/MM/DD HH:MM:SS.mmm", local time (TZ), to epoch ns. */
static bool nv_time(smi *m, const tel_field *f, int64_t *ns)
{
	const char *s = f->p;
	if (f->n < 19 || s[4] != '/' || s[7] != '/' || s[10] != ' ' || s[13] != ':' || s[16] != ':')
		return false;
	int64_t frac = 0;
	if (f->n > 19) {
		if (s[19] != '.' || f->n > 29 || f->n == 20)
			return false;
		int d = digits(s + 20, (int)f->n - 20);
		if (d < 0)
			return false;
		frac = d;
		for (size_t i = f->n - 20; i < 9; i++)
			frac *= 10;
	}
	if (memcmp(m->day, s, 19) != 0) {
		int Y = digits(s, 4), M = digits(s + 5, 2), D = digits(s + 8, 2), h = digits(s + 11, 2),
		    mi = digits(s + 14, 2), se = digits(s + 17, 2);
		if (Y < 1970 || Y > 2261 || M < 1 || M > 12 || D < 1 || D > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 ||
		    se > 60)
			return false;
		struct tm tm = { .tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D, .tm_hour = h, .tm_min = mi,
				 .tm_sec = se, .tm_isdst = -1 };
		time_t t = mktime(&tm);
		if (t == (time_t)-1)
			return false;
		memcpy(m->day, s, 19);
		m->day_s = (int64_t)t;
	}
	*ns = m->day_s * 1000000000 + frac;
	return true;
}

/* The first row decides the columns nobody named: a number is a value,
 * anything else text. */
static void decide(smi *m, const tel_field *f)
{
	for (int i = 0; i < m->ncol; i++) {
		double v;
		if (m->c[i].role == C_UNDECIDED)
			m->c[i].role = tel_value(&f[i], 1, &v) >= 0 ? C_VALUE : C_TEXT;
	}
}

static int row(tel_rd *r, smi *m, const char *s, size_t n, uint64_t off)
{
	tel_field f[TEL_MAX_FIELDS];
	int k = tel_split(s, n, f, TEL_MAX_FIELDS);
	if (k != m->ncol)
		return tel_error(r, off, "%d columns where the header has %d: '%.*s'", k, m->ncol, (int)(n > 60 ? 60 : n), s);
	decide(m, f);
	int64_t ns = 0;
	char dev[80] = "GPU";
	size_t dn = 3;
	for (int i = 0; i < k; i++) {
		if (m->c[i].role == C_TIME) {
			bool ok = m->rocm ? tf_json_decimal_scaled(f[i].p, f[i].n, 0, &ns) == 0 : nv_time(m, &f[i], &ns);
			if (!ok)
				return tel_error(r, off, "'%.*s' is not a time (%s)", (int)(f[i].n > 40 ? 40 : f[i].n),
						 f[i].p, m->rocm ? "CLOCK_REALTIME ns" : "YYYY/MM/DD HH:MM:SS.mmm");
		} else if (m->c[i].role == C_DEVICE && f[i].n) {
			const char *d = f[i].p;
			size_t len = f[i].n;
			if (len > 4 && !memcmp(d, "card", 4)) /* rocm-smi: card0 */
				d += 4, len -= 4;
			dn = (size_t)snprintf(dev, sizeof(dev), "GPU %.*s", (int)(len > 60 ? 60 : len), d);
		}
	}
	for (int i = 0; i < k; i++) {
		if (m->c[i].role != C_VALUE)
			continue;
		double v;
		int ok = tel_value(&f[i], m->c[i].scale, &v);
		if (ok < 0)
			return tel_error(r, off, "column %d: '%.*s' is not a number", i + 1,
					 (int)(f[i].n > 40 ? 40 : f[i].n), f[i].p);
		if (ok == 0)
			tel_skip_na(r);
		else
			TF_TRY(tel_emit(r, dev, dn, m->c[i].name, ns, v));
	}
	return 0;
}

static int smi_line(tel_rd *r, const char *s, size_t n, uint64_t off)
{
	smi *m = r->fmt;
	static const char query[] = "--query-gpu=";
	if (s[0] == '#') { /* nvidia-smi ,noheader: the query written before it */
		const char *q = NULL;
		for (size_t i = 0; !m->rocm && !m->ncol && !q && i + sizeof(query) - 1 <= n; i++)
			if (!memcmp(s + i, query, sizeof(query) - 1))
				q = s + i + sizeof(query) - 1;
		if (!q)
			return 0;
		const char *e = q;
		while (e < s + n && *e != ' ')
			e++;
		return header(r, m, q, (size_t)(e - q), off);
	}
	if (!m->ncol) {
		if (!m->rocm && n > 4 && s[0] >= '0' && s[0] <= '9' && s[4] == '/')
			return tel_error(r, off, "a row before any header (--format=csv,noheader): write the query as a "
					 "first line '# nvidia-smi --query-gpu=timestamp,index,...'");
		return header(r, m, s, n, off);
	}
	if (m->rocm && n == m->nheader && !memcmp(s, m->header, n))
		return 0; /* the next round's header */
	return row(r, m, s, n, off);
}

static int nv_read(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	smi *m = calloc(1, sizeof(*m));
	if (!m)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	tzset();
	int rc = tel_read(path, input, ctx, sink, err, "nvidia-smi CSV", smi_line, m);
	free(m);
	return rc;
}

static int rocm_read(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	smi *m = calloc(1, sizeof(*m));
	if (!m)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	m->rocm = true;
	int rc = tel_read(path, input, ctx, sink, err, "rocm-smi CSV", smi_line, m);
	free(m);
	return rc;
}

static bool starts(const unsigned char *h, size_t n, const char *lit)
{
	size_t m = strlen(lit);
	return n >= m && memcmp(h, lit, m) == 0;
}

/* "timestamp, " then a field with a '.' (utilization.gpu) or "index";
 * "# nvidia-smi --query-gpu="; or a noheader row "YYYY/MM/DD HH:MM:SS". */
static int nv_sniff(const char *path, int is_dir, const unsigned char *h, size_t n, bool whole)
{
	(void)path;
	(void)whole;
	if (is_dir)
		return TF_SNIFF_NO;
	if (starts(h, n, "# nvidia-smi --query-gpu=") || starts(h, n, "timestamp, index") ||
	    starts(h, n, "timestamp, utilization.") || starts(h, n, "timestamp, name, ") ||
	    starts(h, n, "timestamp, power.") || starts(h, n, "timestamp, memory.") || starts(h, n, "timestamp, pci."))
		return TF_SNIFF_YES;
	if (n >= 25 && h[4] == '/' && h[7] == '/' && h[10] == ' ' && h[13] == ':' && h[16] == ':' &&
	    (h[19] == ',' || (h[19] == '.' && memchr(h + 20, ',', 5))) && h[0] >= '0' && h[0] <= '9')
		return TF_SNIFF_YES;
	return TF_SNIFF_NO;
}

static int rocm_sniff(const char *path, int is_dir, const unsigned char *h, size_t n, bool whole)
{
	(void)path;
	(void)whole;
	if (is_dir)
		return TF_SNIFF_NO;
	return starts(h, n, "time_ns,device,") || starts(h, n, "device,") ? TF_SNIFF_YES : TF_SNIFF_NO;
}

const tf_format tf_format_nvidia_smi = {
	.name = "nvidia-smi",
	.description = "nvidia-smi --query-gpu=timestamp,index,... --format=csv output (GPU telemetry)",
	.sniff = nv_sniff,
	.read = nv_read,
	.kind = TF_INPUT_EVENTS,
	.noun = "nvidia-smi CSV",
	.telemetry = true,
};

const tf_format tf_format_rocm_smi = {
	.name = "rocm-smi",
	.description = "rocm-smi --csv output, each row after a time_ns column (GPU telemetry)",
	.sniff = rocm_sniff,
	.read = rocm_read,
	.kind = TF_INPUT_EVENTS,
	.noun = "rocm-smi CSV",
	.telemetry = true,
};
