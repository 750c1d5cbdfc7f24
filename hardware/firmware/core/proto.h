/* Wire protocol constants, mirrored by firmware_bridge/protocol.py (a test
 * checks both agree). See hardware/PROTOCOL.md. */
#ifndef PROTO_H
#define PROTO_H

#define PROTO_VERSION 2 /* 2: the LANGUAGE message */
#define PROTO_MAX_PAYLOAD 120
#define PROTO_MAX_FRAME (PROTO_MAX_PAYLOAD + 5) /* type, seq, len, payload, crc */
#define PROTO_MAX_ENCODED (PROTO_MAX_FRAME + 2)
#define PROTO_MAX_SEATS 6
#define PROTO_SEAT_NONE 0xFF
#define PROTO_DEFAULT_BRIGHTNESS 128

#define MSG_ACK 0x01
#define MSG_HELLO 0x02
#define MSG_HELLO_REPLY 0x03
#define MSG_HEARTBEAT 0x04
#define MSG_PING 0x05
#define MSG_PONG 0x06
#define MSG_CLEAR 0x10
#define MSG_NEW_HAND 0x11
#define MSG_TURN 0x12
#define MSG_TRICK_WON 0x13
#define MSG_DRAW_ORDER 0x14
#define MSG_TRUMP 0x15
#define MSG_ERROR 0x16
#define MSG_TEXT 0x17
#define MSG_RESULT 0x18
#define MSG_BRIGHTNESS 0x19
#define MSG_LANGUAGE 0x1A /* the display's words: 0 en, 1 it, 2 fr */
#define MSG_BUTTON 0x20

#define STATUS_OK 0
#define STATUS_UNKNOWN_TYPE 1
#define STATUS_BAD_PAYLOAD 2
#define STATUS_BAD_DIRECTION 3

#define BUTTON_CONFIRM 0
#define BUTTON_UNDO 1
#define BUTTON_NEW_HAND 2

#define CAP_RING 0x01
#define CAP_DISPLAY 0x02
#define CAP_BUTTONS 0x04

#endif
