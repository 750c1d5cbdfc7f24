/* Board layer for Arduino-class boards with >= 4 KB of RAM (Mega 2560, Nano
 * Every, SAMD21/51, ESP32, Nano RP2040...): Serial at 115200, a WS2812 ring
 * through Adafruit_NeoPixel, an SSD1306 128x64 on Wire (0x3C), three buttons.
 * The protocol and state logic is the portable core in ../../core, used as an
 * Arduino library (it has a library.properties):
 *
 *   arduino-cli lib install "Adafruit NeoPixel"
 *   arduino-cli compile -b arduino:avr:mega --library ../../core .
 *   arduino-cli upload  -b arduino:avr:mega -p /dev/ttyACM0 .
 *
 * Boards that reset when the port opens (DTR) are fine: the Pi repeats its
 * HELLO until the bootloader has handed over.
 */
#include <Adafruit_NeoPixel.h>
#include <Wire.h>

extern "C" {
#include <board.h>
#include <firmware.h>
}

#define PIN_RING 6
#define OLED_ADDR 0x3C
#define SEATS 6
#define LEDS_PER_SEAT 4
#define DEBOUNCE_MS 20

static const uint8_t BUTTON_PINS[3] = {2, 3, 4}; /* confirm, undo, new hand: to GND */
static Adafruit_NeoPixel ring(SEATS * LEDS_PER_SEAT, PIN_RING, NEO_GRB + NEO_KHZ800);

uint32_t board_millis(void) { return millis(); }

void board_serial_write(const uint8_t *data, size_t len) {
    Serial.write(data, len); /* may wait for the TX buffer: at most a frame's wire time */
}

void board_ring_show(const uint8_t *rgb, size_t n) {
    for (size_t i = 0; i < n; i++)
        ring.setPixelColor(i, rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
    ring.show();
}

static void oled_cmd(uint8_t c) {
    Wire.beginTransmission(OLED_ADDR);
    Wire.write((uint8_t)0x00);
    Wire.write(c);
    Wire.endTransmission();
}

void board_display_show(const uint8_t *fb, uint8_t contrast) {
    const uint8_t setup[] = {0x81, contrast, 0x21, 0, 127, 0x22, 0, 7};
    for (uint8_t c : setup)
        oled_cmd(c);
    for (int i = 0; i < 1024; i += 16) { /* the AVR Wire buffer holds 32 bytes */
        Wire.beginTransmission(OLED_ADDR);
        Wire.write((uint8_t)0x40);
        Wire.write(fb + i, 16);
        Wire.endTransmission();
    }
}

static void oled_init(void) {
    const uint8_t init[] = {0xAE, 0xD5, 0x80, 0xA8, 0x3F, 0xD3, 0x00, 0x40, 0x8D, 0x14,
                            0x20, 0x00, 0xA1, 0xC8, 0xDA, 0x12, 0x81, 0x80, 0xD9, 0xF1,
                            0xDB, 0x40, 0xA4, 0xA6, 0xAF};
    for (uint8_t c : init)
        oled_cmd(c);
}

static void poll_buttons(uint32_t now) {
    static bool stable[3] = {true, true, true}, last_raw[3] = {true, true, true};
    static uint32_t changed_at[3];
    for (int i = 0; i < 3; i++) {
        bool raw = digitalRead(BUTTON_PINS[i]);
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

void setup() {
    Serial.begin(115200);
    for (uint8_t pin : BUTTON_PINS)
        pinMode(pin, INPUT_PULLUP);
    Wire.begin();
    Wire.setClock(400000);
    oled_init();
    ring.begin();
    randomSeed(analogRead(A0) ^ micros());
    fw_config_t cfg = {SEATS, LEDS_PER_SEAT, 3, (uint32_t)random(0x7FFFFFFF)};
    fw_init(&cfg);
}

void loop() {
    uint8_t buf[32];
    size_t n = 0;
    while (n < sizeof buf && Serial.available() > 0)
        buf[n++] = (uint8_t)Serial.read();
    if (n)
        fw_rx_bytes(buf, n);
    poll_buttons(millis());
    fw_poll();
}
