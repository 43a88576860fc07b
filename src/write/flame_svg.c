/* flame_svg.c - the flame graph's SVG and HTML page (flame_int.h): the
 * header, each frame with its tooltip, label and colour, the legend. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "flame_int.h"
#include "fmt.h"
#include "tracefold/gate.h"
#include "utf8.h"

#define VANISHED_SHOWN 5  /* vanished children named in a tooltip */

/* The length of the UTF-8 character at s (n bytes left) that XML can
 * hold, 0 if none (utf8.h). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned cp;
	return tf_utf8_xml_len(s, n, &cp);
}

/* XML text of at most max code points of s (0 = all; a cut name ends in
 * ".."): markup escaped, control characters and invalid UTF-8 as U+FFFD,
 * which XML 1.0 cannot hold otherwise. */
static void xml_text(out *w, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), cps = 0, total = 0;
	if (max) {
		for (size_t i = 0; i < n; total++) {
			size_t k = utf8_len(p + i, n - i);
			i += k ? k : 1;
		}
	}
	bool cut = max && total > max;
	size_t keep = cut ? (max > 2 ? max - 2 : 0) : (size_t)-1;
	for (size_t i = 0; i < n && cps < keep; cps++) {
		size_t k = utf8_len(p + i, n - i);
		unsigned char c = p[i];
		if (!k) {
			puts_(w, "\xEF\xBF\xBD");
			i++;
			continue;
		}
		if (k == 1) {
			if (c == '&')
				puts_(w, "&amp;");
			else if (c == '<')
				puts_(w, "&lt;");
			else if (c == '>')
				puts_(w, "&gt;");
			else if (c == '"')
				puts_(w, "&quot;");
			else if (c < 0x20 || c == 0x7F)
				puts_(w, "\xEF\xBF\xBD");
			else
				put(w, (const char *)p + i, 1);
		} else {
			put(w, (const char *)p + i, k);
		}
		i += k;
	}
	if (cut)
		puts_(w, "..");
}

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* ---- colors ---- */

enum { CAT_OTHER, CAT_PYTHON, CAT_GPU, CAT_RUNTIME, CAT_MPI, CAT_TORCH, CAT_SYNTH, NCAT };
static const char *const cat_names[NCAT] = {
	"native / other", "Python", "GPU activity", "CUDA / HIP / NCCL runtime", "MPI", "PyTorch operator",
	"tracefold frame ([...], groups)",
};

/* Where the function name of a Python frame "path/file.py(12): fn" starts
 * (the ": " after "(digits)"), else NULL. */
static const char *py_function(const char *s)
{
	for (const char *p = strchr(s, '('); p; p = strchr(p + 1, '(')) {
		const char *q = p + 1;
		while (*q >= '0' && *q <= '9')
			q++;
		if (q > p + 1 && q[0] == ')' && q[1] == ':' && q[2] == ' ')
			return q + 3;
	}
	return NULL;
}

/* A frame's label in at most max code points: cut at its end ("start.."),
 * but a Python frame keeps its end, the function ("..e.py(12): fn"), since
 * its path is what tells least. */
static void label_text(out *w, const char *s, size_t max)
{
	size_t n = strlen(s), total = 0;
	for (size_t i = 0; i < n; total++) {
		size_t k = utf8_len((const unsigned char *)s + i, n - i);
		i += k ? k : 1;
	}
	if (total <= max || !py_function(s)) {
		xml_text(w, s, max);
		return;
	}
	size_t skip = total - (max - 2), i = 0;
	for (size_t c = 0; c < skip && i < n; c++) {
		size_t k = utf8_len((const unsigned char *)s + i, n - i);
		i += k ? k : 1;
	}
	puts_(w, "..");
	xml_text(w, s + i, 0);
}

static bool prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static int category(const fnode *n, const char *name)
{
	if ((n->flags & F_GROUP) || !strcmp(name, "[...]") || prefix(name, "[unattributed gpu]") ||
	    prefix(name, "[TAU trace flush]") || prefix(name, "[no region]") || prefix(name, "[unnamed]"))
		return CAT_SYNTH;
	if (n->flags & F_GPU || prefix(name, "Memcpy") || prefix(name, "Memset"))
		return CAT_GPU;
	if (strstr(name, ".py(") || strstr(name, ".py:") || prefix(name, "<built-in"))
		return CAT_PYTHON;
	if (prefix(name, "MPI_") || prefix(name, "PMPI_") || prefix(name, "mpi_"))
		return CAT_MPI;
	/* the CUDA runtime (cudaMemcpy) and driver (cuLaunchKernel: cu + a capital) */
	if (prefix(name, "cuda") || (prefix(name, "cu") && name[2] >= 'A' && name[2] <= 'Z') ||
	    (prefix(name, "hip") && name[3] >= 'A' && name[3] <= 'Z') || prefix(name, "nccl") || prefix(name, "rccl"))
		return CAT_RUNTIME;
	if (prefix(name, "aten::") || prefix(name, "torch") || prefix(name, "c10d::") ||
	    prefix(name, "autograd::") || prefix(name, "Optimizer."))
		return CAT_TORCH;
	return CAT_OTHER;
}

