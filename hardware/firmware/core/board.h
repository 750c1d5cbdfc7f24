/* The thin board layer: everything the portable core needs from the hardware.
 * Implemented by pico/main.c (RP2040), host/emulator.c (pseudo-terminal) and,
 * as no-ops for the size-measuring cross builds, cross/stub_board.c. */
#ifndef BOARD_H
#define BOARD_H
#include <stddef.h>
#include <stdint.h>

uint32_t board_millis(void);
/* Queue bytes for the host; may drop them if nobody listens (like a UART). */
void board_serial_write(const uint8_t *data, size_t len);
/* n_leds RGB triples, already scaled by brightness. */
void board_ring_show(const uint8_t *rgb, size_t n_leds);
/* 1024 bytes in SSD1306 page layout; contrast 0-255. */
void board_display_show(const uint8_t *framebuffer, uint8_t contrast);

#endif
