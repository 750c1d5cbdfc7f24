/* What the table shows; table_apply mirrors TableState.apply in
 * firmware_bridge/table_state.py exactly (the tests feed both the same messages). */
#ifndef TABLE_H
#define TABLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "proto.h"

#define TABLE_MAX_LINES 4
#define TABLE_LINE_CHARS 21
#define TABLE_ERROR_CHARS 60
#define TABLE_MAX_TEAMS 3
#define TABLE_MAX_POINTS 120
#define TABLE_ERROR_KINDS 9
#define OUTCOME_NONE 0
#define OUTCOME_WIN 1
#define OUTCOME_TIE 2
#define TABLE_LANGUAGES 3
/* Longest canonical encoding: see table_canonical. */
#define TABLE_CANONICAL_MAX 193

typedef struct {
    uint8_t players, dealer; /* players 0: no hand */
    uint8_t turn;            /* PROTO_SEAT_NONE or a seat */
    uint8_t trick_seat, trick_no;
    uint8_t n_draw, draw[PROTO_MAX_SEATS];
    uint8_t trump_suit, trump_rank; /* suit 0 or 'd' 'c' 's' 'b'; rank 0 unknown */
    uint8_t error_kind, error_seat, error_len;
    char error_text[TABLE_ERROR_CHARS];
    uint8_t n_lines, line_len[TABLE_MAX_LINES];
    char lines[TABLE_MAX_LINES][TABLE_LINE_CHARS];
    uint8_t outcome, winners; /* winners: bit per seat */
    uint8_t n_points, points[PROTO_MAX_SEATS];
    uint8_t n_teams, team_points[TABLE_MAX_TEAMS];
    uint8_t brightness;
    uint8_t language; /* the display's words: 0 en, 1 it, 2 fr */
} table_t;

void table_init(table_t *t);
/* Applies a state message; returns STATUS_OK, or STATUS_BAD_PAYLOAD leaving t unchanged. */
uint8_t table_apply(table_t *t, uint8_t type, const uint8_t *p, size_t n);
/* Canonical bytes (the payloads of every field in a fixed order); returns the length. */
size_t table_canonical(const table_t *t, uint8_t *out);
uint16_t table_digest(const table_t *t);
bool table_is_state_msg(uint8_t type);

#endif
