/* The experiment's XML files (log.xml, map.xml) read with libxml2.
 *
 * The format has several top-level elements and no root (§2.3), and may
 * hold NUL bytes anywhere (the collector's padding), which the reader
 * ignores: the text is fed to libxml2 without its NULs, inside a root of
 * our own opened on the first line, so line numbers in messages are the
 * file's.  A syntax error is an error at its line, as in gprofng, where it
 * is fatal too; stray text between elements is one as well. */
#ifndef ER_XML_H
#define ER_XML_H

#include <stddef.h>

#include <libxml/tree.h>

/* Calls FN for each top-level element of DIR/NAME, in order.  Returns 0;
 * -ENOENT (or another negative errno) when the file cannot be read;
 * -EILSEQ when it is not well-formed, with "NAME: line L: what" in ERR. */
int er_xml_each_element(const char *dir, const char *name, void (*fn)(void *ctx, xmlNode *element), void *ctx,
                        char *err, size_t err_len);

/* Attribute NAME of ELEMENT copied into OUT (entities decoded), or NULL. */
const char *er_xml_attr(xmlNode *element, const char *name, char *out, size_t out_len);
/* Nonzero when ELEMENT is <NAME ...> with kind="KIND" (KIND NULL: any). */
int er_xml_is(xmlNode *element, const char *name, const char *kind);
/* The element's text content (entities decoded), malloc'd. */
char *er_xml_text(xmlNode *element);

#endif
