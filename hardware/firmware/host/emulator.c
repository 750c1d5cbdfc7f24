/* The board emulator: the portable firmware core on a Linux pseudo-terminal.
 *
 * The host side opens the pty (or the --link symlink to it) exactly as it would
 * open /dev/ttyACM0. A control channel on stdin/stdout (one command per line,
 * one JSON line back) lets tests press buttons, read the state, framebuffer and
 * ring, inject line noise, and pull the "cable".
 *
 *   emulator [--link PATH] [--seed N] [--flip P] [--drop P] [--pace BAUD]
 *            [--seats N] [--leds-per-seat N] [--boot-id N]
 *
 * Commands: state | fb | ring | stats | press N | noise FLIP DROP |
 *           unplug MS | quit
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "../core/board.h"
#include "../core/firmware.h"

static int master_fd = -1, slave_fd = -1;
static char link_path[1024];
static char pty_path[256];
static double flip_p, drop_p;
static unsigned long pace_baud;
static uint32_t rng_state = 0x12345678u;
static uint8_t contrast;
static uint8_t framebuffer[SCREEN_BYTES];
static unsigned long noise_flipped, noise_dropped, bytes_in, bytes_out, write_dropped;
static uint32_t unplug_until;
static int unplugged;

static uint32_t rng(void) { /* xorshift32: deterministic noise per seed */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static double rng_unit(void) { return (rng() >> 8) / 16777216.0; }

uint32_t board_millis(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

static void pace(size_t n) { /* wire time of n bytes at 8N1 */
    if (pace_baud)
        usleep((useconds_t)(n * 10u * 1000000u / pace_baud));
}

/* Noise on the "wire": flip one random bit or drop the byte. Returns the new length. */
static size_t corrupt(uint8_t *buf, size_t n) {
    if (flip_p <= 0 && drop_p <= 0)
        return n;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (drop_p > 0 && rng_unit() < drop_p) {
            noise_dropped++;
            continue;
        }
        uint8_t b = buf[i];
        if (flip_p > 0 && rng_unit() < flip_p) {
            b ^= (uint8_t)(1u << (rng() % 8));
            noise_flipped++;
        }
        buf[o++] = b;
    }
    return o;
}

void board_serial_write(const uint8_t *data, size_t len) {
    if (master_fd < 0)
        return;
    uint8_t buf[FRAME_WIRE_MAX * 2];
    if (len > sizeof buf)
        len = sizeof buf;
    memcpy(buf, data, len);
    len = corrupt(buf, len);
    pace(len);
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(master_fd, buf + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            write_dropped += len - off; /* nobody reading and the buffer is full */
            return;
        }
        off += (size_t)w;
    }
    bytes_out += len;
}

void board_ring_show(const uint8_t *rgb, size_t n_leds) { (void)rgb, (void)n_leds; }

void board_display_show(const uint8_t *fb, uint8_t c) {
    memcpy(framebuffer, fb, SCREEN_BYTES);
    contrast = c;
}

static void close_pty(void) {
    if (link_path[0])
        unlink(link_path);
    if (master_fd >= 0)
        close(master_fd);
    if (slave_fd >= 0)
        close(slave_fd);
    master_fd = slave_fd = -1;
}

static int open_pty(void) {
    master_fd = posix_openpt(O_RDWR | O_NOCTTY);
    if (master_fd < 0 || grantpt(master_fd) || unlockpt(master_fd))
        return -1;
    const char *name = ptsname(master_fd);
    if (!name)
        return -1;
    snprintf(pty_path, sizeof pty_path, "%s", name);
    /* keep a slave fd so the master never sees EIO while the host is away */
    slave_fd = open(pty_path, O_RDWR | O_NOCTTY);
    if (slave_fd < 0)
        return -1;
    struct termios tio;
    if (tcgetattr(slave_fd, &tio) == 0) {
        cfmakeraw(&tio);
        cfsetispeed(&tio, B115200);
        cfsetospeed(&tio, B115200);
        tcsetattr(slave_fd, TCSANOW, &tio);
    }
    fcntl(master_fd, F_SETFL, fcntl(master_fd, F_GETFL) | O_NONBLOCK);
    if (link_path[0]) { /* atomic replace, like udev's /dev/serial/by-id link */
        char tmp[1100];
        snprintf(tmp, sizeof tmp, "%s.tmp%d", link_path, (int)getpid());
        unlink(tmp);
        if (symlink(pty_path, tmp) || rename(tmp, link_path))
            return -1;
    }
    return 0;
}

static void print_hex(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        printf("%02x", p[i]);
}

static void print_state(void) {
    const table_t *t = fw_table();
    printf("{\"online\":%s,\"digest\":%u,\"players\":%u,\"dealer\":%u,\"turn\":%u,"
           "\"trick_seat\":%u,\"trick_no\":%u,\"draw\":[",
           fw_host_online() ? "true" : "false", (unsigned)table_digest(t), t->players, t->dealer,
           t->turn, t->trick_seat, t->trick_no);
    for (unsigned i = 0; i < t->n_draw; i++)
        printf("%s%u", i ? "," : "", t->draw[i]);
    printf("],\"trump_suit\":%u,\"trump_rank\":%u,\"error_kind\":%u,\"error_seat\":%u,"
           "\"error_text\":\"",
           t->trump_suit, t->trump_rank, t->error_kind, t->error_seat);
    print_hex((const uint8_t *)t->error_text, t->error_len);
    printf("\",\"text\":[");
    for (unsigned i = 0; i < t->n_lines; i++) {
        printf("%s\"", i ? "," : "");
        print_hex((const uint8_t *)t->lines[i], t->line_len[i]);
        printf("\"");
    }
    printf("],\"outcome\":%u,\"winners\":%u,\"points\":[", t->outcome, t->winners);
    for (unsigned i = 0; i < t->n_points; i++)
        printf("%s%u", i ? "," : "", t->points[i]);
    printf("],\"team_points\":[");
    for (unsigned i = 0; i < t->n_teams; i++)
        printf("%s%u", i ? "," : "", t->team_points[i]);
    printf("],\"brightness\":%u,\"language\":%u,\"contrast\":%u}\n", t->brightness,
           t->language, contrast);
}

