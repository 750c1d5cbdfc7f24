/* Board layer for the Raspberry Pi Pico: USB CDC serial, WS2812 ring on PIO,
 * SSD1306 128x64 OLED on I2C0, three buttons. Everything else is the portable
 * core in ../core, the same code the host emulator runs.
 *
 * Pinout (see hardware/WIRING.md):
 *   GP2  -> 74AHCT125 -> 330R -> ring DIN      GP4 SDA, GP5 SCL -> OLED (0x3C)
 *   GP10 confirm, GP11 undo, GP12 new hand: buttons to GND (internal pull-ups)
 *   GP25 on-board LED: lit while the host is online
 */
#include <stdio.h>
#include "hardware/i2c.h"
#include "hardware/pio.h"
#include "pico/rand.h"
#include "pico/stdlib.h"
#include "ws2812.pio.h"
#include "../core/board.h"
#include "../core/firmware.h"

#define PIN_RING 2
#define PIN_SDA 4
#define PIN_SCL 5
#define PIN_STATUS 25
#define OLED_ADDR 0x3C
#define SEATS 6
#define LEDS_PER_SEAT 4 /* a 24-LED ring */
#define DEBOUNCE_MS 20

static const uint BUTTON_PINS[3] = {10, 11, 12}; /* BUTTON_CONFIRM, _UNDO, _NEW_HAND */
static PIO ring_pio;
static uint ring_sm;

uint32_t board_millis(void) { return to_ms_since_boot(get_absolute_time()); }

void board_serial_write(const uint8_t *data, size_t len) {
    if (!stdio_usb_connected())
        return; /* nobody listening: drop it, like a UART with no cable */
    for (size_t i = 0; i < len; i++)
        putchar_raw(data[i]);
    stdio_flush();
}

void board_ring_show(const uint8_t *rgb, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t grb = (uint32_t)rgb[3 * i + 1] << 16 | (uint32_t)rgb[3 * i] << 8 | rgb[3 * i + 2];
        pio_sm_put_blocking(ring_pio, ring_sm, grb << 8u);
    }
}

static void oled_cmd(const uint8_t *cmds, size_t n) {
    uint8_t buf[2] = {0x00, 0};
    for (size_t i = 0; i < n; i++) {
        buf[1] = cmds[i];
        i2c_write_blocking(i2c0, OLED_ADDR, buf, 2, false);
    }
}

static void oled_init(void) {
    static const uint8_t init[] = {
        0xAE,       /* display off */
        0xD5, 0x80, /* clock */
        0xA8, 0x3F, /* multiplex 64 */
        0xD3, 0x00, /* no offset */
        0x40,       /* start line 0 */
        0x8D, 0x14, /* charge pump on */
        0x20, 0x00, /* horizontal addressing */
        0xA1, 0xC8, /* segment remap, COM scan down: origin top left */
        0xDA, 0x12, /* COM pins */
        0x81, 0x80, /* contrast */
        0xD9, 0xF1, /* precharge */
        0xDB, 0x40, /* VCOMH */
        0xA4, 0xA6, /* show RAM, not inverted */
        0xAF,       /* display on */
    };
    oled_cmd(init, sizeof init);
}

void board_display_show(const uint8_t *fb, uint8_t contrast) {
    uint8_t c[] = {0x81, contrast, 0x21, 0, 127, 0x22, 0, 7};
    oled_cmd(c, sizeof c);
    uint8_t buf[1 + 128];
    buf[0] = 0x40; /* data */
    for (int page = 0; page < 8; page++) {
        for (int x = 0; x < 128; x++)
            buf[1 + x] = fb[page * 128 + x];
        i2c_write_blocking(i2c0, OLED_ADDR, buf, sizeof buf, false);
    }
}

static void poll_buttons(uint32_t now) {
    static bool stable[3] = {true, true, true}; /* pulled up: true = released */
    static uint32_t changed_at[3];
    static bool last_raw[3] = {true, true, true};
    for (int i = 0; i < 3; i++) {
        bool raw = gpio_get(BUTTON_PINS[i]);
        if (raw != last_raw[i]) {
            last_raw[i] = raw;
            changed_at[i] = now;
        } else if (raw != stable[i] && now - changed_at[i] >= DEBOUNCE_MS) {
            stable[i] = raw;
            if (!raw)
                fw_button((uint8_t)i);
        }
    }
}

int main(void) {
    stdio_init_all();
    gpio_init(PIN_STATUS);
    gpio_set_dir(PIN_STATUS, GPIO_OUT);
    for (int i = 0; i < 3; i++) {
        gpio_init(BUTTON_PINS[i]);
        gpio_set_dir(BUTTON_PINS[i], GPIO_IN);
        gpio_pull_up(BUTTON_PINS[i]);
    }
    i2c_init(i2c0, 400 * 1000);
    gpio_set_function(PIN_SDA, GPIO_FUNC_I2C);
    gpio_set_function(PIN_SCL, GPIO_FUNC_I2C);
    gpio_pull_up(PIN_SDA);
    gpio_pull_up(PIN_SCL);
    oled_init();
    ring_pio = pio0;
    ring_sm = pio_claim_unused_sm(ring_pio, true);
    ws2812_program_init(ring_pio, ring_sm, pio_add_program(ring_pio, &ws2812_program), PIN_RING,
                        800000);
    fw_config_t cfg = {SEATS, LEDS_PER_SEAT, 3, get_rand_32()};
    fw_init(&cfg);
    for (;;) {
        uint8_t buf[64];
        size_t n = 0;
        int c;
        while (n < sizeof buf && (c = getchar_timeout_us(0)) != PICO_ERROR_TIMEOUT)
            buf[n++] = (uint8_t)c;
        if (n)
            fw_rx_bytes(buf, n);
        poll_buttons(board_millis());
        fw_poll();
        gpio_put(PIN_STATUS, fw_host_online());
    }
}
