#include "cobs.h"

size_t cobs_encode(const uint8_t *in, size_t len, uint8_t *out) {
    size_t code_at = 0, o = 1;
    uint8_t code = 1;
    for (size_t i = 0; i < len; i++) {
        if (in[i]) {
            out[o++] = in[i];
            code++;
        }
        if (!in[i] || code == 0xFF) {
            out[code_at] = code;
            code_at = o++;
            code = 1;
        }
    }
    out[code_at] = code;
    return o;
}

int cobs_decode(const uint8_t *in, size_t len, uint8_t *out) {
    size_t i = 0, o = 0;
    while (i < len) {
        uint8_t code = in[i];
        if (code == 0 || i + code > len)
            return -1;
        for (size_t k = i + 1; k < i + code; k++) {
            if (in[k] == 0)
                return -1;
            out[o++] = in[k];
        }
        i += code;
        if (code != 0xFF && i < len)
            out[o++] = 0;
    }
    return (int)o;
}
