/* Pictures of a profile (er/er_flamegraph.h): folded stacks, the text
 * FlameGraph, speedscope and inferno read; a self-contained interactive
 * SVG flame graph (hover: name, value, share; click: zoom; search); an
 * HTML page with the function table and the flame graph. */
#include "er/er_flamegraph.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 1200.0
#define FRAME_HEIGHT 16
#define TOP_MARGIN 48
#define BOTTOM_MARGIN 24
#define MIN_WIDTH 0.1 /* pixels: narrower frames are left out, as flamegraph.pl does */

/* ---- folded stacks ------------------------------------------------------- */

/* Folded names: ';' separates frames, so it is replaced in a name. */
static void put_folded_name(FILE *out, const char *name)
{
  for (const char *p = name; *p; p++)
    fputc(*p == ';' ? ':' : *p == '\n' ? ' ' : *p, out);
}

int er_folded_write(FILE *out, const struct er_profile *p)
{
  double unit_per_count = p->per_count > 0 ? p->per_count : 1;
  for (size_t s = 0; s < p->n_stacks; s++) {
    const struct er_profile_stack *st = &p->stacks[s];
    /* A damaged experiment's sums can pass what a count holds (counter
     * intervals near 2^64): the most it holds, never an undefined cast. */
    double counts = st->value / unit_per_count + 0.5;
    long long count = !(counts >= 1) ? 0 : counts >= 0x1p63 ? LLONG_MAX : (long long)counts;
    if (count <= 0)
      continue;
    for (size_t d = 0; d < st->depth; d++) {
      if (d > 0)
        fputc(';', out);
      put_folded_name(out, p->functions[st->functions[d]].name);
    }
    fprintf(out, " %lld\n", count);
  }
  return ferror(out) ? -1 : 0;
}

/* ---- the call tree --------------------------------------------------------- */

struct node {
  size_t function;
  double value;
  struct node *child, *sibling;
};

static struct node *child_of(struct node *parent, size_t function)
{
  for (struct node *c = parent->child; c != NULL; c = c->sibling)
    if (c->function == function)
      return c;
  struct node *c = calloc(1, sizeof *c);
  if (c == NULL)
    return NULL;
  c->function = function;
  c->sibling = parent->child;
  parent->child = c;
  return c;
}

static struct node *build_tree(const struct er_profile *p)
{
  struct node *root = calloc(1, sizeof *root);
  if (root == NULL)
    return NULL;
  root->function = (size_t)-1;
  for (size_t s = 0; s < p->n_stacks; s++) {
    struct node *at = root;
    root->value += p->stacks[s].value;
    for (size_t d = 0; d < p->stacks[s].depth && at != NULL; d++) {
      at = child_of(at, p->stacks[s].functions[d]);
      if (at != NULL)
        at->value += p->stacks[s].value;
    }
  }
  return root;
}

static void free_tree(struct node *n)
{
  while (n != NULL) {
    struct node *next = n->sibling;
    free_tree(n->child);
    free(n);
    n = next;
  }
}

static int tree_depth(const struct node *n)
{
  int deepest = 0;
  for (const struct node *c = n->child; c != NULL; c = c->sibling) {
    int d = tree_depth(c);
    deepest = d > deepest ? d : deepest;
  }
  return deepest + 1;
}

/* Children in name order, as flamegraph.pl draws them (stable pictures). */
static int by_name_of(const struct er_profile *p, const struct node *a, const struct node *b)
{
  return strcmp(p->functions[a->function].name, p->functions[b->function].name);
}

static void sort_children(const struct er_profile *p, struct node *n)
{
  size_t count = 0;
  for (struct node *c = n->child; c != NULL; c = c->sibling)
    count++;
  if (count > 1) {
    struct node **v = malloc(count * sizeof *v);
    if (v != NULL) {
      size_t i = 0;
      for (struct node *c = n->child; c != NULL; c = c->sibling)
        v[i++] = c;
      for (size_t a = 1; a < count; a++) /* insertion sort: few children per node */
        for (size_t b = a; b > 0 && by_name_of(p, v[b - 1], v[b]) > 0; b--) {
          struct node *t = v[b - 1];
          v[b - 1] = v[b];
          v[b] = t;
        }
      n->child = v[0];
      for (i = 0; i + 1 < count; i++)
        v[i]->sibling = v[i + 1];
      v[count - 1]->sibling = NULL;
      free(v);
    }
  }
  for (struct node *c = n->child; c != NULL; c = c->sibling)
    sort_children(p, c);
}

/* ---- SVG ------------------------------------------------------------------ */

static void put_xml_text(FILE *out, const char *text)
{
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    switch (*p) {
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '&': fputs("&amp;", out); break;
    case '"': fputs("&quot;", out); break;
    case '\'': fputs("&apos;", out); break;
    default:
      if (*p >= 0x20 || *p == '\t')
        fputc(*p, out);
    }
  }
}