/* Base color of a category (the legend's), varied by the name's hash. */
static void cat_color(int cat, uint32_t h, int rgb[3])
{
	static const int base[NCAT][3] = {
		{ 230, 120, 50 },  /* other: warm orange */
		{ 90, 180, 90 },   /* Python: green */
		{ 200, 70, 170 },  /* GPU: magenta */
		{ 220, 190, 50 },  /* runtime: yellow */
		{ 70, 170, 190 },  /* MPI: teal */
		{ 225, 80, 80 },   /* PyTorch ops: red */
		{ 170, 170, 170 }, /* ours: gray */
	};
	double v = ((h >> 8) & 0xFF) / 255.0 * 0.3 - 0.15; /* +-15% */
	for (int k = 0; k < 3; k++) {
		double c = base[cat][k] * (1 + v);
		rgb[k] = c > 255 ? 255 : c < 0 ? 0 : (int)c;
	}
}

/* FlameGraph's "hot" palette from the name's hash: the same name, the same color. */
static void hash_color(uint32_t h, int rgb[3])
{
	double v1 = (h & 0xFF) / 255.0, v2 = ((h >> 8) & 0xFF) / 255.0, v3 = ((h >> 16) & 0xFF) / 255.0;
	rgb[0] = 205 + (int)(50 * v3);
	rgb[1] = (int)(230 * v1);
	rgb[2] = (int)(55 * v2);
}

/* Diff: red for growth, blue for shrinkage, white-ish for none; saturation
 * is |delta| / the largest |delta| of the picture. */
static void diff_color(double delta, double maxd, int rgb[3])
{
	double r = maxd > 0 ? fabs(delta) / maxd : 0;
	r = r > 1 ? 1 : r;
	int fade = (int)lround(235 * (1 - r));
	if (delta > 0)
		rgb[0] = 255, rgb[1] = fade, rgb[2] = fade;
	else if (delta < 0)
		rgb[0] = fade, rgb[1] = fade, rgb[2] = 255;
	else
		rgb[0] = rgb[1] = rgb[2] = 240;
}

/* ---- the picture ---- */

static const char svg_style[] =
	"text{font-family:monospace;font-size:12px;fill:#000}\n"
	".t{font-size:17px;text-anchor:middle}\n"
	".s{fill:#444;text-anchor:middle}\n"
	".f:hover rect{stroke:#000;stroke-width:.8}\n"
	"g.f.n rect{stroke:#000;stroke-width:1.6}\n"
	".m rect{fill:#e838e8}\n"
	".h{display:none}\n"
	".a rect{opacity:.55}\n";

/* The page's script: click a frame to zoom to it, a search box (a regular
 * expression, or the text as it is when it is not one) that marks the
 * matching frames and says their share of the picture (nested matches
 * counted once; "[...]" boxes are not searched), reset; #s=TEXT in the
 * address runs a search on load, #z=N zooms to the N-th frame (document
 * order, 0 = all).  Zooming follows the tree: each frame's data-p is its
 * parent's index, so no pixel arithmetic decides who is inside. */
