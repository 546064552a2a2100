/* wr_flame.c: --format flamegraph, an interactive SVG flame graph of the
 * stacks, self-contained as flamegraph.pl's: a box per frame, as wide as
 * its samples, callers below their callees; kernel frames in orange, user
 * frames in reds and yellows by name, the idle loop in grey; a title with
 * the total in the set's unit (samples, or system-call hits, ...); a
 * tooltip per frame (name, count, percent); click a frame to zoom to it
 * (click the title to come back) and a search box that marks the matching
 * frames and says their share. */
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

#define WIDTH   1200
#define PAD     10
#define ROW     16
#define MINW    0.1             /* narrower boxes are not drawn */

/* A frame of the graph while its run of lines lasts: the lines are
 * sorted, so the lines under one frame are consecutive, and a frame is
 * drawn when the run ends (flamegraph.pl's flow), with no tree kept:
 * memory is one frame per level, however many stacks there are. */
struct openframe {
	const char *name;               /* a line's frame, len bytes */
	size_t len;
	uint64_t start, value, base;    /* where it starts (samples); its samples; in the base */
};

struct canvas {
	FILE *out;
	int levels;
	double scale;
	uint64_t total, btotal;         /* btotal: a difference's base total, else 0 */
	const char *count;              /* a count's word: "samples", "hits" */
};

/* the name escaped for XML */
static void xml(FILE *out, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
}

static void colour(const char *name, char *buf, size_t n)
{
	size_t len = strlen(name);
	unsigned h = 0;

	for (const char *s = name; *s; s++)
		h = h * 31 + (unsigned char)*s;
	if (len > strlen(KERNEL_SUFFIX) && !strcmp(name + len - strlen(KERNEL_SUFFIX), KERNEL_SUFFIX))
		snprintf(buf, n, "rgb(%u,%u,%u)", 230 + h % 20, 120 + h % 60, 30 + (h >> 8) % 30);
	else if (!strcmp(name, "idle"))
		snprintf(buf, n, "rgb(180,180,180)");
	else
		snprintf(buf, n, "rgb(%u,%u,%u)", 205 + h % 50, 60 + (h >> 4) % 150, 40 + (h >> 8) % 40);
}

/* A difference's colour: red for a frame that grew, blue for one that
 * shrank, by its share of the new total against its share of the base's,
 * white for none (Gregg's differential flame graphs). */
static void diff_colour(uint64_t value, uint64_t base, uint64_t total, uint64_t btotal, char *buf, size_t len)
{
	double now = total ? (double)value / total : 0, then = btotal ? (double)base / btotal : 0;
	double d = now - then, k = d > 0 ? d / (now ? now : 1) : -d / (then ? then : 1);
	unsigned v = 255 - (unsigned)(200 * (k > 1 ? 1 : k));

	snprintf(buf, len, d > 0 ? "rgb(255,%u,%u)" : "rgb(%u,%u,255)", v, v);
}

static void box(const struct canvas *c, const struct openframe *f, int level)
{
	double w = f->value * c->scale, x = PAD + f->start * c->scale;
	double y = PAD + 40 + (double)(c->levels - level - 1) * ROW;
	char fill[32], *name;

	if (w < MINW)
		return;                 /* and so are the frames above it */
	name = kp_calloc(f->len + 1, 1);
	memcpy(name, f->name, f->len);
	if (c->btotal)
		diff_colour(f->value, f->base, c->total, c->btotal, fill, sizeof fill);
	else
		colour(name, fill, sizeof fill);
	fprintf(c->out, "<g class=\"f\"><title>");
	xml(c->out, name);
	if (c->btotal)
		fprintf(c->out, " (%ju %s, %.2f%%; was %ju, %.2f%%)", (uintmax_t)f->value, c->count,
			100.0 * f->value / c->total, (uintmax_t)f->base, 100.0 * f->base / c->btotal);
	else
		fprintf(c->out, " (%ju %s, %.2f%%)", (uintmax_t)f->value, c->count,
			100.0 * f->value / c->total);
	fprintf(c->out, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
		"height=\"%d\" fill=\"%s\" rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
		x, y, w, ROW - 1, fill, x + 3, y + ROW - 4);
	if (w > 30) {
		size_t fit = (size_t)((w - 6) / 7);

		if (f->len > fit) {
			name[fit > 2 ? fit - 2 : 0] = '\0';
			if (fit > 2)
				strcat(name, "..");
		}
		xml(c->out, name);
	}
	fprintf(c->out, "</text></g>\n");
	free(name);
}

