/* Protocol buffers' wire format, written by hand (no library: pprof's
 * profile.proto needs only varints and length-delimited fields).  A
 * message is built in a growing buffer; a nested message is built in one
 * of its own and appended as bytes. */
#ifndef ER_PROTOBUF_H
#define ER_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

struct pb_buffer {
  unsigned char *data;
  size_t len, room;
  int failed; /* out of memory: everything after is dropped */
};

void pb_varint_field(struct pb_buffer *b, uint32_t field, uint64_t value);
/* Omitted when VALUE is 0 (proto3's default). */
void pb_varint_field_nonzero(struct pb_buffer *b, uint32_t field, uint64_t value);
void pb_bytes_field(struct pb_buffer *b, uint32_t field, const void *bytes, size_t len);
void pb_string_field(struct pb_buffer *b, uint32_t field, const char *text);
/* A nested message (its bytes). */
void pb_message_field(struct pb_buffer *b, uint32_t field, const struct pb_buffer *message);
/* A packed repeated field of varints. */
void pb_packed_field(struct pb_buffer *b, uint32_t field, const uint64_t *values, size_t n);
void pb_reset(struct pb_buffer *b);
void pb_free(struct pb_buffer *b);

#endif