/* A warm colour from the name, the same for a function in every picture. */
static void colour(const char *name, int *r, int *g, int *b)
{
  uint32_t h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    h = (h ^ *p) * 16777619u;
  *r = 205 + (int)(h % 50);
  *g = 80 + (int)((h >> 8) % 140);
  *b = (int)((h >> 16) % 55);
}

struct svg {
  FILE *out;
  const struct er_profile *p;
  double total;
  int height;
};

static void put_value(FILE *out, const struct er_profile *p, double v)
{
  if (strcmp(p->unit, "sec.") == 0)
    fprintf(out, "%.3f s", v);
  else
    fprintf(out, "%.0f %s", v, p->unit);
}

static void draw(struct svg *s, const struct node *n, double x, int depth)
{
  double w = n->value / s->total * WIDTH;
  if (w < MIN_WIDTH)
    return;
  if (n->function != (size_t)-1) {
    const char *name = s->p->functions[n->function].name;
    int r, g, b;
    colour(name, &r, &g, &b);
    double y = s->height - BOTTOM_MARGIN - (double)depth * FRAME_HEIGHT;
    fprintf(s->out, "<g class=\"f\" data-x=\"%.6f\" data-w=\"%.6f\" data-d=\"%d\"><title>", x / WIDTH, w / WIDTH,
            depth);
    put_xml_text(s->out, name);
    fputs(" (", s->out);
    put_value(s->out, s->p, n->value);
    fprintf(s->out, ", %.2f%%)</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" rx=\"2\" "
                    "fill=\"rgb(%d,%d,%d)\"/><text x=\"%.2f\" y=\"%.1f\"></text><desc>",
            100.0 * n->value / s->total, x, y, w, FRAME_HEIGHT - 1, r, g, b, x + 3, y + 11.5);
    put_xml_text(s->out, name);
    fputs("</desc></g>\n", s->out);
  }
  double child_x = x;
  for (const struct node *c = n->child; c != NULL; c = c->sibling) {
    draw(s, c, child_x, depth + 1);
    child_x += c->value / s->total * WIDTH;
  }
}

/* Zoom, search and the frames' labels, in the picture itself (no file or
 * network needed to view it). */
static const char *const script =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "var W = WIDTH, frames = document.getElementsByClassName('f');\n"
    "function label(g, w) {\n"
    "  var t = g.getElementsByTagName('text')[0], name = g.getElementsByTagName('desc')[0].textContent;\n"
    "  var fit = Math.floor((w - 6) / 7);\n"
    "  t.textContent = fit < 3 ? '' : name.length <= fit ? name : name.substring(0, fit - 2) + '..';\n"
    "}\n"
    "function place(x0, w0, d0) {\n"
    "  for (var i = 0; i < frames.length; i++) {\n"
    "    var g = frames[i], x = +g.dataset.x, w = +g.dataset.w, d = +g.dataset.d;\n"
    "    var inside = x + w > x0 + 1e-9 && x < x0 + w0 - 1e-9;\n"
    "    var nx = d < d0 ? 0 : (x - x0) / w0 * W, nw = d < d0 ? W : w / w0 * W;\n"
    "    var r = g.getElementsByTagName('rect')[0];\n"
    "    g.style.display = inside && (d >= d0 || (x <= x0 + 1e-9 && x + w >= x0 + w0 - 1e-9)) ? '' : 'none';\n"
    "    g.style.opacity = d < d0 ? 0.5 : 1;\n"
    "    r.setAttribute('x', nx); r.setAttribute('width', nw);\n"
    "    g.getElementsByTagName('text')[0].setAttribute('x', nx + 3);\n"
    "    label(g, nw);\n"
    "  }\n"
    "}\n"
    "for (var i = 0; i < frames.length; i++) frames[i].onclick = function () {\n"
    "  place(+this.dataset.x, +this.dataset.w, +this.dataset.d);\n"
    "};\n"
    "function reset_zoom() { place(0, 1, 0); }\n"
    "function search() {\n"
    "  var term = prompt('Search for a function (regular expression)', '');\n"
    "  var re = term ? new RegExp(term) : null, matched = 0, spans = [];\n"
    "  for (var i = 0; i < frames.length; i++) {\n"
    "    var g = frames[i], r = g.getElementsByTagName('rect')[0];\n"
    "    if (!r.dataset.fill) r.dataset.fill = r.getAttribute('fill');\n"
    "    var hit = re && re.test(g.getElementsByTagName('desc')[0].textContent);\n"
    "    r.setAttribute('fill', hit ? 'rgb(230,0,230)' : r.dataset.fill);\n"
    "    if (hit) spans.push([+g.dataset.x, +g.dataset.x + +g.dataset.w]);\n"
    "  }\n"
    "  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
    "  var end = 0;\n"
    "  for (var k = 0; k < spans.length; k++) {\n"
    "    var s = Math.max(spans[k][0], end);\n"
    "    if (spans[k][1] > s) { matched += spans[k][1] - s; end = spans[k][1]; }\n"
    "  }\n"
    "  document.getElementById('matched').textContent = re ? 'Matched: ' + (100 * matched).toFixed(2) + '%' : '';\n"
    "}\n"
    "place(0, 1, 0);\n"
    "]]></script>\n";

