#include "table.h"
#include <string.h>
#include "crc16.h"

void table_init(table_t *t) {
    memset(t, 0, sizeof *t);
    t->turn = t->trick_seat = t->error_seat = PROTO_SEAT_NONE;
    t->brightness = PROTO_DEFAULT_BRIGHTNESS;
}

bool table_is_state_msg(uint8_t type) { return type >= MSG_CLEAR && type <= MSG_LANGUAGE; }

static bool seat_ok(uint8_t s) { return s == PROTO_SEAT_NONE || s < PROTO_MAX_SEATS; }

static bool printable(const uint8_t *p, size_t n, size_t limit) {
    if (n > limit)
        return false;
    for (size_t i = 0; i < n; i++)
        if (p[i] < 0x20 || p[i] > 0x7E)
            return false;
    return true;
}

static uint8_t apply_text(table_t *t, const uint8_t *p, size_t n) {
    if (n < 1 || p[0] > TABLE_MAX_LINES)
        return STATUS_BAD_PAYLOAD;
    size_t i = 1;
    for (uint8_t k = 0; k < p[0]; k++) {
        if (i >= n || i + 1 + p[i] > n || !printable(p + i + 1, p[i], TABLE_LINE_CHARS))
            return STATUS_BAD_PAYLOAD;
        i += 1 + (size_t)p[i];
    }
    if (i != n)
        return STATUS_BAD_PAYLOAD;
    t->n_lines = p[0];
    i = 1;
    for (uint8_t k = 0; k < p[0]; k++) {
        t->line_len[k] = p[i];
        memcpy(t->lines[k], p + i + 1, p[i]);
        i += 1 + (size_t)p[i];
    }
    return STATUS_OK;
}

static uint8_t apply_result(table_t *t, const uint8_t *p, size_t n) {
    if (n < 4 || p[0] > OUTCOME_TIE || p[1] >= (1u << PROTO_MAX_SEATS) || p[2] > PROTO_MAX_SEATS)
        return STATUS_BAD_PAYLOAD;
    size_t k = 3 + (size_t)p[2];
    if (n < k + 1 || p[k] > TABLE_MAX_TEAMS || n != k + 1 + p[k])
        return STATUS_BAD_PAYLOAD;
    for (size_t i = 3; i < n; i++)
        if (i != k && p[i] > TABLE_MAX_POINTS)
            return STATUS_BAD_PAYLOAD;
    if (p[0] == OUTCOME_NONE && (p[1] || p[2] || p[k]))
        return STATUS_BAD_PAYLOAD;
    t->outcome = p[0];
    t->winners = p[1];
    t->n_points = p[2];
    memcpy(t->points, p + 3, p[2]);
    t->n_teams = p[k];
    memcpy(t->team_points, p + k + 1, p[k]);
    return STATUS_OK;
}

