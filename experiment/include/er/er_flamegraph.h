/* Pictures of a profile (er_flamegraph.c). */
#ifndef ER_FLAMEGRAPH_H
#define ER_FLAMEGRAPH_H

#include <stdio.h>

#include "er/er_profile.h"

/* Folded stacks, one a line, "root;caller;leaf COUNT" (COUNT: clock ticks,
 * or a counter's events), as FlameGraph, speedscope and inferno read
 * them.  0, or -1 on a write error. */
int er_folded_write(FILE *out, const struct er_profile *profile);
/* A self-contained SVG flame graph: hover shows a frame's name, value and
 * share; a click zooms to it; Search highlights matching functions. */
int er_flamegraph_svg(FILE *out, const struct er_profile *profile, const char *title);
/* An HTML page: the function table (ROWS rows at most) and the flame graph. */
int er_report_html(FILE *out, const struct er_profile *profile, const char *title, size_t rows);
/* Ends the page er_report_html began (after any more sections). */
int er_report_html_end(FILE *out);

#endif
