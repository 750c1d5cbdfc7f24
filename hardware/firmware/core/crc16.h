#ifndef CRC16_H
#define CRC16_H
#include <stddef.h>
#include <stdint.h>

#define CRC16_INIT 0xFFFF
/* CRC-16/CCITT-FALSE; crc16(CRC16_INIT, "123456789", 9) == 0x29B1 */
uint16_t crc16(uint16_t crc, const uint8_t *data, size_t len);

#endif