uint8_t table_apply(table_t *t, uint8_t type, const uint8_t *p, size_t n) {
    switch (type) {
    case MSG_CLEAR: {
        if (n != 0)
            return STATUS_BAD_PAYLOAD;
        uint8_t b = t->brightness, lang = t->language;
        table_init(t);
        t->brightness = b;
        t->language = lang;
        return STATUS_OK;
    }
    case MSG_NEW_HAND: {
        if (n != 2 || p[0] < 2 || p[0] > PROTO_MAX_SEATS || p[1] >= p[0])
            return STATUS_BAD_PAYLOAD;
        uint8_t b = t->brightness, lang = t->language;
        table_init(t);
        t->brightness = b;
        t->language = lang;
        t->players = p[0];
        t->dealer = p[1];
        return STATUS_OK;
    }
    case MSG_TURN:
        if (n != 1 || !seat_ok(p[0]))
            return STATUS_BAD_PAYLOAD;
        t->turn = p[0];
        return STATUS_OK;
    case MSG_TRICK_WON:
        if (n != 2 || !seat_ok(p[0]))
            return STATUS_BAD_PAYLOAD;
        t->trick_seat = p[0];
        t->trick_no = p[1];
        return STATUS_OK;
    case MSG_DRAW_ORDER: {
        if (n < 1 || p[0] > PROTO_MAX_SEATS || n != 1u + p[0])
            return STATUS_BAD_PAYLOAD;
        uint8_t seen = 0;
        for (size_t i = 1; i < n; i++) {
            if (p[i] >= PROTO_MAX_SEATS || (seen >> p[i] & 1))
                return STATUS_BAD_PAYLOAD;
            seen |= (uint8_t)(1u << p[i]);
        }
        t->n_draw = p[0];
        memcpy(t->draw, p + 1, p[0]);
        return STATUS_OK;
    }
    case MSG_TRUMP: {
        if (n != 2 || p[1] > 10)
            return STATUS_BAD_PAYLOAD;
        bool suit = p[0] == 'd' || p[0] == 'c' || p[0] == 's' || p[0] == 'b';
        if (!(suit || (p[0] == 0 && p[1] == 0)))
            return STATUS_BAD_PAYLOAD;
        t->trump_suit = p[0];
        t->trump_rank = p[1];
        return STATUS_OK;
    }
    case MSG_ERROR:
        if (n < 2 || p[0] > TABLE_ERROR_KINDS || !seat_ok(p[1]) ||
            !printable(p + 2, n - 2, TABLE_ERROR_CHARS))
            return STATUS_BAD_PAYLOAD;
        if (p[0] == 0 && (p[1] != PROTO_SEAT_NONE || n > 2))
            return STATUS_BAD_PAYLOAD;
        t->error_kind = p[0];
        t->error_seat = p[1];
        t->error_len = (uint8_t)(n - 2);
        memcpy(t->error_text, p + 2, n - 2);
        return STATUS_OK;
    case MSG_TEXT:
        return apply_text(t, p, n);
    case MSG_RESULT:
        return apply_result(t, p, n);
    case MSG_BRIGHTNESS:
        if (n != 1)
            return STATUS_BAD_PAYLOAD;
        t->brightness = p[0];
        return STATUS_OK;
    case MSG_LANGUAGE:
        if (n != 1 || p[0] >= TABLE_LANGUAGES)
            return STATUS_BAD_PAYLOAD;
        t->language = p[0];
        return STATUS_OK;
    default:
        return STATUS_UNKNOWN_TYPE;
    }
}

size_t table_canonical(const table_t *t, uint8_t *out) {
    size_t o = 0;
    out[o++] = t->players;
    out[o++] = t->dealer;
    out[o++] = t->turn;
    out[o++] = t->trick_seat;
    out[o++] = t->trick_no;
    out[o++] = t->n_draw;
    memcpy(out + o, t->draw, t->n_draw);
    o += t->n_draw;
    out[o++] = t->trump_suit;
    out[o++] = t->trump_rank;
    out[o++] = t->error_kind;
    out[o++] = t->error_seat;
    memcpy(out + o, t->error_text, t->error_len);
    o += t->error_len;
    out[o++] = t->n_lines;
    for (uint8_t k = 0; k < t->n_lines; k++) {
        out[o++] = t->line_len[k];
        memcpy(out + o, t->lines[k], t->line_len[k]);
        o += t->line_len[k];
    }
    out[o++] = t->outcome;
    out[o++] = t->winners;
    out[o++] = t->n_points;
    memcpy(out + o, t->points, t->n_points);
    o += t->n_points;
    out[o++] = t->n_teams;
    memcpy(out + o, t->team_points, t->n_teams);
    o += t->n_teams;
    out[o++] = t->brightness;
    out[o++] = t->language;
    return o;
}

uint16_t table_digest(const table_t *t) {
    uint8_t buf[TABLE_CANONICAL_MAX];
    return crc16(CRC16_INIT, buf, table_canonical(t, buf));
}
