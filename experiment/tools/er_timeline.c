/* Threads over time, for the HTML report: an SVG with one track per
 * thread, as gprofng-gui's Timeline shows them.  Each clock packet is a
 * span ending at its time and as long as the periods it stands for (a CPU
 * sample: the CPU time before it; an off-CPU packet: the time off CPU it
 * crossed), coloured by its state; its title names the state, the time
 * and the function it was in.  Sample points are thin lines, pauses grey
 * bands.  The page's script zooms the time axis with the wheel (around
 * the pointer), pans by dragging, and writes the axis' labels for the
 * range in view, the lanes as wide as the page allows; without it the
 * whole run shows, 1000 units wide. */
#include "er_timeline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "er/er_format.h"
#include "er/er_offcpu.h"
#include "er_intern.h"

#define TRACK_HEIGHT 18
#define TRACK_GAP 6
#define LABEL_WIDTH 140
#define WIDTH 1000 /* the time axis' width in the SVG's units */

static const char *const state_colour[] = {
    "#3a9a3a", /* on a CPU, user */
    "#c9711f", /* waiting for a CPU */
    "#4a7fd4", /* asleep */
    "#8e4bc4", /* in I/O */
    "#d4b01a", /* on a lock */
    "#8a8a8a", /* blocked otherwise */
    "#c43b3b", /* stopped (GDB, a signal) */
    "#2aa198", /* in a page fault on code */
    "#2aa198", /* in a page fault on data */
};
#define SYSTEM_COLOUR "#1f6b1f"

static void put_text(FILE *out, const char *text)
{
  for (; *text; text++) {
    if (*text == '<')
      fputs("&lt;", out);
    else if (*text == '>')
      fputs("&gt;", out);
    else if (*text == '&')
      fputs("&amp;", out);
    else if (*text == '"')
      fputs("&quot;", out);
    else
      fputc(*text, out);
  }
}

/* The packet at index I of all clock packets, CPU samples first. */
static const struct er_clock_sample *packet_at(const struct er_experiment *exp, size_t i)
{
  return i < exp->n_clock ? &exp->clock[i] : &exp->offcpu[i - exp->n_clock];
}

static const char *leaf_name(const struct er_experiment *exp, struct er_names *names, uint64_t frinfo)
{
  const struct er_stack *st = er_experiment_stack(exp, frinfo);
  if (st == NULL || st->n == 0 || st->pcs[0] == ER_PC_UNWIND_FAILED || st->pcs[0] == ER_PC_TRUNCATED)
    return "(no stack)";
  return er_names_function(names, st->pcs[0]);
}

static void span(FILE *out, const struct er_experiment *exp, struct er_names *names, const struct er_clock_sample *s,
                 size_t track, double scale, int64_t tick_ns)
{
  double end = (double)(s->tstamp - exp->run_tstamp), start = end - (double)s->ntick * (double)tick_ns;
  if (start < 0)
    start = 0;
  int on_cpu = s->reason == ER_OFFCPU_NONE;
  const char *colour = on_cpu && s->mstate == ER_MSTATE_SYSTEM ? SYSTEM_COLOUR : state_colour[s->reason];
  fprintf(out, "<rect class=\"span\" x=\"%.3f\" y=\"%d\" width=\"%.3f\" height=\"%d\" fill=\"%s\"><title>", start * scale,
          (int)track * (TRACK_HEIGHT + TRACK_GAP), (end - start) * scale > 0.05 ? (end - start) * scale : 0.05,
          TRACK_HEIGHT, colour);
  fprintf(out, "at %.3f s, %s for %.3f s: ", end / 1e9,
          on_cpu ? (s->mstate == ER_MSTATE_SYSTEM ? "on a CPU (system)" : "on a CPU") : er_offcpu_reason_title(s->reason),
          (end - start) / 1e9);
  put_text(out, leaf_name(exp, names, s->frinfo));
  fputs("</title></rect>\n", out);
}

