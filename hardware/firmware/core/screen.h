/* 128x64 1-bit framebuffer in SSD1306 page layout, and the table's screen layout.
 * screen_render mirrors firmware_bridge/screen.py::render pixel for pixel. */
#ifndef SCREEN_H_INCLUDED
#define SCREEN_H_INCLUDED
#include <stdbool.h>
#include <stdint.h>
#include "table.h"

#define SCREEN_W 128
#define SCREEN_H 64
#define SCREEN_BYTES (SCREEN_W * SCREEN_H / 8)

typedef struct {
    uint8_t px[SCREEN_BYTES]; /* byte page*128 + x, bit y%8 */
} screen_t;

void screen_clear(screen_t *s);
void screen_fill_rect(screen_t *s, int x, int y, int w, int h, int value);
void screen_text(screen_t *s, int x, int y, const char *text, int scale, int value);
void screen_render(screen_t *s, const table_t *t, bool online);

#endif
