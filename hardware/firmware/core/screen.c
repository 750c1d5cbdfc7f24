#include "screen.h"
#include <stdio.h>
#include <string.h>
#include "font5x7.h"
#include "words.h"

void screen_clear(screen_t *s) { memset(s->px, 0, sizeof s->px); }

static void set_px(screen_t *s, int x, int y, int value) {
    uint8_t *b = &s->px[(y >> 3) * SCREEN_W + x];
    if (value)
        *b = (uint8_t)(*b | 1u << (y & 7));
    else
        *b = (uint8_t)(*b & ~(1u << (y & 7)));
}

void screen_fill_rect(screen_t *s, int x, int y, int w, int h, int value) {
    int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
    int x1 = x + w > SCREEN_W ? SCREEN_W : x + w, y1 = y + h > SCREEN_H ? SCREEN_H : y + h;
    for (int yy = y0; yy < y1; yy++)
        for (int xx = x0; xx < x1; xx++)
            set_px(s, xx, yy, value);
}

static void draw_char(screen_t *s, int x, int y, char ch, int scale, int value) {
    unsigned char c = (unsigned char)ch;
    if (c < FONT_FIRST || c > FONT_LAST)
        c = '?';
    const uint8_t *cols = FONT5X7[c - FONT_FIRST];
    for (int col = 0; col < 5; col++)
        for (int row = 0; row < 8; row++)
            if (cols[col] >> row & 1)
                screen_fill_rect(s, x + col * scale, y + row * scale, scale, scale, value);
}

void screen_text(screen_t *s, int x, int y, const char *text, int scale, int value) {
    for (int i = 0; text[i]; i++)
        draw_char(s, x + i * 6 * scale, y, text[i], scale, value);
}

static void seat_label(char *out, uint8_t seat) { sprintf(out, "P%u", (unsigned)seat + 1u); }

/* The display's words in the table's language (words.h, from the gettext catalogs). */
static const char *const *words_of(const table_t *t) {
    return WORDS[t->language < WORDS_LANGUAGES ? t->language : 0];
}

/* "Draw: P3 P4 P1 P2" as screen.py::draw_label: when the whole order is wider than the
   line (6 players), the first drawers that fit and "..." (the rest follow in turn). */
#define DRAW_MORE " ..."
static void draw_label(char *out, const table_t *t, const char *const *w) {
    char seat[5];
    size_t full = strlen(w[W_DRAW]) + 3u * t->n_draw; /* " Pn" each */
    strcpy(out, w[W_DRAW]);
    for (uint8_t i = 0; i < t->n_draw; i++) {
        if (full > TABLE_LINE_CHARS && strlen(out) + 3 + strlen(DRAW_MORE) > TABLE_LINE_CHARS) {
            strcat(out, DRAW_MORE);
            return;
        }
        seat_label(seat, t->draw[i]);
        strcat(out, " ");
        strcat(out, seat);
    }
}

/* "Trump: King of cups" as screen.py::trump_label, with its shorter forms where the
   line would not fit ("Trump: Knight swords", then the rank and suit alone). */
static void trump_label(char *out, const table_t *t, const char *const *w) {
    char num[4];
    const char *rank = num, *suit = w[t->trump_suit == 'd' ? W_SUIT_D : t->trump_suit == 'c'
                                      ? W_SUIT_C : t->trump_suit == 's' ? W_SUIT_S : W_SUIT_B];
    if (!t->trump_suit) {
        strcpy(out, w[W_TRUMP_NONE]);
        return;
    }
    if (!t->trump_rank) {
        sprintf(out, w[W_TRUMP_SUIT], suit);
        return;
    }
    switch (t->trump_rank) {
    case 1: rank = w[W_RANK_1]; break;
    case 8: rank = w[W_RANK_8]; break;
    case 9: rank = w[W_RANK_9]; break;
    case 10: rank = w[W_RANK_10]; break;
    default: sprintf(num, "%u", (unsigned)t->trump_rank);
    }
    sprintf(out, w[W_TRUMP_CARD], rank, suit);
    if (strlen(out) > TABLE_LINE_CHARS)
        sprintf(out, w[W_TRUMP_SHORT], rank, suit);
    if (strlen(out) > TABLE_LINE_CHARS)
        sprintf(out, "%s %s", rank, suit);
}

/* Who leads which trick of how many, as screen.py::trick_label: "P1 leads trick 17/20".
   The trick winner leads the next; before the first, the seat after the dealer. */
static void trick_label(char *out, const table_t *t, const char *const *w) {
    static const uint8_t tricks[7] = {0, 0, 20, 13, 10, 8, 6};
    char seat[8], number[6], total[4];
    unsigned n_total = t->players <= 6 ? tricks[t->players] : 0u, n;
    uint8_t leader;
    if (t->trick_seat == PROTO_SEAT_NONE) {
        leader = (uint8_t)((t->dealer + 1u) % t->players);
        n = 1u;
    } else {
        leader = t->trick_seat;
        n = (unsigned)t->trick_no + 1u;
    }
    seat_label(seat, leader);
    sprintf(number, "%u", n);
    sprintf(total, "%u", n_total);
    if (n_total && n > n_total)
        sprintf(out, w[W_LAST_TRICK], seat);
    else if (n_total)
        sprintf(out, w[W_LEADS], seat, number, total);
    else
        sprintf(out, w[W_LEADS_N], seat, number);
}

