#include "firmware.h"
#include <string.h>
#include "board.h"

static struct {
    fw_config_t cfg;
    frame_decoder_t dec;
    table_t table;
    screen_t screen;
    ring_ctx_t ring_ctx;
    uint8_t ring[3 * RING_MAX_LEDS], ring_shown[3 * RING_MAX_LEDS];
    bool ring_valid;
    /* duplicate detection of host frames: the last reliable seq and its status */
    bool have_rx;
    uint8_t rx_seq, rx_status;
    /* button events waiting for the host, oldest first */
    struct {
        uint8_t button;
        uint32_t at;
    } queue[FW_BUTTON_QUEUE];
    uint8_t q_head, q_len;
    bool inflight;
    uint8_t tx_seq, tries;
    bool tx_blocked; /* every try failed: wait until the host is heard again */
    uint32_t blocked_rx;
    uint8_t tx_frame[FRAME_WIRE_MAX];
    size_t tx_len;
    uint32_t deadline, last_rx, last_hb, last_ring;
    bool online, dirty;
    fw_stats_t stats;
} fw;

static void send(uint8_t type, uint8_t seq, const uint8_t *p, size_t n) {
    uint8_t out[FRAME_WIRE_MAX];
    size_t len = frame_encode(type, seq, p, n, out);
    if (len)
        board_serial_write(out, len);
}

static void send_ack(uint8_t seq, uint8_t status) {
    uint8_t p[2] = {seq, status};
    send(MSG_ACK, 0, p, 2);
}

