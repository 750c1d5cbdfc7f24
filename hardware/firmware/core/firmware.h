/* The board's protocol engine: frames in, table state, ACKs, heartbeats,
 * buttons out with retries, screen and ring refresh. Portable C11; the board
 * layer (board.h) supplies time, serial output, LEDs and display. */
#ifndef FIRMWARE_H
#define FIRMWARE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "frame.h"
#include "ring.h"
#include "screen.h"
#include "table.h"

#define FW_VERSION_MAJOR 1
#define FW_VERSION_MINOR 0
#define FW_HEARTBEAT_MS 500
#define FW_HOST_TIMEOUT_MS 2000
#define FW_ACK_TIMEOUT_MS 60
#define FW_MAX_TRIES 6
#define FW_BUTTON_MAX_AGE_MS 3000
#define FW_BUTTON_QUEUE 8
#define FW_RING_PERIOD_MS 20

typedef struct {
    uint8_t seats, leds_per_seat, buttons;
    uint32_t boot_id; /* random per power-up: the host notices a reboot */
} fw_config_t;

typedef struct {
    uint32_t unknown_type, bad_payload, duplicates, acks_rx, retransmits, tx_failures;
    uint32_t buttons_sent, buttons_dropped, hellos, state_msgs;
} fw_stats_t;

void fw_init(const fw_config_t *cfg);
void fw_rx_bytes(const uint8_t *data, size_t n);
/* A debounced button press from the board layer (BUTTON_CONFIRM ...). */
void fw_button(uint8_t button);
/* Timers, retransmissions, screen and ring refresh: call every few milliseconds. */
void fw_poll(void);

const table_t *fw_table(void);
const screen_t *fw_screen(void);
const uint8_t *fw_ring(size_t *n_leds);
bool fw_host_online(void);
const fw_stats_t *fw_stats(void);
const decoder_stats_t *fw_decoder_stats(void);

#endif