int er_flamegraph_svg(FILE *out, const struct er_profile *p, const char *title)
{
  struct node *root = build_tree(p);
  if (root == NULL)
    return -1;
  sort_children(p, root);
  struct svg s = {out, p, root->value > 0 ? root->value : 1, 0};
  s.height = TOP_MARGIN + BOTTOM_MARGIN + (tree_depth(root) - 1) * FRAME_HEIGHT + FRAME_HEIGHT;
  fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
               "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%d\" "
               "viewBox=\"0 0 %.0f %d\" font-family=\"Verdana, sans-serif\" font-size=\"12\">\n"
               "<style>.f:hover rect { stroke: black; stroke-width: 0.5; cursor: pointer; } "
               "text { pointer-events: none; fill: black; } .button { cursor: pointer; fill: #336; }</style>\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"#fdf8ee\"/>\n<text x=\"%.0f\" y=\"20\" "
               "text-anchor=\"middle\" font-size=\"16\">",
          WIDTH, s.height, WIDTH, s.height, WIDTH / 2);
  put_xml_text(out, title);
  fprintf(out, "</text>\n<text x=\"10\" y=\"38\">%s: ", p->metric);
  put_value(out, p, root->value);
  fprintf(out, " in %.0f sample(s); hover for a frame's share, click to zoom</text>\n"
               "<text class=\"button\" x=\"%.0f\" y=\"38\" text-anchor=\"end\" onclick=\"reset_zoom()\">Reset zoom</text>\n"
               "<text class=\"button\" x=\"%.0f\" y=\"20\" text-anchor=\"end\" onclick=\"search()\">Search</text>\n"
               "<text id=\"matched\" x=\"%.0f\" y=\"%d\" text-anchor=\"end\"></text>\n",
          p->samples, WIDTH - 10, WIDTH - 10, WIDTH - 10, s.height - 6);
  draw(&s, root, 0, 0);
  const char *w = strstr(script, "WIDTH");
  fwrite(script, 1, (size_t)(w - script), out);
  fprintf(out, "%.0f", WIDTH);
  fputs(w + 5, out);
  fputs("</svg>\n", out);
  free_tree(root);
  return ferror(out) ? -1 : 0;
}

/* ---- HTML ----------------------------------------------------------------- */

int er_report_html(FILE *out, const struct er_profile *p, const char *title, size_t rows)
{
  fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>", out);
  put_xml_text(out, title);
  fputs("</title>\n<style>body { font-family: sans-serif; margin: 1em; } table { border-collapse: collapse; } "
        "td, th { padding: 2px 10px; text-align: right; } td.name, th.name { text-align: left; } "
        "tr:nth-child(even) { background: #f4f4f4; }</style></head>\n<body>\n<h1>",
        out);
  put_xml_text(out, title);
  fprintf(out, "</h1>\n<h2>Functions by exclusive %s</h2>\n<table id=\"functions\">\n<tr><th>Excl. %s (%s)</th>"
               "<th>%%</th><th>Incl. %s (%s)</th><th>%%</th><th class=\"name\">Name</th></tr>\n",
          p->metric, p->metric, p->unit, p->metric, p->unit);
  double total = p->total > 0 ? p->total : 1;
  int decimals = strcmp(p->unit, "sec.") == 0 ? 3 : 0; /* seconds, or whole events */
  fprintf(out, "<tr><td>%.*f</td><td>100.00</td><td>%.*f</td><td>100.00</td><td class=\"name\">&lt;Total&gt;</td></tr>\n",
          decimals, p->total, decimals, p->total);
  for (size_t i = 0; i < p->n_functions && i < rows; i++) {
    const struct er_profile_function *f = &p->functions[i];
    fprintf(out, "<tr><td>%.*f</td><td>%.2f</td><td>%.*f</td><td>%.2f</td><td class=\"name\">", decimals, f->excl,
            100 * f->excl / total, decimals, f->incl, 100 * f->incl / total);
    put_xml_text(out, f->name);
    fputs("</td></tr>\n", out);
  }
  fputs("</table>\n<h2>Flame graph</h2>\n<div id=\"flamegraph\">\n", out);
  int rc /* inline: the page is one file */ = er_flamegraph_svg(out, p, title);
  fputs("</div>\n", out);
  return rc != 0 || ferror(out) ? -1 : 0;
}

int er_report_html_end(FILE *out)
{
  fputs("</body></html>\n", out);
  return ferror(out) ? -1 : 0;
}