static void pop_button(void) {
    fw.q_head = (uint8_t)((fw.q_head + 1) % FW_BUTTON_QUEUE);
    fw.q_len--;
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

void fw_init(const fw_config_t *cfg) {
    memset(&fw, 0, sizeof fw);
    fw.cfg = *cfg;
    if (fw.cfg.seats > PROTO_MAX_SEATS)
        fw.cfg.seats = PROTO_MAX_SEATS;
    if ((unsigned)fw.cfg.seats * fw.cfg.leds_per_seat > RING_MAX_LEDS)
        fw.cfg.leds_per_seat = (uint8_t)(RING_MAX_LEDS / fw.cfg.seats);
    fw.ring_ctx.seats = fw.cfg.seats;
    fw.ring_ctx.leds_per_seat = fw.cfg.leds_per_seat;
    table_init(&fw.table);
    decoder_reset(&fw.dec);
    uint32_t now = board_millis();
    fw.last_hb = now - FW_HEARTBEAT_MS; /* say hello at once */
    fw.last_rx = now;
    fw.dirty = true;
}

static void hello_reply(const frame_t *f) {
    uint8_t p[17];
    p[0] = PROTO_VERSION;
    p[1] = f->payload[1];
    p[2] = f->payload[2];
    p[3] = fw.cfg.seats;
    p[4] = fw.cfg.leds_per_seat;
    p[5] = SCREEN_W >> 8;
    p[6] = SCREEN_W & 0xFF;
    p[7] = SCREEN_H >> 8;
    p[8] = SCREEN_H & 0xFF;
    p[9] = fw.cfg.buttons;
    p[10] = FW_VERSION_MAJOR;
    p[11] = FW_VERSION_MINOR;
    put32(p + 12, fw.cfg.boot_id);
    p[16] = CAP_RING | CAP_DISPLAY | (fw.cfg.buttons ? CAP_BUTTONS : 0);
    send(MSG_HELLO_REPLY, f->seq, p, sizeof p);
}

static void apply_state(const frame_t *f, uint32_t now) {
    if (fw.have_rx && f->seq == fw.rx_seq) { /* our ACK was lost: confirm again, apply once */
        fw.stats.duplicates++;
        send_ack(f->seq, fw.rx_status);
        return;
    }
    table_t before = fw.table;
    uint8_t status = table_apply(&fw.table, f->type, f->payload, f->len);
    if (status == STATUS_OK) {
        fw.stats.state_msgs++;
        fw.dirty = true;
        if (before.trick_seat != fw.table.trick_seat || before.trick_no != fw.table.trick_no)
            fw.ring_ctx.trick_at = now;
        if (fw.table.error_kind &&
            (before.error_kind != fw.table.error_kind || before.error_seat != fw.table.error_seat ||
             before.error_len != fw.table.error_len ||
             memcmp(before.error_text, fw.table.error_text, fw.table.error_len) != 0))
            fw.ring_ctx.error_at = now;
    } else {
        fw.stats.bad_payload++;
    }
    fw.have_rx = true;
    fw.rx_seq = f->seq;
    fw.rx_status = status;
    send_ack(f->seq, status);
}

static void on_frame(const frame_t *f, uint32_t now) {
    fw.last_rx = now;
    if (!fw.online) {
        fw.online = true;
        fw.dirty = true;
    }
    switch (f->type) {
    case MSG_HELLO:
        if (f->len != 3) {
            fw.stats.bad_payload++;
            return;
        }
        fw.stats.hellos++;
        fw.have_rx = false; /* a new session: the host restarts its sequence */
        hello_reply(f);
        return;
    case MSG_HEARTBEAT:
        if (f->len != 4)
            fw.stats.bad_payload++;
        return;
    case MSG_PING:
        send(MSG_PONG, f->seq, f->payload, f->len);
        return;
    case MSG_PONG:
        return;
    case MSG_ACK:
        if (f->len != 2) {
            fw.stats.bad_payload++;
            return;
        }
        fw.stats.acks_rx++;
        if (fw.inflight && f->payload[0] == fw.tx_seq) {
            fw.inflight = false;
            pop_button();
            fw.stats.buttons_sent++;
        }
        return;
    default:
        if (table_is_state_msg(f->type) && f->seq != 0) {
            apply_state(f, now);
        } else if (f->type == MSG_BUTTON && f->seq != 0) {
            fw.stats.bad_payload++;
            send_ack(f->seq, STATUS_BAD_DIRECTION);
        } else {
            fw.stats.unknown_type++;
            if (f->seq != 0)
                send_ack(f->seq, STATUS_UNKNOWN_TYPE);
        }
    }
}

void fw_rx_bytes(const uint8_t *data, size_t n) {
    frame_t f;
    uint32_t now = board_millis();
    for (size_t i = 0; i < n; i++)
        if (decoder_push(&fw.dec, data[i], &f))
            on_frame(&f, now);
}

void fw_button(uint8_t button) {
    if (fw.q_len == FW_BUTTON_QUEUE) {
        fw.stats.buttons_dropped++;
        return;
    }
    uint8_t slot = (uint8_t)((fw.q_head + fw.q_len) % FW_BUTTON_QUEUE);
    fw.queue[slot].button = button;
    fw.queue[slot].at = board_millis();
    fw.q_len++;
}

static void transmit(uint32_t now) {
    fw.inflight = true;
    fw.tries = 1;
    fw.deadline = now + FW_ACK_TIMEOUT_MS;
    board_serial_write(fw.tx_frame, fw.tx_len);
}

static void send_button(uint32_t now) {
    if (fw.inflight) {
        if ((int32_t)(now - fw.deadline) < 0)
            return;
        if (fw.tries < FW_MAX_TRIES) {
            fw.stats.retransmits++;
            fw.tries++;
            fw.deadline = now + FW_ACK_TIMEOUT_MS;
            board_serial_write(fw.tx_frame, fw.tx_len);
            return;
        }
        /* Bounded retries: stop sending, keep the press, and try again once the
         * host is heard from (cable back in); the age limit drops it if stale. */
        fw.stats.tx_failures++;
        fw.inflight = false;
        fw.tx_blocked = true;
        fw.blocked_rx = fw.last_rx;
        return;
    }
    bool fresh = fw.q_len && now - fw.queue[fw.q_head].at <= FW_BUTTON_MAX_AGE_MS;
    if (fw.tx_blocked) {
        if (fw.last_rx == fw.blocked_rx)
            return;
        fw.tx_blocked = false;
        if (fresh && fw.online) { /* same frame, same seq: the host may have seen it */
            transmit(now);
            return;
        }
    }
    /* a press older than a few seconds would surprise the players: drop it */
    while (fw.q_len && now - fw.queue[fw.q_head].at > FW_BUTTON_MAX_AGE_MS) {
        fw.stats.buttons_dropped++;
        pop_button();
    }
    if (!fw.q_len || !fw.online)
        return;
    fw.tx_seq = (uint8_t)(fw.tx_seq == 255 ? 1 : fw.tx_seq + 1);
    uint8_t p[2] = {fw.queue[fw.q_head].button, 1};
    fw.tx_len = frame_encode(MSG_BUTTON, fw.tx_seq, p, 2, fw.tx_frame);
    transmit(now);
}

void fw_poll(void) {
    uint32_t now = board_millis();
    if (fw.online && now - fw.last_rx > FW_HOST_TIMEOUT_MS) {
        fw.online = false;
        fw.dirty = true;
    }
    if (now - fw.last_hb >= FW_HEARTBEAT_MS) {
        uint8_t p[12];
        const decoder_stats_t *d = &fw.dec.stats;
        uint32_t errors = d->cobs_errors + d->crc_errors + d->truncated + d->oversized;
        uint16_t digest = table_digest(&fw.table);
        put32(p, fw.cfg.boot_id);
        put32(p + 4, now);
        p[8] = (uint8_t)(digest >> 8);
        p[9] = (uint8_t)digest;
        p[10] = (uint8_t)(errors >> 8);
        p[11] = (uint8_t)errors;
        send(MSG_HEARTBEAT, 0, p, sizeof p);
        fw.last_hb = now;
    }
    send_button(now);
    if (fw.dirty) {
        screen_render(&fw.screen, &fw.table, fw.online);
        board_display_show(fw.screen.px, fw.table.brightness);
        fw.dirty = false;
    }
    if (!fw.ring_valid || now - fw.last_ring >= FW_RING_PERIOD_MS) {
        size_t n = (size_t)fw.cfg.seats * fw.cfg.leds_per_seat;
        ring_render(&fw.ring_ctx, &fw.table, fw.online, now, fw.ring);
        if (!fw.ring_valid || memcmp(fw.ring, fw.ring_shown, 3 * n) != 0) {
            memcpy(fw.ring_shown, fw.ring, 3 * n);
            board_ring_show(fw.ring, n);
        }
        fw.ring_valid = true;
        fw.last_ring = now;
    }
}

const table_t *fw_table(void) { return &fw.table; }
const screen_t *fw_screen(void) { return &fw.screen; }
const uint8_t *fw_ring(size_t *n_leds) {
    *n_leds = (size_t)fw.cfg.seats * fw.cfg.leds_per_seat;
    return fw.ring_shown;
}
bool fw_host_online(void) { return fw.online; }
const fw_stats_t *fw_stats(void) { return &fw.stats; }
const decoder_stats_t *fw_decoder_stats(void) { return &fw.dec.stats; }
