#ifndef COBS_H
#define COBS_H
#include <stddef.h>
#include <stdint.h>

/* Encodes len bytes into out (room for len + len/254 + 1); returns the length. */
size_t cobs_encode(const uint8_t *in, size_t len, uint8_t *out);
/* Decodes into out (room for len bytes); returns the length, or -1 if invalid. */
int cobs_decode(const uint8_t *in, size_t len, uint8_t *out);

#endif
