/* wr_flame.c: --format flamegraph, an interactive SVG flame graph of the
 * stacks, self-contained as flamegraph.pl's: a box per frame, as wide as
 * its samples, callers below their callees; kernel frames in orange, user
 * frames in reds and yellows by name, the idle loop in grey; a title with
 * the total; a tooltip per frame (name, samples, percent); click a frame
 * to zoom to it (click the title to come back) and a search box that
 * marks the matching frames and says their share. */
#include <stdlib.h>
#include <string.h>

#include "kprof.h"

#define WIDTH   1200
#define PAD     10
#define ROW     16
#define MINW    0.1             /* narrower boxes are not drawn */

struct node {
	char *name;
	uint64_t value, base;           /* samples; and in the base profile (a difference) */
	struct node **kids;
	size_t nkids, cap;
};

static struct node *child(struct node *n, const char *name, size_t len)
{
	for (size_t i = 0; i < n->nkids; i++)
		if (strlen(n->kids[i]->name) == len && !strncmp(n->kids[i]->name, name, len))
			return n->kids[i];
	if (n->nkids == n->cap) {
		n->cap = n->cap ? 2 * n->cap : 4;
		n->kids = kp_reallocarray(n->kids, n->cap, sizeof *n->kids);
	}
	n->kids[n->nkids] = kp_calloc(1, sizeof **n->kids);
	n->kids[n->nkids]->name = kp_calloc(len + 1, 1);
	memcpy(n->kids[n->nkids]->name, name, len);
	return n->kids[n->nkids++];
}

static int depth(const struct node *n)
{
	int d = 0;

	for (size_t i = 0; i < n->nkids; i++) {
		int k = depth(n->kids[i]);
		if (k > d)
			d = k;
	}
	return d + 1;
}

static void free_tree(struct node *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		free_tree(n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n);
}

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
	if (len > 4 && !strcmp(name + len - 4, "_[k]"))
		snprintf(buf, n, "rgb(%u,%u,%u)", 230 + h % 20, 120 + h % 60, 30 + (h >> 8) % 30);
	else if (!strcmp(name, "idle"))
		snprintf(buf, n, "rgb(180,180,180)");
	else
		snprintf(buf, n, "rgb(%u,%u,%u)", 205 + h % 50, 60 + (h >> 4) % 150, 40 + (h >> 8) % 40);
}

/* A difference's colour: red for a frame that grew, blue for one that
 * shrank, by its share of the new total against its share of the base's,
 * white for none (Gregg's differential flame graphs). */
static void diff_colour(const struct node *n, uint64_t total, uint64_t btotal, char *buf, size_t len)
{
	double now = total ? (double)n->value / total : 0, then = btotal ? (double)n->base / btotal : 0;
	double d = now - then, k = d > 0 ? d / (now ? now : 1) : -d / (then ? then : 1);
	unsigned v = 255 - (unsigned)(200 * (k > 1 ? 1 : k));

	snprintf(buf, len, d > 0 ? "rgb(255,%u,%u)" : "rgb(%u,%u,255)", v, v);
}