/* Greedy wrap at the last space that fits, else a hard break (as screen.py::wrap). */
static void centred(screen_t *s, int y, const char *text) {
    screen_text(s, (SCREEN_W - 6 * (int)strlen(text)) / 2, y, text, 1, 1);
}

static void draw_wrapped(screen_t *s, const char *text, int len, int y0) {
    int start = 0;
    for (int line = 0; line < 4 && start < len; line++) {
        int rest = len - start, take, next;
        if (rest <= TABLE_LINE_CHARS) {
            take = rest;
            next = len;
        } else {
            int cut = -1;
            for (int k = TABLE_LINE_CHARS; k >= 1; k--)
                if (text[start + k] == ' ') {
                    cut = k;
                    break;
                }
            if (cut > 0) {
                take = cut;
                next = start + cut + 1;
            } else {
                take = TABLE_LINE_CHARS;
                next = start + TABLE_LINE_CHARS;
            }
        }
        char buf[TABLE_LINE_CHARS + 1];
        memcpy(buf, text + start, (size_t)take);
        buf[take] = 0;
        screen_text(s, 0, y0 + 9 * line, buf, 1, 1);
        start = next;
    }
}

void screen_render(screen_t *s, const table_t *t, bool online) {
    char buf[64], seat[8], num[4];
    const char *const *w = words_of(t);
    screen_clear(s);
    if (!online) {
        centred(s, 24, w[W_WAITING]);
        centred(s, 36, w[W_LINK_DOWN]);
        return;
    }
    screen_fill_rect(s, 0, 0, SCREEN_W, 9, 1);
    trump_label(buf, t, w);
    screen_text(s, 1, 1, buf, 1, 0);
    if (t->outcome != OUTCOME_NONE) {
        if (t->outcome == OUTCOME_TIE) {
            screen_text(s, 0, 12, w[W_TIE], 2, 1);
        } else {
            screen_text(s, 0, 12, w[W_WIN], 2, 1);
            buf[0] = 0;
            for (uint8_t i = 0; i < PROTO_MAX_SEATS; i++)
                if (t->winners >> i & 1) {
                    seat_label(seat, i);
                    if (buf[0])
                        strcat(buf, " ");
                    strcat(buf, seat);
                }
            screen_text(s, 2 * 6 * (int)strlen(w[W_WIN]) + 6, 16, buf, 1, 1);
        }
        for (uint8_t i = 0; i < t->n_points; i++) {
            seat_label(seat, i);
            sprintf(buf, "%s:%3u", seat, (unsigned)t->points[i]);
            screen_text(s, (i % 3) * 42, 32 + (i / 3) * 9, buf, 1, 1);
        }
        if (t->n_teams) {
            strcpy(buf, w[W_TEAMS]);
            for (uint8_t i = 0; i < t->n_teams; i++)
                sprintf(buf + strlen(buf), " %u", (unsigned)t->team_points[i]);
            screen_text(s, 0, 52, buf, 1, 1);
        }
    } else if (t->error_kind) {
        screen_fill_rect(s, 0, 11, SCREEN_W, 9, 1);
        sprintf(buf, "! %s", w[W_ERROR_1 + t->error_kind - 1]);
        if (t->error_seat != PROTO_SEAT_NONE) {
            seat_label(seat, t->error_seat);
            strcat(buf, " ");
            strcat(buf, seat);
        }
        screen_text(s, 1, 12, buf, 1, 0);
        draw_wrapped(s, t->error_text, t->error_len, 22);
    } else if (t->n_lines) {
        for (uint8_t i = 0; i < t->n_lines; i++) {
            memcpy(buf, t->lines[i], t->line_len[i]);
            buf[t->line_len[i]] = 0;
            screen_text(s, 0, 14 + 10 * i, buf, 1, 1);
        }
    } else if (!t->players) {
        centred(s, 24, w[W_TITLE]);
        centred(s, 36, w[W_NO_HAND]);
    } else {
        seat_label(seat, t->dealer);
        sprintf(num, "%u", (unsigned)t->players);
        sprintf(buf, w[W_DEALER], num, seat);
        screen_text(s, 0, 12, buf, 1, 1);
        if (t->turn == PROTO_SEAT_NONE)
            strcpy(seat, "-");
        else
            seat_label(seat, t->turn);
        sprintf(buf, w[W_TURN], seat);
        screen_text(s, 0, 22, buf, 2, 1);
        trick_label(buf, t, w);
        screen_text(s, 0, 40, buf, 1, 1);
        if (t->n_draw) {
            draw_label(buf, t, w);
            screen_text(s, 0, 50, buf, 1, 1);
        }
    }
}
