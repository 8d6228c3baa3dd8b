/* Experiment reader; see er/er_reader.h. */
#define _GNU_SOURCE
#include "er/er_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "er/er_format.h"

static int slurp(const char *dir, const char *name, unsigned char **out, size_t *len)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  *out = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return -errno;
  }
  unsigned char *buf = malloc((size_t)st.st_size + 1);
  size_t got = 0;
  while (buf != NULL && got < (size_t)st.st_size) {
    ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  close(fd);
  if (buf == NULL)
    return -ENOMEM;
  buf[got] = '\0';
  *out = buf;
  *len = got;
  return 0;
}

/* Value of attribute NAME="…" inside the tag text LINE, or NULL. */
static char *attr(const char *line, const char *name, char *out, size_t out_len)
{
  char key[64];
  snprintf(key, sizeof key, " %s=\"", name);
  const char *p = strstr(line, key);
  if (p == NULL)
    return NULL;
  p += strlen(key);
  const char *end = strchr(p, '"');
  if (end == NULL)
    return NULL;
  size_t n = (size_t)(end - p) < out_len - 1 ? (size_t)(end - p) : out_len - 1;
  memcpy(out, p, n);
  out[n] = '\0';
  return out;
}

static void unescape(char *s)
{
  static const struct { const char *ent; char ch; } ents[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  char *o = s;
  while (*s) {
    size_t i;
    for (i = 0; i < sizeof ents / sizeof ents[0]; i++)
      if (strncmp(s, ents[i].ent, strlen(ents[i].ent)) == 0)
        break;
    if (i < sizeof ents / sizeof ents[0]) {
      *o++ = ents[i].ch;
      s += strlen(ents[i].ent);
    } else {
      *o++ = *s++;
    }
  }
  *o = '\0';
}

static int64_t parse_tstamp(const char *text)
{
  long long sec = 0, ns = 0;
  sscanf(text, "%lld.%lld", &sec, &ns);
  return sec * 1000000000LL + ns;
}

static char *element_text(const char *line)
{
  const char *open_end = strchr(line, '>');
  const char *close = strstr(line, "</");
  if (open_end == NULL || close == NULL || close < open_end)
    return strdup("");
  char *text = strndup(open_end + 1, (size_t)(close - open_end - 1));
  unescape(text);
  return text;
}

static void push_string(char ***list, size_t *n, char *s)
{
  *list = realloc(*list, (*n + 1) * sizeof **list);
  (*list)[(*n)++] = s;
}

static void parse_log_line(struct er_experiment *exp, const char *line)
{
  char v[4096];
  if (strstr(line, "<profile name=\"profile\"") != NULL) {
    if (attr(line, "ptimer", v, sizeof v))
      exp->ptimer_us = atol(v);
    if (attr(line, "numstates", v, sizeof v))
      exp->numstates = atoi(v);
  } else if (strstr(line, "<event kind=\"run\"") != NULL) {
    exp->has_run = 1;
    exp->has_exit = 0; /* an exit must follow the last run */
    if (attr(line, "tstamp", v, sizeof v))
      exp->run_tstamp = parse_tstamp(v);
  } else if (strstr(line, "<event kind=\"exit\"") != NULL) {
    exp->has_exit = 1;
    exp->exit_tstamp = attr(line, "tstamp", v, sizeof v) ? parse_tstamp(v) : 0;
  } else if (strstr(line, "<event kind=\"sample\"") != NULL) {
    size_t n = exp->n_sample_events;
    exp->sample_tstamps = realloc(exp->sample_tstamps, (n + 1) * sizeof *exp->sample_tstamps);
    exp->sample_tstamps[n] = attr(line, "tstamp", v, sizeof v) ? parse_tstamp(v) : 0;
    push_string(&exp->sample_labels, &n, strdup(attr(line, "label", v, sizeof v) ? v : ""));
    exp->n_sample_events++;
  } else if (strstr(line, "<event kind=\"pause\"") != NULL) {
    exp->pauses = realloc(exp->pauses, (exp->n_pauses + 1) * sizeof *exp->pauses);
    exp->pauses[exp->n_pauses].start = attr(line, "tstamp", v, sizeof v) ? parse_tstamp(v) : 0;
    exp->pauses[exp->n_pauses++].end = -1;
  } else if (strstr(line, "<event kind=\"resume\"") != NULL) {
    if (exp->n_pauses > 0 && exp->pauses[exp->n_pauses - 1].end < 0)
      exp->pauses[exp->n_pauses - 1].end = attr(line, "tstamp", v, sizeof v) ? parse_tstamp(v) : 0;
  } else if (strstr(line, "<event kind=\"comment\"") != NULL) {
    push_string(&exp->comments, &exp->n_comments, element_text(line));
  } else if (strstr(line, "<event kind=\"cwarn\"") != NULL || strstr(line, "<event kind=\"cerror\"") != NULL) {
    /* "id N: text": the id says what the reader will print (§3.7) */
    char *text = element_text(line), *item = NULL;
    if (asprintf(&item, "id %s: %s", attr(line, "id", v, sizeof v) ? v : "?", text) < 0)
      item = NULL;
    free(text);
    push_string(&exp->warnings, &exp->n_warnings, item ? item : strdup(""));
  }
}

static void parse_map_line(struct er_experiment *exp, const char *line)
{
  char v[4096];
  if (strstr(line, "<event kind=\"map\"") != NULL && strstr(line, "object=\"segment\"") != NULL) {
    struct er_segment seg = {0};
    seg.unmap_tstamp = -1;
    if (attr(line, "vaddr", v, sizeof v))
      seg.vaddr = strtoull(v, NULL, 0);
    if (attr(line, "size", v, sizeof v))
      seg.size = strtoull(v, NULL, 0);
    if (attr(line, "foffset", v, sizeof v))
      seg.foffset = (uint64_t)strtoll(v, NULL, 0);
    if (attr(line, "modes", v, sizeof v))
      seg.modes = (unsigned)strtoul(v, NULL, 0);
    if (attr(line, "tstamp", v, sizeof v))
      seg.tstamp = parse_tstamp(v);
    if (attr(line, "name", v, sizeof v)) {
      unescape(v);
      seg.name = strdup(v);
    } else {
      seg.name = strdup("");
    }
    exp->segments = realloc(exp->segments, (exp->n_segments + 1) * sizeof *exp->segments);
    exp->segments[exp->n_segments++] = seg;
  } else if (strstr(line, "<event kind=\"unmap\"") != NULL) {
    if (!attr(line, "vaddr", v, sizeof v))
      return;
    uint64_t vaddr = strtoull(v, NULL, 0);
    int64_t when = attr(line, "tstamp", v, sizeof v) ? parse_tstamp(v) : 0;
    for (size_t i = exp->n_segments; i-- > 0;)
      if (exp->segments[i].vaddr == vaddr && exp->segments[i].unmap_tstamp < 0) {
        exp->segments[i].unmap_tstamp = when;
        break;
      }
  }
}

static int for_each_line(const char *dir, const char *name, struct er_experiment *exp,
                         void (*fn)(struct er_experiment *, const char *))
{
  unsigned char *text;
  size_t len;
  int rc = slurp(dir, name, &text, &len);
  if (rc < 0)
    return rc;
  /* NUL padding is legal anywhere (§2.3): treat it as a line break. */
  for (size_t i = 0; i < len; i++)
    if (text[i] == '\0')
      text[i] = '\n';
  char *save = NULL;
  for (char *line = strtok_r((char *)text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
    fn(exp, line);
  free(text);
  return 0;
}

size_t er_walk_packets(const unsigned char *data, size_t len,
                       void (*fn)(const unsigned char *packet, uint16_t type, uint16_t size, void *arg), void *arg)
{
  size_t off = 0, invalid = 0;
  while (off + 4 <= len) {
    struct er_packet_header h;
    memcpy(&h, data + off, sizeof h);
    if (h.tsize == 0) {
      off = (off / ER_READER_CHUNK + 1) * ER_READER_CHUNK;
      continue;
    }
    if (h.tsize % 4 != 0 || h.tsize < 4) {
      invalid++;
      off = (off / ER_READER_CHUNK + 1) * ER_READER_CHUNK;
      continue;
    }
    if (off + h.tsize > len && h.type != ER_PKT_EMPTY && h.type != ER_PKT_CLOSED)
      break; /* runs past the end: the reader stops quietly */
    if (h.type != ER_PKT_EMPTY && h.type != ER_PKT_CLOSED)
      fn(data + off, h.type, h.tsize, arg);
    off += h.tsize;
  }
  return invalid;
}

static void collect_frame(const unsigned char *p, uint16_t type, uint16_t size, void *arg)
{
  struct er_experiment *exp = arg;
  if (type != ER_PKT_FRAME || size < sizeof(struct er_frame_packet) + sizeof(struct er_frame_info))
    return;
  struct er_frame_packet head;
  struct er_frame_info info;
  memcpy(&head, p, sizeof head);
  memcpy(&info, p + head.hsize, sizeof info);
  if ((info.kind & ~ER_FRAME_INFO_COMPRESSED) != ER_FRAME_INFO_STACK || info.hsize < sizeof info)
    return;
  struct er_stack st = {head.uid, (info.hsize - sizeof info) / 8, NULL};
  st.pcs = malloc(st.n * 8 + 8);
  memcpy(st.pcs, p + head.hsize + sizeof info, st.n * 8);
  exp->stacks = realloc(exp->stacks, (exp->n_stacks + 1) * sizeof *exp->stacks);
  exp->stacks[exp->n_stacks++] = st;
}

static void collect_clock(const unsigned char *p, uint16_t type, uint16_t size, void *arg)
{
  struct er_experiment *exp = arg;
  if (type != ER_PKT_CLOCK || size != sizeof(struct er_clock_packet))
    return;
  struct er_clock_packet pk;
  memcpy(&pk, p, sizeof pk);
  struct er_clock_sample s = {pk.lwpid, pk.thrid, pk.cpuid, pk.tstamp, pk.frinfo, pk.mstate, pk.ntick};
  exp->clock = realloc(exp->clock, (exp->n_clock + 1) * sizeof *exp->clock);
  exp->clock[exp->n_clock++] = s;
}

static int by_frame_uid(const void *a, const void *b)
{
  uint64_t x = ((const struct er_stack *)a)->frame_uid, y = ((const struct er_stack *)b)->frame_uid;
  return x < y ? -1 : x > y;
}

static void walk_file(const char *dir, const char *name, struct er_experiment *exp,
                      void (*fn)(const unsigned char *, uint16_t, uint16_t, void *))
{
  unsigned char *data;
  size_t len;
  if (slurp(dir, name, &data, &len) == 0) {
    exp->invalid_packets += er_walk_packets(data, len, fn, exp);
    free(data);
  }
}

/* Starts reading the experiment at PATH with the one file it cannot do
 * without (NAME); 0, or -1 with a message in ERR. */
static int begin_reading(const char *path, struct er_experiment *exp, const char *name,
                         void (*fn)(struct er_experiment *, const char *), char *err, size_t err_len)
{
  memset(exp, 0, sizeof *exp);
  exp->path = strdup(path);
  int rc = for_each_line(path, name, exp, fn);
  if (rc < 0) {
    snprintf(err, err_len, "%s: cannot read %s: %s", path, name, strerror(-rc));
    er_experiment_close(exp);
    return -1;
  }
  return 0;
}

int er_experiment_open_map(const char *path, struct er_experiment *exp, char *err, size_t err_len)
{
  return begin_reading(path, exp, "map.xml", parse_map_line, err, err_len);
}

int er_experiment_open(const char *path, struct er_experiment *exp, char *err, size_t err_len)
{
  if (begin_reading(path, exp, "log.xml", parse_log_line, err, err_len) != 0)
    return -1;
  for_each_line(path, "map.xml", exp, parse_map_line);
  walk_file(path, "data.frameinfo", exp, collect_frame);
  qsort(exp->stacks, exp->n_stacks, sizeof *exp->stacks, by_frame_uid);
  walk_file(path, "profile", exp, collect_clock);
  char ov[4096];
  struct stat st;
  snprintf(ov, sizeof ov, "%s/overview", path);
  if (stat(ov, &st) == 0)
    exp->overview_bytes = (size_t)st.st_size;
  return 0;
}

void er_experiment_close(struct er_experiment *exp)
{
  free(exp->path);
  for (size_t i = 0; i < exp->n_comments; i++)
    free(exp->comments[i]);
  for (size_t i = 0; i < exp->n_sample_events; i++)
    free(exp->sample_labels[i]);
  free(exp->sample_labels);
  free(exp->sample_tstamps);
  free(exp->pauses);
  for (size_t i = 0; i < exp->n_warnings; i++)
    free(exp->warnings[i]);
  for (size_t i = 0; i < exp->n_segments; i++)
    free(exp->segments[i].name);
  for (size_t i = 0; i < exp->n_stacks; i++)
    free(exp->stacks[i].pcs);
  free(exp->comments);
  free(exp->warnings);
  free(exp->segments);
  free(exp->stacks);
  free(exp->clock);
  memset(exp, 0, sizeof *exp);
}

const struct er_stack *er_experiment_stack(const struct er_experiment *exp, uint64_t frame_uid)
{
  struct er_stack key = {frame_uid, 0, NULL};
  return bsearch(&key, exp->stacks, exp->n_stacks, sizeof key, by_frame_uid);
}

const struct er_segment *er_experiment_segment(const struct er_experiment *exp, uint64_t pc)
{
  for (size_t i = exp->n_segments; i-- > 0;) {
    const struct er_segment *s = &exp->segments[i];
    if (pc >= s->vaddr && pc - s->vaddr < s->size)
      return s;
  }
  return NULL;
}
