/* A do-nothing board layer and main loop for the cross builds (make cross-m0,
 * make cross-avr): it links the whole portable core for a bare-metal target
 * without any SDK, which proves core/ needs nothing from a host OS and
 * measures its flash and RAM. It does not drive any hardware. */
#include <stddef.h>
#include <stdint.h>
#include "board.h"
#include "firmware.h"
#include "proto.h"

/* Volatile so that the compiler cannot fold the main loop away: on a real
 * board these would be the timer and the UART/USB receive register. */
static volatile uint32_t fake_millis;
static volatile uint8_t fake_rx, fake_button;

uint32_t board_millis(void) { return fake_millis; }

void board_serial_write(const uint8_t *data, size_t len) {
    (void)data;
    (void)len;
}

void board_ring_show(const uint8_t *rgb, size_t n_leds) {
    (void)rgb;
    (void)n_leds;
}

void board_display_show(const uint8_t *framebuffer, uint8_t contrast) {
    (void)framebuffer;
    (void)contrast;
}

int main(void) {
    const fw_config_t cfg = {PROTO_MAX_SEATS, 4, 3, 0x5EED1234u};
    fw_init(&cfg);
    for (;;) {
        uint8_t byte = fake_rx;
        fw_rx_bytes(&byte, 1);
        if (fake_button)
            fw_button((uint8_t)(fake_button - 1u));
        fw_poll();
        fake_millis = fake_millis + 1u;
    }
}