const char tf_flame_html_script[] =
	"(function(){\n"
	"var svg=document.querySelector('svg'),W=+svg.getAttribute('width'),P=10;\n"
	"var F=[].map.call(document.querySelectorAll('g.f'),function(g){var r=g.querySelector('rect'),t=g.querySelector('text'),\n"
	" m=g.classList.contains('r'),n=g.querySelector('title').textContent.split('\\n')[0];\n"
	" return {g:g,r:r,t:t,m:m,n:m?'[...]':n,c:Array.from(m?'[...]':n),p:+g.getAttribute('data-p'),\n"
	"  x:+r.getAttribute('x'),w:+r.getAttribute('width')};});\n"
	"function lab(f,w){var k=Math.floor((w-6)/7.2);if(k<3)return '';if(f.c.length<=k)return f.n;\n"
	" return /\\(\\d+\\): /.test(f.n)?'..'+f.c.slice(f.c.length-k+2).join(''):f.c.slice(0,k-2).join('')+'..';}\n"
	"function place(f,x,w){f.r.setAttribute('x',x.toFixed(2));f.r.setAttribute('width',w.toFixed(2));\n"
	" if(f.t){f.t.setAttribute('x',(x+3).toFixed(2));f.t.textContent=lab(f,w);}}\n"
	"function zoom(z){var zi=z?F.indexOf(z):0,x0=F[zi].x,s=(W-2*P)/F[zi].w,ins=[],anc=[];\n"
	" for(var a=F[zi].p;a>=0;a=F[a].p)anc[a]=true;\n"
	" F.forEach(function(f,i){ins[i]=i==zi||(f.p>=0&&ins[f.p]);\n"
	"  f.g.classList.toggle('h',!(ins[i]||anc[i]));f.g.classList.toggle('a',!!anc[i]);\n"
	"  if(ins[i])place(f,P+(f.x-x0)*s,f.w*s);else if(anc[i])place(f,P,W-2*P);});\n"
	" document.getElementById('reset').disabled=!z||zi==0;}\n"
	"function search(q){var re=null,m=[],info=document.getElementById('matched');\n"
	" if(q){try{re=new RegExp(q);}catch(x){re=new RegExp(q.replace(/[.*+?^${}()|[\\]\\\\]/g,'\\\\$&'));}}\n"
	" F.forEach(function(f){var hit=!!re&&!f.m&&re.test(f.n);f.g.classList.toggle('m',hit);if(hit)m.push(f);});\n"
	" if(!re){info.textContent='';return;}\n"
	" m.sort(function(a,b){return a.x-b.x||b.w-a.w;});var sum=0,end=-1;\n"
	" m.forEach(function(f){if(f.x>=end-1e-6){sum+=f.w;end=f.x+f.w;}else if(f.x+f.w>end){sum+=f.x+f.w-end;end=f.x+f.w;}});\n"
	" info.textContent='Matched: '+(100*sum/(W-2*P)).toFixed(2)+'% ('+m.length+' frames)';}\n"
	"F.forEach(function(f){f.g.addEventListener('click',function(){zoom(f);});});\n"
	"document.getElementById('reset').addEventListener('click',function(){zoom(null);});\n"
	"var q=document.getElementById('q');q.addEventListener('input',function(){search(q.value);});\n"
	"zoom(null);\n"
	"var h=location.hash.match(/[#&]s=([^&]*)/);\n"
	"if(h){try{q.value=decodeURIComponent(h[1]);}catch(x){q.value=h[1];}search(q.value);}\n"
	"h=location.hash.match(/[#&]z=(\\d+)/);if(h&&F[+h[1]])zoom(F[+h[1]]);\n"
	"})();\n";

static void value(out *w, const pic *p, double v)
{
	char buf[64];
	tf_fmt_value(buf, sizeof(buf), v, p->unit);
	puts_(w, buf);
	if (!tf_unit_ns(p->unit))
		printf_(w, " %s", p->unit);
}

static void share(out *w, const pic *p, double v)
{
	printf_(w, " (%.2f%%)", p->root > 0 ? 100.0 * v / p->root : 0.0);
}

static void delta(out *w, const pic *p, double d, double base)
{
	char buf[64];
	tf_fmt_delta(buf, sizeof(buf), d, p->unit);
	puts_(w, buf);
	if (!tf_unit_ns(p->unit))
		printf_(w, " %s", p->unit);
	if (base > 0)
		printf_(w, " (%+.1f%%)", 100.0 * d / base);
}

/* Vanished children of n (BASE only), largest first, in its tooltip. */
static void vanished(out *w, const pic *p, uint32_t n)
{
	const tree *t = p->t;
	uint32_t top[VANISHED_SHOWN], ntop = 0, count = 0;
	for (uint32_t c = t->n[n].child; c != NONE; c = t->n[c].next) {
		if (t->n[c].total > 0 || t->n[c].btotal <= 0)
			continue;
		count++;
		uint32_t k;
		if (ntop < VANISHED_SHOWN) {
			k = ntop++;
		} else {
			k = VANISHED_SHOWN - 1; /* replaces the smallest, if larger */
			if (t->n[top[k]].btotal >= t->n[c].btotal)
				continue;
		}
		top[k] = c;
		while (k > 0 && t->n[top[k - 1]].btotal < t->n[top[k]].btotal) {
			uint32_t x = top[k - 1];
			top[k - 1] = top[k];
			top[k] = x;
			k--;
		}
	}
	if (!count)
		return;
	printf_(w, "\ngone since %s (%u):", p->o->base_name ? p->o->base_name : "BASE", count);
	for (uint32_t i = 0; i < ntop; i++) {
		puts_(w, "\n  ");
		xml_text(w, tf_strtab_get(p->st, t->n[top[i]].name), 120);
		puts_(w, " ");
		value(w, p, t->n[top[i]].btotal * p->bscale);
	}
	if (count > ntop)
		printf_(w, "\n  and %u more", count - ntop);
}

