/* Framing: type, seq, len, payload, CRC-16 big-endian; COBS between 0x00 delimiters.
 * The length byte catches a lost trailing zero, which a CRC without final XOR cannot. */
#ifndef FRAME_H
#define FRAME_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "proto.h"

typedef struct {
    uint8_t type;
    uint8_t seq;
    uint8_t len;
    uint8_t payload[PROTO_MAX_PAYLOAD];
} frame_t;

typedef struct {
    uint32_t frames;
    uint32_t cobs_errors;
    uint32_t crc_errors;
    uint32_t truncated;
    uint32_t oversized;
} decoder_stats_t;

typedef struct {
    uint8_t buf[PROTO_MAX_ENCODED];
    size_t len;
    bool overflow;
    decoder_stats_t stats;
} frame_decoder_t;

/* Largest encoded frame including both delimiters. */
#define FRAME_WIRE_MAX (PROTO_MAX_ENCODED + 2)

void decoder_reset(frame_decoder_t *d);
/* Feeds one byte; returns true when *out holds a frame that passed its CRC. */
bool decoder_push(frame_decoder_t *d, uint8_t byte, frame_t *out);
/* Writes 00 <cobs> 00 into out (FRAME_WIRE_MAX bytes); returns its length, 0 if len too big. */
size_t frame_encode(uint8_t type, uint8_t seq, const uint8_t *payload, size_t len, uint8_t *out);

#endif