static void print_stats(void) {
    const fw_stats_t *s = fw_stats();
    const decoder_stats_t *d = fw_decoder_stats();
    printf("{\"frames\":%u,\"cobs_errors\":%u,\"crc_errors\":%u,\"truncated\":%u,"
           "\"oversized\":%u,\"unknown_type\":%u,\"bad_payload\":%u,\"duplicates\":%u,"
           "\"acks_rx\":%u,\"retransmits\":%u,\"tx_failures\":%u,\"buttons_sent\":%u,"
           "\"buttons_dropped\":%u,\"hellos\":%u,\"state_msgs\":%u,\"noise_flipped\":%lu,"
           "\"noise_dropped\":%lu,\"bytes_in\":%lu,\"bytes_out\":%lu,\"write_dropped\":%lu}\n",
           d->frames, d->cobs_errors, d->crc_errors, d->truncated, d->oversized, s->unknown_type,
           s->bad_payload, s->duplicates, s->acks_rx, s->retransmits, s->tx_failures,
           s->buttons_sent, s->buttons_dropped, s->hellos, s->state_msgs, noise_flipped,
           noise_dropped, bytes_in, bytes_out, write_dropped);
}

static int command(char *line) {
    char *nl = strchr(line, '\n');
    if (nl)
        *nl = 0;
    if (!strcmp(line, "state")) {
        print_state();
    } else if (!strcmp(line, "fb")) {
        printf("{\"fb\":\"");
        print_hex(framebuffer, SCREEN_BYTES);
        printf("\",\"contrast\":%u}\n", contrast);
    } else if (!strcmp(line, "ring")) {
        size_t n;
        const uint8_t *rgb = fw_ring(&n);
        printf("{\"ring\":\"");
        print_hex(rgb, 3 * n);
        printf("\"}\n");
    } else if (!strcmp(line, "stats")) {
        print_stats();
    } else if (!strncmp(line, "press ", 6)) {
        fw_button((uint8_t)atoi(line + 6));
        printf("{\"ok\":true}\n");
    } else if (!strncmp(line, "noise ", 6)) {
        sscanf(line + 6, "%lf %lf", &flip_p, &drop_p);
        printf("{\"ok\":true}\n");
    } else if (!strncmp(line, "unplug ", 7)) { /* board stays powered: state kept */
        close_pty();
        unplugged = 1;
        unplug_until = board_millis() + (uint32_t)atoi(line + 7);
        printf("{\"ok\":true}\n");
    } else if (!strcmp(line, "quit")) {
        printf("{\"ok\":true}\n");
        fflush(stdout);
        return 1;
    } else {
        printf("{\"error\":\"unknown command\"}\n");
    }
    fflush(stdout);
    return 0;
}

static void ready(void) {
    printf("{\"event\":\"ready\",\"pty\":\"%s\",\"link\":\"%s\"}\n", pty_path, link_path);
    fflush(stdout);
}

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig, stop = 1; }

int main(int argc, char **argv) {
    fw_config_t cfg = {.seats = 6, .leds_per_seat = 4, .buttons = 3, .boot_id = 0};
    int have_boot_id = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--link"))
            snprintf(link_path, sizeof link_path, "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            rng_state = (uint32_t)strtoul(argv[i + 1], NULL, 0) | 1u;
        else if (!strcmp(argv[i], "--flip"))
            flip_p = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--drop"))
            drop_p = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--pace"))
            pace_baud = strtoul(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--seats"))
            cfg.seats = (uint8_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--leds-per-seat"))
            cfg.leds_per_seat = (uint8_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--boot-id"))
            cfg.boot_id = (uint32_t)strtoul(argv[i + 1], NULL, 0), have_boot_id = 1;
        else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (!have_boot_id)
        cfg.boot_id = (uint32_t)getpid() * 2654435761u ^ board_millis();
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);
    if (open_pty()) {
        perror("pty");
        return 1;
    }
    fw_init(&cfg);
    ready();
    char line[256];
    size_t line_len = 0;
    while (!stop) {
        if (unplugged && (int32_t)(board_millis() - unplug_until) >= 0) {
            if (open_pty()) {
                perror("pty");
                return 1;
            }
            unplugged = 0;
            ready();
        }
        struct pollfd fds[2] = {{.fd = 0, .events = POLLIN}, {.fd = master_fd, .events = POLLIN}};
        int nfds = master_fd >= 0 ? 2 : 1;
        if (poll(fds, (nfds_t)nfds, 5) < 0 && errno != EINTR)
            break;
        if (fds[0].revents & (POLLIN | POLLHUP)) {
            char c;
            ssize_t r = read(0, &c, 1);
            if (r <= 0)
                break; /* the controlling test went away */
            if (c == '\n' || line_len == sizeof line - 1) {
                line[line_len] = 0;
                line_len = 0;
                if (command(line))
                    break;
            } else {
                line[line_len++] = c;
            }
        }
        if (nfds == 2 && (fds[1].revents & POLLIN)) {
            uint8_t buf[512];
            ssize_t r = read(master_fd, buf, sizeof buf);
            if (r > 0) {
                bytes_in += (unsigned long)r;
                pace((size_t)r);
                size_t n = corrupt(buf, (size_t)r);
                fw_rx_bytes(buf, n);
            }
        }
        fw_poll();
    }
    close_pty();
    return 0;
}