/* diff --gate: the verdict of node's call path (-1: none). */
static int frame_verdict(const pic *p, uint32_t node)
{
	if (!p->o->verdict)
		return -1;
	tf_str path[256];
	uint32_t n = 0;
	for (uint32_t v = node; v != 0; v = p->t->n[v].parent) {
		if (n == 256)
			return -1; /* deeper than any row: no verdict */
		path[n++] = p->t->n[v].name;
	}
	for (uint32_t i = 0; i < n / 2; i++) { /* root first */
		tf_str x = path[i];
		path[i] = path[n - 1 - i];
		path[n - 1 - i] = x;
	}
	return p->o->verdict(p->o->verdict_arg, path, n);
}

/* Red regressed, blue improved, amber unresolved, grey the rest. */
static void verdict_color(int v, int rgb[3])
{
	static const int c[TF_VERDICT_COUNT][3] = {
		{ 226, 226, 226 }, { 226, 226, 226 }, { 245, 196, 80 }, { 80, 140, 235 }, { 235, 70, 60 },
	};
	for (int i = 0; i < 3; i++)
		rgb[i] = v >= 0 && v < TF_VERDICT_COUNT ? c[v][i] : 236;
}

void tf_flame_frame(out *w, const pic *p, const box *b, double y)
{
	const tree *t = p->t;
	const fnode *n = &t->n[b->node];
	const char *name = b->more ? "[...]" : b->node == 0 ? "all" : tf_strtab_get(p->st, n->name);
	int rgb[3];
	bool isnew = false;
	double d = 0;
	int verdict = p->diff && !b->more && b->node != 0 ? frame_verdict(p, b->node) : -1;
	if (p->diff && !b->more) {
		d = (double)n->self - (double)n->bself * p->bscale;
		isnew = n->btotal <= 0 && b->node != 0;
		if (p->o->verdict)
			verdict_color(verdict, rgb);
		else
			diff_color(d, p->maxd, rgb);
	} else if (b->more || b->node == 0) {
		rgb[0] = rgb[1] = rgb[2] = b->more ? 200 : 225;
	} else if (p->o->colors == TF_FLAME_COLOR_CATEGORY) {
		cat_color(category(n, name), fnv1a(name), rgb);
	} else {
		hash_color(fnv1a(name), rgb);
	}
	printf_(w, "<g class=\"f%s\"", isnew ? " n" : b->more ? " r" : "");
	if (p->o->html) /* the page's script zooms along the tree */
		printf_(w, " data-p=\"%d\"", b->pbox == NONE ? -1 : (int)b->pbox);
	puts_(w, "><title>");
	/* tooltip: name, total and self with shares, calls, the change */
	if (b->more) {
		printf_(w, "[...] %u frames narrower than %.2g px\ntotal: ", b->nmerged, p->o->min_width);
		value(w, p, b->value);
		share(w, p, b->value);
	} else {
		xml_text(w, name, 0);
		puts_(w, "\ntotal: ");
		value(w, p, n->total);
		share(w, p, n->total);
		puts_(w, ", self: ");
		value(w, p, (double)n->self);
		share(w, p, (double)n->self);
		if (n->calls > 0)
			printf_(w, "\ncalls: %lld", (long long)n->calls);
		if (verdict >= 0 && verdict < TF_VERDICT_COUNT)
			printf_(w, "\nverdict: %s", tf_verdict_names[verdict]);
		if (p->diff) {
			const char *bn = p->o->base_name ? p->o->base_name : "BASE";
			if (isnew) {
				printf_(w, "\nnew: not in %s", bn);
			} else {
				printf_(w, "\nself vs %s: ", bn);
				delta(w, p, d, (double)n->bself * p->bscale);
				puts_(w, ", total: ");
				delta(w, p, n->total - n->btotal * p->bscale, n->btotal * p->bscale);
			}
			vanished(w, p, b->node);
		}
	}
	printf_(w, "</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" fill=\"#%02x%02x%02x\"/>", b->x, y,
		b->w, FH - 1, rgb[0], rgb[1], rgb[2]);
	size_t chars = b->w > 6 ? (size_t)((b->w - 6) / CHAR_W) : 0;
	if (chars >= 3 || p->o->html) { /* the page labels frames it zooms into */
		printf_(w, "<text x=\"%.2f\" y=\"%.1f\">", b->x + 3, y + FH - 4.5);
		if (chars >= 3)
			label_text(w, name, chars);
		puts_(w, "</text>");
	}
	puts_(w, "</g>\n");
}