int er_timeline_html(FILE *out, const struct er_experiment *exp, struct er_names *names)
{
  if (exp->ptimer_us <= 0)
    return 0;
  int64_t tick_ns = exp->ptimer_us * 1000, last = 0;
  /* A track per thread, in the order threads first show; the packets
   * grouped by track (a counting sort: one pass, whatever the threads). */
  size_t n_packets = exp->n_clock + exp->n_offcpu;
  struct er_id_table tracks = {0}; /* thread id -> track */
  uint32_t *track_of = malloc((n_packets + 1) * sizeof *track_of);
  if (track_of == NULL)
    return -1;
  for (size_t i = 0; i < n_packets; i++) {
    const struct er_clock_sample *s = packet_at(exp, i);
    long id = er_id_of(&tracks, s->thrid);
    track_of[i] = id < 0 ? 0 : (uint32_t)id;
    last = s->tstamp - exp->run_tstamp > last ? s->tstamp - exp->run_tstamp : last;
  }
  size_t n_tracks = tracks.n;
  size_t *first = calloc(n_tracks + 1, sizeof *first), *order = malloc((n_packets + 1) * sizeof *order);
  if (first == NULL || order == NULL) {
    free(track_of), free(first), free(order), er_id_table_free(&tracks);
    return -1;
  }
  for (size_t i = 0; i < n_packets; i++)
    first[track_of[i] + 1]++;
  for (size_t t = 0; t < n_tracks; t++)
    first[t + 1] += first[t];
  for (size_t i = 0; i < n_packets; i++)
    order[first[track_of[i]]++] = i; /* each track's start moves to its end */
  for (size_t t = n_tracks; t > 0; t--) /* back to each track's first */
    first[t] = first[t - 1];
  first[0] = 0;
  if (exp->has_exit && exp->exit_tstamp > last)
    last = exp->exit_tstamp;
  double duration = last > 0 ? (double)last : 1.0, scale = WIDTH / duration;
  int height = (int)n_tracks * (TRACK_HEIGHT + TRACK_GAP) + 24;
  fprintf(out, "<h2>Timeline</h2>\n<p>Each thread over the run (%.3f s): ", duration / 1e9);
  static const char *const legend[] = {"on a CPU", "waiting for a CPU", "asleep", "in I/O", "on a lock", "blocked",
                                       "stopped", "in a page fault"};
  for (int r = 0; r < ER_OFFCPU_DATA_FAULT; r++) /* (one legend for both kinds of fault) */
    fprintf(out, "<span style=\"background:%s;color:white;padding:0 4px;margin-right:4px\">%s</span>", state_colour[r],
            legend[r]);
  fputs("sample points as lines, pauses grey. Wheel: zoom; drag: move; double-click: the whole run.</p>\n", out);
  fprintf(out, "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"100%%\" height=\"%d\" "
               "data-duration=\"%.0f\" data-tracks=\"%zu\" style=\"border:1px solid #ccc;user-select:none\">\n",
          height, duration, n_tracks);
  fprintf(out, "<g id=\"labels\">\n");
  for (size_t t = 0; t < n_tracks; t++) {
    const char *name = er_experiment_thread_name(exp, tracks.key[t]); /* (its comm, where recorded) */
    fprintf(out, "<text class=\"track-label\" x=\"4\" y=\"%d\" font-size=\"12\">thread %llu",
            (int)t * (TRACK_HEIGHT + TRACK_GAP) + 13, (unsigned long long)tracks.key[t]);
    if (name != NULL) {
      fputs(" ", out);
      put_text(out, name);
    }
    fputs("</text>\n", out);
  }
  fprintf(out, "</g>\n<svg id=\"lanes\" x=\"%d\" y=\"0\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "preserveAspectRatio=\"none\">\n",
          LABEL_WIDTH, WIDTH, height, WIDTH, height);
  for (size_t i = 0; i < exp->n_pauses; i++) {
    double start = (double)exp->pauses[i].start, end = exp->pauses[i].end < 0 ? duration : (double)exp->pauses[i].end;
    fprintf(out, "<rect class=\"pause\" x=\"%.3f\" y=\"0\" width=\"%.3f\" height=\"%d\" fill=\"#e0e0e0\"><title>paused "
                 "%.3f to %.3f s</title></rect>\n",
            start * scale, (end - start) * scale, height - 24, start / 1e9, end / 1e9);
  }
  for (size_t t = 0; t < n_tracks; t++) {
    fprintf(out, "<g class=\"track\" data-thread=\"%llu\">\n", (unsigned long long)tracks.key[t]);
    for (size_t k = first[t]; k < first[t + 1]; k++)
      span(out, exp, names, packet_at(exp, order[k]), t, scale, tick_ns);
    fputs("</g>\n", out);
  }
  for (size_t i = 0; i < exp->n_sample_events; i++) {
    fprintf(out, "<line class=\"sample-point\" x1=\"%.3f\" x2=\"%.3f\" y1=\"0\" y2=\"%d\" stroke=\"#444\" "
                 "stroke-width=\"0.5\" vector-effect=\"non-scaling-stroke\"><title>sample point %zu (",
            (double)exp->sample_tstamps[i] * scale, (double)exp->sample_tstamps[i] * scale, height - 24, i);
    put_text(out, exp->sample_labels[i] != NULL ? exp->sample_labels[i] : "");
    fprintf(out, ") at %.3f s</title></line>\n", (double)exp->sample_tstamps[i] / 1e9);
  }
  fprintf(out, "</svg>\n<g id=\"axis\" transform=\"translate(%d,%d)\"></g>\n</svg>\n", LABEL_WIDTH, height - 20);
  /* The script: the lanes take the box's width less the labels' (they
   * were 1000 units wide whatever the page's, the box's right part
   * empty); zoom and pan change their viewBox; the axis' labels are
   * placed on that width (placed on the lanes' bounding box, which grows
   * with the zoom, "22.793 s" stood where the lanes showed 37.3 s).  A
   * page address ending in #zoom=START,WIDTH (fractions of the run)
   * opens on that range. */
  fprintf(out,
          "<script>\n(function () {\n"
          "  var svg = document.getElementById('timeline'), lanes = document.getElementById('lanes');\n"
          "  var axis = document.getElementById('axis'), full = %d, h = %d, label = %d, dur = +svg.dataset.duration;\n"
          "  var x0 = 0, w = full, drag = null;\n"
          "  var asked = /zoom=([0-9.]+),([0-9.]+)/.exec(location.hash);\n"
          "  if (asked) { w = Math.min(full, Math.max(full / 100000, full * +asked[2]));\n"
          "               x0 = Math.min(full - w, Math.max(0, full * +asked[1])); }\n"
          "  function width() { var r = svg.getBoundingClientRect(); return Math.max(100, (r.width || full + label) - label); }\n"
          "  function draw() {\n"
          "    var px = width();\n"
          "    lanes.setAttribute('width', px);\n"
          "    lanes.setAttribute('viewBox', x0 + ' 0 ' + w + ' ' + h);\n"
          "    while (axis.firstChild) axis.removeChild(axis.firstChild);\n"
          "    for (var i = 0; i <= 10; i++) {\n"
          "      var t = document.createElementNS('http://www.w3.org/2000/svg', 'text');\n"
          "      t.setAttribute('x', i * px / 10); t.setAttribute('y', 14); t.setAttribute('font-size', 11);\n"
          "      t.setAttribute('text-anchor', i == 0 ? 'start' : i == 10 ? 'end' : 'middle');\n"
          "      t.setAttribute('class', 'tick');\n"
          "      t.textContent = ((x0 + i * w / 10) / full * dur / 1e9).toFixed(3) + ' s';\n"
          "      axis.appendChild(t);\n"
          "    }\n"
          "  }\n"
          "  function at(ev) { var r = svg.getBoundingClientRect(); return x0 + (ev.clientX - r.left - label) / width() * w; }\n"
          "  svg.addEventListener('wheel', function (ev) {\n"
          "    ev.preventDefault(); var c = at(ev), k = ev.deltaY < 0 ? 0.8 : 1.25;\n"
          "    w = Math.min(full, Math.max(full / 100000, w * k)); x0 = Math.min(full - w, Math.max(0, c - (c - x0) * k));\n"
          "    draw();\n"
          "  });\n"
          "  svg.addEventListener('mousedown', function (ev) { drag = {x: ev.clientX, x0: x0}; });\n"
          "  window.addEventListener('mouseup', function () { drag = null; });\n"
          "  window.addEventListener('mousemove', function (ev) {\n"
          "    if (!drag) return;\n"
          "    x0 = Math.min(full - w, Math.max(0, drag.x0 - (ev.clientX - drag.x) / width() * w)); draw();\n"
          "  });\n"
          "  svg.addEventListener('dblclick', function () { x0 = 0; w = full; draw(); });\n"
          "  window.addEventListener('resize', draw);\n"
          "  draw();\n"
          "})();\n</script>\n",
          WIDTH, height, LABEL_WIDTH);
  free(track_of);
  free(first);
  free(order);
  er_id_table_free(&tracks);
  return ferror(out) ? -1 : 0;
}