/* zoom (click) and search, a few lines as flamegraph.pl has */
static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"var W = %d, P = %d, fr = document.getElementsByClassName('f'), orig = [];\n"
	"for (var i = 0; i < fr.length; i++) { var r = fr[i].querySelector('rect');\n"
	"  orig.push([+r.getAttribute('x'), +r.getAttribute('width')]); }\n"
	"function zoom(g) { var r = g.querySelector('rect'), x0 = +r.getAttribute('x'),\n"
	"  w0 = +r.getAttribute('width'), y0 = +r.getAttribute('y'), k = (W - 2 * P) / w0;\n"
	"  for (var i = 0; i < fr.length; i++) { var q = fr[i].querySelector('rect'),\n"
	"    t = fr[i].querySelector('text'), x = orig[i][0], w = orig[i][1];\n"
	"    var inside = x >= x0 - 1e-6 && x + w <= x0 + w0 + 1e-6 || +q.getAttribute('y') > y0;\n"
	"    fr[i].style.display = inside ? '' : 'none';\n"
	"    q.setAttribute('x', P + (x - x0) * k); q.setAttribute('width', w * k);\n"
	"    t.setAttribute('x', P + (x - x0) * k + 3); } }\n"
	"function reset() { for (var i = 0; i < fr.length; i++) { var q = fr[i].querySelector('rect');\n"
	"  fr[i].style.display = ''; q.setAttribute('x', orig[i][0]); q.setAttribute('width', orig[i][1]);\n"
	"  fr[i].querySelector('text').setAttribute('x', orig[i][0] + 3); } }\n"
	"function search() { var re = prompt('search (a regular expression)'); if (!re) return;\n"
	"  var m = 0, all = 0; re = new RegExp(re);\n"
	"  for (var i = 0; i < fr.length; i++) { var n = fr[i].querySelector('title').textContent,\n"
	"    q = fr[i].querySelector('rect'); var hit = re.test(n.replace(/ \\(\\d+ %s.*$/, ''));\n"
	"    q.style.fill = hit ? 'rgb(230,0,230)' : '';\n"
	"    if (+q.getAttribute('y') == %d) all += orig[i][1];\n"
	"    if (hit) m = Math.max(m, orig[i][1]); }\n"
	"  document.getElementById('matched').textContent = 'matched ' + (100 * m / (W - 2 * P)).toFixed(1) + '%%'; }\n"
	"for (var i = 0; i < fr.length; i++) fr[i].onclick = function () { zoom(this); };\n"
	"]]></script>\n";

/* the two sorted lists as one: the next line's text and its samples in
 * each; a line only the base has adds to its frames' base alone */
static const struct fline *next_line(const struct fline *a, size_t na, size_t *i, const struct fline *b,
				     size_t nb, size_t *j, uint64_t *v, uint64_t *bv)
{
	int c;

	if (*i == na && *j == nb)
		return NULL;
	c = *i == na ? 1 : *j == nb ? -1 : strcmp(a[*i].text, b[*j].text);
	*v = c <= 0 ? a[*i].count : 0;
	*bv = c >= 0 ? b[*j].count : 0;
	if (c == 0)
		(*j)++;                 /* in both: one line */
	return c <= 0 ? &a[(*i)++] : &b[(*j)++];
}

void flame_svg(FILE *out, const struct fline *lines, size_t n, const struct fline *base, size_t nbase,
	       const struct unit *u)
{
	struct canvas c = { out, 1, 0, 0, 0, u->column };
	struct openframe *open;
	size_t i = 0, j = 0, depth = 0, maxlev = 1;
	uint64_t v, bv, cum = 0, btotal = 0;
	const struct fline *t;
	int height;

	for (size_t k = 0; k < n; k++) {
		c.total += lines[k].count;
		maxlev = lines[k].nframes > maxlev ? lines[k].nframes : maxlev;
	}
	for (size_t k = 0; k < nbase; k++) {
		btotal += base[k].count;
		maxlev = base[k].nframes > maxlev ? base[k].nframes : maxlev;
	}
	c.levels = (int)maxlev + 1;             /* and "all" under them */
	c.btotal = base ? (btotal ? btotal : 1) : 0;
	c.scale = c.total ? (double)(WIDTH - 2 * PAD) / c.total : 0;
	height = 2 * PAD + 40 + c.levels * ROW + 20;
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font: 12px monospace; fill: #000; pointer-events: none; } "
		".f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; } "
		"text.b { pointer-events: auto; cursor: pointer; }</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fbf8ef\"/>\n"
		"<text x=\"%d\" y=\"24\" style=\"font-size:17px\" text-anchor=\"middle\" class=\"b\" onclick=\"reset()\">"
		"%s: %ju %s</text>\n"
		"<text x=\"%d\" y=\"24\" text-anchor=\"end\" class=\"b\" onclick=\"search()\">Search</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
		WIDTH, height, WIDTH, height, WIDTH / 2,
		base ? "Differential flame graph (red: grew, blue: shrank)" : "Flame graph",
		(uintmax_t)c.total, u->timed ? u->column : u->what, WIDTH - PAD, WIDTH - PAD, height - 6);
	open = kp_calloc(maxlev + 1, sizeof *open);
	open[0] = (struct openframe){ "all", 3, 0, 0, 0 };
	while ((t = next_line(lines, n, &i, base, nbase, &j, &v, &bv))) {
		size_t d = 0, k;

		/* the frames this line shares with the open ones */
		while (d < depth && d < t->nframes && !strcmp(t->frames[d], open[d + 1].name))
			d++;
		for (; depth > d; depth--)              /* the runs that end here */
			box(&c, &open[depth], (int)depth);
		for (; depth < t->nframes; depth++)     /* the frames that start */
			open[depth + 1] = (struct openframe){ t->frames[depth], strlen(t->frames[depth]), cum, 0, 0 };
		for (k = 0; k <= depth; k++) {
			open[k].value += v;
			open[k].base += bv;
		}
		cum += v;
	}
	for (; depth > 0; depth--)
		box(&c, &open[depth], (int)depth);
	if (c.total)
		box(&c, &open[0], 0);
	free(open);
	/* after the boxes: it finds them when it runs */
	fprintf(out, script, WIDTH, PAD, c.count, PAD + 40 + (c.levels - 1) * ROW);
	fprintf(out, "</svg>\n");
}

static int flame_write(FILE *out, const struct wopts *wo, struct symbolizer *sy,
		       const struct sampleset *ss, const struct profile *p)
{
	size_t n;
	struct fline *lines = folded_lines(sy, ss, &n);

	(void)wo, (void)p;
	flame_svg(out, lines, n, NULL, 0, sampleset_unit(ss));
	folded_free(lines, n);
	return ferror(out) ? -1 : 0;
}

const struct writer writer_flamegraph = { .name = "flamegraph", .write = flame_write, .ninputs = 1 };
