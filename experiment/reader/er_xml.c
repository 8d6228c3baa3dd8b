/* log.xml and map.xml through libxml2; see er/er_xml.h. */
#define _GNU_SOURCE
#include "er/er_xml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "er/er_fileutil.h"
#include "er/er_text.h"

#define ROOT_OPEN "<er-file>"
#define ROOT_CLOSE "</er-file>"

/* DIR/NAME without its NUL bytes, inside our root element.  libxml2
 * takes an int length: no real log comes near the cap. */
static int load_wrapped(const char *dir, const char *name, char **out, size_t *out_len)
{
  size_t start = strlen(ROOT_OPEN), got;
  char *buf;
  int rc = er_read_file(dir, name, start, strlen(ROOT_CLOSE), 1u << 30, &buf, &got);
  if (rc < 0)
    return rc;
  memcpy(buf, ROOT_OPEN, start);
  size_t len = start;
  for (size_t r = start; r < start + got; r++)
    if (buf[r] != '\0')
      buf[len++] = buf[r];
  memcpy(buf + len, ROOT_CLOSE, strlen(ROOT_CLOSE));
  len += strlen(ROOT_CLOSE);
  buf[len] = '\0';
  *out = buf;
  *out_len = len;
  return 0;
}

static int only_blanks(const xmlChar *text)
{
  for (; text != NULL && *text; text++)
    if (*text != ' ' && *text != '\n' && *text != '\t' && *text != '\r')
      return 0;
  return 1;
}

int er_xml_each_element(const char *dir, const char *name, void (*fn)(void *ctx, xmlNode *element), void *ctx,
                        char *err, size_t err_len)
{
  char *text;
  size_t len;
  int rc = load_wrapped(dir, name, &text, &len);
  if (rc < 0)
    return rc;
  /* No network, no entity expansion, no DTD loading: the files are data. */
  xmlDoc *doc = xmlReadMemory(text, (int)len, name, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  free(text);
  if (doc == NULL) {
    const xmlError *e = xmlGetLastError();
    char what[256] = "not well-formed";
    if (e != NULL && e->message != NULL) {
      snprintf(what, sizeof what, "%s", e->message);
      what[strcspn(what, "\n")] = '\0';
    }
    snprintf(err, err_len, "%s: XML parse error at line %d: %s", name, e != NULL ? e->line : 0, what);
    return -EILSEQ;
  }
  xmlNode *root = xmlDocGetRootElement(doc);
  for (xmlNode *n = root != NULL ? root->children : NULL; n != NULL; n = n->next) {
    if (n->type == XML_ELEMENT_NODE) {
      fn(ctx, n);
    } else if (n->type == XML_TEXT_NODE && !only_blanks(n->content)) {
      snprintf(err, err_len, "%s: stray text at line %ld", name, xmlGetLineNo(n));
      xmlFreeDoc(doc);
      return -EILSEQ;
    }
  }
  xmlFreeDoc(doc);
  return 0;
}

const char *er_xml_attr(xmlNode *element, const char *name, char *out, size_t out_len)
{
  xmlChar *value = xmlGetProp(element, (const xmlChar *)name);
  if (value == NULL)
    return NULL;
  snprintf(out, out_len, "%s", (const char *)value);
  xmlFree(value);
  er_xml_unescape_bytes(out); /* the bytes the writer could not put in XML */
  return out;
}

int er_xml_is(xmlNode *element, const char *name, const char *kind)
{
  if (strcmp((const char *)element->name, name) != 0)
    return 0;
  if (kind == NULL)
    return 1;
  char v[64];
  return er_xml_attr(element, "kind", v, sizeof v) != NULL && strcmp(v, kind) == 0;
}

char *er_xml_text(xmlNode *element)
{
  xmlChar *content = xmlNodeGetContent(element);
  char *copy = strdup(content != NULL ? (const char *)content : "");
  xmlFree(content);
  if (copy != NULL)
    er_xml_unescape_bytes(copy);
  return copy;
}
