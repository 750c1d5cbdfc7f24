/* Random-input test of the firmware's decoder and state machine.
 *
 * Built with -fsanitize=address,undefined by `make fuzz`; feeds random byte
 * streams, mutated valid frames and random payloads through the whole receive
 * path (decoder, table_apply, ACK, render) and checks the table's invariants.
 * Also a libFuzzer target when built with -DLIBFUZZER (clang -fsanitize=fuzzer).
 *
 *   fuzz [ITERATIONS] [SEED]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../core/board.h"
#include "../core/cobs.h"
#include "../core/firmware.h"

static uint32_t now_ms, rng_state = 1;
static unsigned long out_bytes, ring_calls, display_calls;

uint32_t board_millis(void) { return now_ms; }
void board_serial_write(const uint8_t *d, size_t n) {
    /* everything the board says must itself be a valid stream of frames */
    static frame_decoder_t dec;
    frame_t f;
    for (size_t i = 0; i < n; i++)
        if (decoder_push(&dec, d[i], &f) && f.type == 0)
            abort();
    if (dec.stats.cobs_errors || dec.stats.crc_errors || dec.stats.oversized)
        abort();
    out_bytes += n;
}
void board_ring_show(const uint8_t *rgb, size_t n) { (void)rgb, (void)n, ring_calls++; }
void board_display_show(const uint8_t *fb, uint8_t c) { (void)fb, (void)c, display_calls++; }

static uint32_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static void check_invariants(void) {
    const table_t *t = fw_table();
    uint8_t buf[TABLE_CANONICAL_MAX];
    if (table_canonical(t, buf) > TABLE_CANONICAL_MAX)
        abort();
    if (t->players && (t->players < 2 || t->players > PROTO_MAX_SEATS || t->dealer >= t->players))
        abort();
    if (t->n_draw > PROTO_MAX_SEATS || t->n_lines > TABLE_MAX_LINES || t->n_points > PROTO_MAX_SEATS ||
        t->n_teams > TABLE_MAX_TEAMS || t->error_len > TABLE_ERROR_CHARS || t->error_kind > TABLE_ERROR_KINDS)
        abort();
    for (unsigned i = 0; i < t->n_lines; i++)
        if (t->line_len[i] > TABLE_LINE_CHARS)
            abort();
}

static void feed(const uint8_t *data, size_t n) {
    fw_rx_bytes(data, n);
    now_ms += rng() % 40;
    fw_poll();
    check_invariants();
}

/* A frame of a random state type with a random (often almost valid) payload. */
static size_t random_frame(uint8_t *out) {
    uint8_t p[PROTO_MAX_PAYLOAD];
    size_t n = rng() % 24;
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(rng() % 4 ? rng() % 8 : rng());
    if (n && rng() % 2)
        p[0] = (uint8_t)(n - 1);
    uint8_t type = (uint8_t)(rng() % 3 ? MSG_CLEAR + rng() % 10 : rng());
    return frame_encode(type, (uint8_t)rng(), p, n, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) {
        fw_config_t cfg = {6, 4, 3, 42};
        fw_init(&cfg);
        ready = 1;
    }
    feed(data, size);
    return 0;
}

#ifndef LIBFUZZER
int main(int argc, char **argv) {
    unsigned long iterations = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
    rng_state = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) | 1u : 1u;
    fw_config_t cfg = {6, 4, 3, 42};
    fw_init(&cfg);
    uint8_t buf[4 * FRAME_WIRE_MAX], raw[600], enc[700], dec[700];
    for (unsigned long it = 0; it < iterations; it++) {
        size_t n;
        switch (it % 4) {
        case 0: /* random bytes, zero-heavy so that short frames occur */
            n = rng() % sizeof buf;
            for (size_t i = 0; i < n; i++)
                buf[i] = (uint8_t)(rng() % 5 == 0 ? 0 : rng());
            break;
        case 1: /* a valid frame with a few bytes flipped, dropped or inserted */
        case 2:
            n = random_frame(buf);
            for (unsigned k = rng() % 4; k > 0 && n > 1; k--) {
                size_t at = rng() % n;
                switch (rng() % 3) {
                case 0: buf[at] ^= (uint8_t)(1u << rng() % 8); break;
                case 1: memmove(buf + at, buf + at + 1, n - at - 1), n--; break;
                default:
                    if (n < sizeof buf) {
                        memmove(buf + at + 1, buf + at, n - at), buf[at] = (uint8_t)rng(), n++;
                    }
                }
            }
            break;
        default: { /* COBS round trip on random data, then a long run without delimiters */
            size_t m = rng() % sizeof raw;
            for (size_t i = 0; i < m; i++)
                raw[i] = (uint8_t)(rng() % 3 == 0 ? 0 : rng());
            size_t e = cobs_encode(raw, m, enc);
            if (memchr(enc, 0, e) || cobs_decode(enc, e, dec) != (int)m || memcmp(raw, dec, m))
                abort();
            n = rng() % sizeof buf;
            memset(buf, 0x41, n);
        }
        }
        feed(buf, n);
        if (it % 1000 == 0) { /* now and then a valid state message, which must be taken */
            /* (after a HELLO: a new session, so its seq cannot look like a duplicate) */
            n = frame_encode(MSG_HELLO, 9, (const uint8_t[]){PROTO_VERSION, 0, 1}, 3, buf);
            n += frame_encode(MSG_TURN, (uint8_t)(1 + it / 1000 % 254), (const uint8_t[]){2}, 1,
                              buf + n);
            feed(buf, n);
            if (fw_table()->turn != 2)
                abort();
        }
    }
    const decoder_stats_t *d = fw_decoder_stats();
    const fw_stats_t *s = fw_stats();
    printf("{\"iterations\":%lu,\"frames\":%u,\"cobs_errors\":%u,\"crc_errors\":%u,"
           "\"truncated\":%u,\"oversized\":%u,\"unknown_type\":%u,\"bad_payload\":%u,"
           "\"out_bytes\":%lu}\n",
           iterations, d->frames, d->cobs_errors, d->crc_errors, d->truncated, d->oversized,
           s->unknown_type, s->bad_payload, out_bytes);
    return 0;
}
#endif
