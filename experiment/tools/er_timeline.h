/* The HTML report's timeline (er_timeline.c). */
#ifndef ER_TIMELINE_H
#define ER_TIMELINE_H

#include <stdio.h>

#include "er/er_names.h"
#include "er/er_reader.h"

/* Writes into OUT (an HTML page being written) a section with EXP's
 * threads over time: one track per thread, each clock packet a span
 * coloured by its state (on a CPU, user or system; off it by reason),
 * sample points and pauses marked, zoomed with the mouse wheel and moved
 * by dragging.  0, or -1 on a write error. */
int er_timeline_html(FILE *out, const struct er_experiment *exp, struct er_names *names);

#endif
