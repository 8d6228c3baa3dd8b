/* Protocol buffers' wire format (er_protobuf.h): a field is a varint key
 * (field number << 3 | wire type), then a varint (type 0) or a length and
 * that many bytes (type 2). */
#include "er_protobuf.h"

#include <stdlib.h>
#include <string.h>

#define WIRE_VARINT 0
#define WIRE_BYTES 2

static void append(struct pb_buffer *b, const void *bytes, size_t len)
{
  if (b->failed)
    return;
  if (b->len + len > b->room) {
    size_t room = b->room ? b->room * 2 : 256;
    while (room < b->len + len)
      room *= 2;
    unsigned char *more = realloc(b->data, room);
    if (more == NULL) {
      b->failed = 1;
      return;
    }
    b->data = more, b->room = room;
  }
  memcpy(b->data + b->len, bytes, len);
  b->len += len;
}

static void varint(struct pb_buffer *b, uint64_t v)
{
  unsigned char out[10];
  size_t n = 0;
  do {
    out[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v != 0);
  append(b, out, n);
}

void pb_varint_field(struct pb_buffer *b, uint32_t field, uint64_t value)
{
  varint(b, (uint64_t)field << 3 | WIRE_VARINT);
  varint(b, value);
}

void pb_varint_field_nonzero(struct pb_buffer *b, uint32_t field, uint64_t value)
{
  if (value != 0)
    pb_varint_field(b, field, value);
}

void pb_bytes_field(struct pb_buffer *b, uint32_t field, const void *bytes, size_t len)
{
  varint(b, (uint64_t)field << 3 | WIRE_BYTES);
  varint(b, len);
  append(b, bytes, len);
}

void pb_string_field(struct pb_buffer *b, uint32_t field, const char *text)
{
  pb_bytes_field(b, field, text, strlen(text));
}

void pb_message_field(struct pb_buffer *b, uint32_t field, const struct pb_buffer *message)
{
  if (message->failed)
    b->failed = 1;
  pb_bytes_field(b, field, message->data, message->len);
}

void pb_packed_field(struct pb_buffer *b, uint32_t field, const uint64_t *values, size_t n)
{
  struct pb_buffer packed = {0};
  for (size_t i = 0; i < n; i++)
    varint(&packed, values[i]);
  if (n > 0)
    pb_message_field(b, field, &packed);
  pb_free(&packed);
}

void pb_reset(struct pb_buffer *b)
{
  b->len = 0;
  b->failed = 0;
}

void pb_free(struct pb_buffer *b)
{
  free(b->data);
  memset(b, 0, sizeof *b);
}
