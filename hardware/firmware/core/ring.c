#include "ring.h"
#include <string.h>

unsigned ring_segment_start(const ring_ctx_t *ctx, uint8_t players, uint8_t seat) {
    unsigned total = (unsigned)ctx->seats * ctx->leds_per_seat;
    unsigned p = players ? players : ctx->seats;
    return (unsigned)seat * total / p;
}

static void put(uint8_t *rgb, unsigned total, unsigned i, uint8_t r, uint8_t g, uint8_t b) {
    i %= total;
    rgb[3 * i] = r;
    rgb[3 * i + 1] = g;
    rgb[3 * i + 2] = b;
}

static void segment(const ring_ctx_t *c, const table_t *t, uint8_t *rgb, uint8_t seat,
                    uint8_t r, uint8_t g, uint8_t b) {
    unsigned total = (unsigned)c->seats * c->leds_per_seat;
    unsigned start = ring_segment_start(c, t->players, seat);
    for (unsigned k = 0; k < c->leds_per_seat; k++)
        put(rgb, total, start + k, r, g, b);
}

void ring_render(const ring_ctx_t *c, const table_t *t, bool online, uint32_t now,
                 uint8_t *rgb) {
    unsigned total = (unsigned)c->seats * c->leds_per_seat;
    memset(rgb, 0, 3 * total);
    if (!online) { /* slow blue breathing: the host is gone */
        uint32_t ph = now % 2000;
        uint8_t level = (uint8_t)((ph < 1000 ? ph : 2000 - ph) * 40 / 1000);
        for (unsigned i = 0; i < total; i++)
            put(rgb, total, i, 0, 0, level);
        return;
    }
    bool blink = (now / 125) % 2 == 0;
    if (t->outcome == OUTCOME_TIE) {
        for (unsigned i = 0; i < total; i++)
            put(rgb, total, i, 255, 120, 0);
    } else if (t->outcome == OUTCOME_WIN) {
        for (uint8_t s = 0; s < PROTO_MAX_SEATS && s < c->seats; s++)
            if (t->winners >> s & 1)
                segment(c, t, rgb, s, 0, 255, 0);
    } else {
        if (t->players)
            put(rgb, total, ring_segment_start(c, t->players, t->dealer), 24, 24, 24);
        if (t->n_draw) /* who draws first: the last LED of that seat, amber */
            put(rgb, total, ring_segment_start(c, t->players, t->draw[0]) + c->leds_per_seat - 1,
                255, 120, 0);
        if (t->turn != PROTO_SEAT_NONE && t->turn < c->seats)
            segment(c, t, rgb, t->turn, 0, 80, 255);
        if (t->trick_seat != PROTO_SEAT_NONE && t->trick_seat < c->seats &&
            now - c->trick_at < RING_TRICK_FLASH_MS)
            segment(c, t, rgb, t->trick_seat, 0, blink ? 255 : 0, 0);
        if (t->error_kind) {
            bool flashing = now - c->error_at < RING_ERROR_FLASH_MS;
            uint8_t red = flashing ? (blink ? 255 : 0) : 255;
            if (t->error_seat != PROTO_SEAT_NONE && t->error_seat < c->seats) {
                if (flashing)
                    segment(c, t, rgb, t->error_seat, red, 0, 0);
                else
                    put(rgb, total, ring_segment_start(c, t->players, t->error_seat), red, 0, 0);
            } else if (flashing) {
                for (unsigned i = 0; i < total; i++)
                    put(rgb, total, i, red, 0, 0);
            }
        }
    }
    for (unsigned i = 0; i < 3 * total; i++)
        rgb[i] = (uint8_t)((unsigned)rgb[i] * t->brightness / 255u);
}
