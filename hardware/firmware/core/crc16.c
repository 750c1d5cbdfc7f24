#include "crc16.h"
#include "crc16_table.h"

uint16_t crc16(uint16_t crc, const uint8_t *data, size_t len) {
    for (size_t i = 0; i < len; i++)
        crc = (uint16_t)((crc << 8) ^ CRC16_TABLE[((crc >> 8) ^ data[i]) & 0xFF]);
    return crc;
}
