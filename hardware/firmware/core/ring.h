/* Colours of the WS2812 ring from the table state: a pure function of time. */
#ifndef RING_H
#define RING_H
#include <stdbool.h>
#include <stdint.h>
#include "table.h"

#define RING_MAX_LEDS 48
#define RING_TRICK_FLASH_MS 1500
#define RING_ERROR_FLASH_MS 3000

typedef struct {
    uint8_t seats, leds_per_seat; /* ring of seats * leds_per_seat LEDs */
    uint32_t trick_at, error_at;  /* when the trick winner / error last changed */
} ring_ctx_t;

/* Fills rgb[3 * seats * leds_per_seat]. */
void ring_render(const ring_ctx_t *ctx, const table_t *t, bool online, uint32_t now,
                 uint8_t *rgb);
/* First LED of a seat's segment: seats are spread evenly round the ring. */
unsigned ring_segment_start(const ring_ctx_t *ctx, uint8_t players, uint8_t seat);

#endif