static void draw(FILE *out, const struct node *n, double x, int level, int levels, double scale,
		 uint64_t total, uint64_t btotal)
{
	double w = n->value * scale, y = PAD + 40 + (double)(levels - level - 1) * ROW;
	char fill[32];

	if (w < MINW)
		return;
	if (btotal)
		diff_colour(n, total, btotal, fill, sizeof fill);
	else
		colour(n->name, fill, sizeof fill);
	fprintf(out, "<g class=\"f\"><title>");
	xml(out, n->name);
	if (btotal)
		fprintf(out, " (%ju samples, %.2f%%; was %ju, %.2f%%)", (uintmax_t)n->value,
			100.0 * n->value / total, (uintmax_t)n->base, 100.0 * n->base / btotal);
	else
		fprintf(out, " (%ju samples, %.2f%%)", (uintmax_t)n->value, 100.0 * n->value / total);
	fprintf(out, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
		"height=\"%d\" fill=\"%s\" rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
		x, y, w, ROW - 1, fill, x + 3, y + ROW - 4);
	if (w > 30) {
		size_t fit = (size_t)((w - 6) / 7), len = strlen(n->name);
		char *s = kp_calloc(len + 1, 1);

		memcpy(s, n->name, len);
		if (len > fit) {
			s[fit > 2 ? fit - 2 : 0] = '\0';
			if (fit > 2)
				strcat(s, "..");
		}
		xml(out, s);
		free(s);
	}
	fprintf(out, "</text></g>\n");
	for (size_t i = 0; i < n->nkids; i++) {
		draw(out, n->kids[i], x, level + 1, levels, scale, total, btotal);
		x += n->kids[i]->value * scale;
	}
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
	"    q = fr[i].querySelector('rect'); var hit = re.test(n.replace(/ \\(\\d+ samples.*$/, ''));\n"
	"    q.style.fill = hit ? 'rgb(230,0,230)' : '';\n"
	"    if (+q.getAttribute('y') == %d) all += orig[i][1];\n"
	"    if (hit) m = Math.max(m, orig[i][1]); }\n"
	"  document.getElementById('matched').textContent = 'matched ' + (100 * m / (W - 2 * P)).toFixed(1) + '%%'; }\n"
	"for (var i = 0; i < fr.length; i++) fr[i].onclick = function () { zoom(this); };\n"
	"]]></script>\n";

/* adds the lines to the tree: as its values, or (base) as its base values;
 * a path only the base has is not drawn (the widths are the new profile's) */
static void grow(struct node *root, const struct fline *lines, size_t n, int base)
{
	for (size_t i = 0; i < n; i++) {
		struct node *at = root;
		const char *s = lines[i].text;

		*(base ? &root->base : &root->value) += lines[i].count;
		while (*s) {
			size_t len = strcspn(s, ";");
			at = child(at, s, len);
			*(base ? &at->base : &at->value) += lines[i].count;
			s += len + (s[len] == ';');
		}
	}
}

void flame_svg(FILE *out, const struct fline *lines, size_t n, const struct fline *base, size_t nbase)
{
	struct node *root = kp_calloc(1, sizeof *root);
	int levels, height;
	double scale;

	root->name = kp_strdup("all");
	grow(root, lines, n, 0);
	if (base)
		grow(root, base, nbase, 1);
	levels = depth(root);
	height = 2 * PAD + 40 + levels * ROW + 20;
	scale = root->value ? (double)(WIDTH - 2 * PAD) / root->value : 0;
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font: 12px monospace; fill: #000; pointer-events: none; } "
		".f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; } "
		"text.b { pointer-events: auto; cursor: pointer; }</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fbf8ef\"/>\n"
		"<text x=\"%d\" y=\"24\" style=\"font-size:17px\" text-anchor=\"middle\" class=\"b\" onclick=\"reset()\">"
		"%s: %ju samples</text>\n"
		"<text x=\"%d\" y=\"24\" text-anchor=\"end\" class=\"b\" onclick=\"search()\">Search</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
		WIDTH, height, WIDTH, height, WIDTH / 2,
		base ? "Differential flame graph (red: grew, blue: shrank)" : "Flame graph",
		(uintmax_t)root->value, WIDTH - PAD, WIDTH - PAD, height - 6);
	if (root->value)
		draw(out, root, PAD, 0, levels, scale, root->value, base ? (root->base ? root->base : 1) : 0);
	/* after the boxes: it finds them when it runs */
	fprintf(out, script, WIDTH, PAD, PAD + 40 + (levels - 1) * ROW);
	fprintf(out, "</svg>\n");
	free_tree(root);
}

static int flame_write(FILE *out, const struct wopts *wo, struct symbolizer *sy,
		       const struct sampleset *ss, const struct profile *p)
{
	size_t n;
	struct fline *lines = folded_lines(sy, ss, &n);

	(void)wo, (void)p;
	flame_svg(out, lines, n, NULL, 0);
	folded_free(lines, n);
	return ferror(out) ? -1 : 0;
}

const struct writer writer_flamegraph = { "flamegraph", 0, flame_write };
