#include "frame.h"
#include <string.h>
#include "cobs.h"
#include "crc16.h"

void decoder_reset(frame_decoder_t *d) {
    d->len = 0;
    d->overflow = false;
}

static bool finish(frame_decoder_t *d, frame_t *out) {
    uint8_t raw[PROTO_MAX_ENCODED];
    int n = cobs_decode(d->buf, d->len, raw);
    if (n < 0) {
        d->stats.cobs_errors++;
        return false;
    }
    if (n < 5) {
        d->stats.truncated++;
        return false;
    }
    /* unsigned: a uint8_t << 8 would overflow a 16-bit int (AVR) */
    uint16_t want = (uint16_t)((unsigned)raw[n - 2] << 8 | raw[n - 1]);
    if (crc16(CRC16_INIT, raw, (size_t)n - 2) != want) {
        d->stats.crc_errors++;
        return false;
    }
    if (raw[2] != n - 5) { /* e.g. a trailing zero lost: the CRC alone would not notice */
        d->stats.truncated++;
        return false;
    }
    if (n - 5 > PROTO_MAX_PAYLOAD) {
        d->stats.oversized++;
        return false;
    }
    out->type = raw[0];
    out->seq = raw[1];
    out->len = (uint8_t)(n - 5);
    memcpy(out->payload, raw + 3, out->len);
    d->stats.frames++;
    return true;
}

bool decoder_push(frame_decoder_t *d, uint8_t byte, frame_t *out) {
    if (byte != 0) {
        if (d->overflow)
            return false;
        if (d->len >= sizeof d->buf) { /* too long: drop up to the next delimiter */
            d->overflow = true;
            d->len = 0;
            return false;
        }
        d->buf[d->len++] = byte;
        return false;
    }
    bool ok = false;
    if (d->overflow)
        d->stats.oversized++;
    else if (d->len > 0)
        ok = finish(d, out);
    decoder_reset(d);
    return ok;
}

size_t frame_encode(uint8_t type, uint8_t seq, const uint8_t *payload, size_t len, uint8_t *out) {
    uint8_t raw[PROTO_MAX_FRAME];
    if (len > PROTO_MAX_PAYLOAD)
        return 0;
    raw[0] = type;
    raw[1] = seq;
    raw[2] = (uint8_t)len;
    if (len)
        memcpy(raw + 3, payload, len);
    uint16_t crc = crc16(CRC16_INIT, raw, len + 3);
    raw[len + 3] = (uint8_t)(crc >> 8);
    raw[len + 4] = (uint8_t)crc;
    out[0] = 0;
    size_t n = cobs_encode(raw, len + 5, out + 1);
    out[n + 1] = 0;
    return n + 2;
}