/* --title, else "Flame graph: FILE" ("Differential flame graph: FILE"). */
static void title(out *w, const pic *p, const tf_agg *agg)
{
	if (p->o->title) {
		xml_text(w, p->o->title, 0);
		return;
	}
	const tf_agg_meta *m = tf_agg_meta_get((tf_agg *)agg);
	puts_(w, p->diff ? "Differential flame graph" : "Flame graph");
	if (m->main_file) {
		puts_(w, ": ");
		xml_text(w, tf_strtab_get(p->st, m->main_file), 0);
	}
}

void tf_flame_header(out *w, const pic *p, const tf_agg *agg, int W, double H, const layout *L,
		     const tf_flame_stats *stats, const char *tname)
{
	const tf_flame_opts *o = p->o;
	if (o->html) {
		puts_(w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
		title(w, p, agg);
		puts_(w, "</title>\n<style>\nbody{margin:0;font-family:monospace;background:#fff}\n"
			 "#bar{padding:6px 10px;font-size:13px}\n#bar input{width:24em}\n#matched{margin-left:1em}\n"
			 "g.f{cursor:pointer}\n</style>\n</head>\n<body>\n<div id=\"bar\"><button id=\"reset\">Reset zoom"
			 "</button> <input id=\"q\" placeholder=\"search (regular expression)\" aria-label=\"search\">"
			 "<span id=\"matched\"></span></div>\n");
	} else if (!p->bare) {
		puts_(w, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	}
	/* inside an HTML page the parser gives the SVG its namespace */
	printf_(w, "<svg version=\"1.1\"%s width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\">\n<style>\n",
		p->bare ? "" : " xmlns=\"http://www.w3.org/2000/svg\"", W, H, W, H);
	if (p->diff)
		puts_(w, "g.f rect{stroke:#aaa;stroke-width:.4}\n");
	puts_(w, svg_style);
	printf_(w, "</style>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"#f8f8f4\"/>\n", W, H);
	printf_(w, "<text class=\"t\" x=\"%.1f\" y=\"24\">", W / 2.0);
	title(w, p, agg);
	printf_(w, "</text>\n<text class=\"s\" x=\"%.1f\" y=\"44\">", W / 2.0);
	xml_text(w, tname, 0);
	puts_(w, ": total ");
	value(w, p, p->root);
	printf_(w, "; %llu call paths, %u frames", (unsigned long long)stats->paths, L->nb);
	if (stats->merged)
		printf_(w, " (%llu paths under %.2g px in [...])", (unsigned long long)stats->merged, o->min_width);
	if (stats->negative)
		printf_(w, "; %llu negative samples left out", (unsigned long long)stats->negative);
	puts_(w, "</text>\n");
	if (p->diff) {
		printf_(w, "<text class=\"s\" x=\"%.1f\" y=\"62\">self ", W / 2.0);
		xml_text(w, tname, 0);
		puts_(w, " against ");
		xml_text(w, o->base_name ? o->base_name : "BASE", 0);
		if (o->normalize)
			puts_(w, " (normalized)");
		puts_(w, ": red grew, blue shrank");
		if (p->maxd > 0) {
			puts_(w, " (full color: ");
			value(w, p, p->maxd);
			puts_(w, ")");
		}
		puts_(w, "; outlined: new");
		if (stats->vanished)
			printf_(w, "; %llu call paths gone (named in their parent's tooltip)",
				(unsigned long long)stats->vanished);
		puts_(w, "</text>\n");
	}
}

/* The category legend, wrapped to the picture's width: draws it at y when
 * w is not NULL; returns its rows. */
int tf_flame_legend(out *w, double y, int W)
{
	double x = PAD;
	int rows = 1;
	for (int c = 0; c < NCAT; c++) {
		double cw = 16 + CHAR_W * (double)strlen(cat_names[c]);
		if (x > PAD && x + cw > W - PAD) {
			x = PAD;
			rows++;
		}
		if (w) {
			int rgb[3];
			double ry = y + (rows - 1) * 18.0;
			cat_color(c, 0x8000, rgb);
			printf_(w, "<rect x=\"%.1f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"#%02x%02x%02x\"/>"
				   "<text x=\"%.1f\" y=\"%.0f\">%s</text>\n",
				x, ry, rgb[0], rgb[1], rgb[2], x + 16, ry + 10, cat_names[c]);
		}
		x += cw + 14;
	}
	return rows;
}
