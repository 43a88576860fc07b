/* record_enc.h - protobuf wire encoding for libtracefold-record: varints,
 * fixed64, strings, and nested messages whose length is a 4-byte varint
 * written after their body (a redundant varint, as Perfetto's protozero
 * writes them; every protobuf parser takes it), so that a message is
 * written in one pass into a buffer with room for it. */
#ifndef TRACEFOLD_RECORD_ENC_H
#define TRACEFOLD_RECORD_ENC_H

#include <stdint.h>
#include <string.h>

enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2 };

static inline uint8_t *pb_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint8_t *pb_tag(uint8_t *p, uint32_t field, unsigned wire)
{
	return pb_varint(p, ((uint64_t)field << 3) | wire);
}

static inline uint8_t *pb_uint(uint8_t *p, uint32_t field, uint64_t v)
{
	return pb_varint(pb_tag(p, field, PB_VARINT), v);
}

static inline uint8_t *pb_fixed64(uint8_t *p, uint32_t field, uint64_t v)
{
	p = pb_tag(p, field, PB_I64);
	for (int i = 0; i < 8; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

static inline uint8_t *pb_double(uint8_t *p, uint32_t field, double d)
{
	uint64_t v;
	memcpy(&v, &d, sizeof(v));
	return pb_fixed64(p, field, v);
}

static inline uint8_t *pb_str(uint8_t *p, uint32_t field, const char *s, size_t n)
{
	p = pb_varint(pb_tag(p, field, PB_LEN), n);
	memcpy(p, s, n);
	return p + n;
}

/* A nested message: open returns where its length goes (4 bytes kept),
 * close writes the length of what follows it up to end. */
static inline uint8_t *pb_open(uint8_t *p, uint32_t field, uint8_t **len_at)
{
	p = pb_tag(p, field, PB_LEN);
	*len_at = p;
	return p + 4;
}

static inline void pb_close(uint8_t *len_at, const uint8_t *end)
{
	uint32_t v = (uint32_t)(end - (len_at + 4));
	len_at[0] = (uint8_t)((v & 0x7f) | 0x80);
	len_at[1] = (uint8_t)(((v >> 7) & 0x7f) | 0x80);
	len_at[2] = (uint8_t)(((v >> 14) & 0x7f) | 0x80);
	len_at[3] = (uint8_t)((v >> 21) & 0x7f);
}

/* Field numbers (Perfetto's protos/perfetto/trace: trace_packet.proto,
 * track_event/ protos, clock_snapshot.proto; docs/record.md). */
enum {
	TRACE_PACKET = 1,
	/* TracePacket */
	TP_TIMESTAMP = 8,
	TP_SEQ_ID = 10,
	TP_TRACK_EVENT = 11,
	TP_INTERNED = 12,
	TP_SEQ_FLAGS = 13,
	TP_CLOCK_SNAPSHOT = 6,
	TP_PREV_DROPPED = 42,
	TP_DEFAULTS = 59,
	TP_TRACK_DESCRIPTOR = 60,
	TP_FIRST_ON_SEQ = 87,
	/* TracePacketDefaults */
	TPD_CLOCK_ID = 58,
	TPD_TRACK_EVENT_DEFAULTS = 11,
	TED_TRACK_UUID = 11,
	/* ClockSnapshot */
	CS_CLOCKS = 1,
	CK_ID = 1,
	CK_TIMESTAMP = 2,
	CK_INCREMENTAL = 3,
	/* TrackDescriptor */
	TD_UUID = 1,
	TD_NAME = 2,
	TD_PROCESS = 3,
	TD_THREAD = 4,
	TD_PARENT = 5,
	TD_COUNTER = 8,
	PD_PID = 1,
	PD_NAME = 6,
	THD_PID = 1,
	THD_TID = 2,
	THD_NAME = 5,
	CD_UNIT = 3,
	CD_UNIT_NAME = 6,
	/* TrackEvent */
	TE_ANNOTATION = 4,
	TE_TYPE = 9,
	TE_NAME_IID = 10,
	TE_TRACK_UUID = 11,
	TE_DOUBLE_COUNTER = 44,
	TE_FLOW_IDS = 47,
	TE_TERM_FLOW_IDS = 48,
	TE_SLICE_BEGIN = 1,
	TE_SLICE_END = 2,
	TE_INSTANT = 3,
	TE_COUNTER = 4,
	/* InternedData, EventName */
	ID_EVENT_NAMES = 2,
	EN_IID = 1,
	EN_NAME = 2,
	/* DebugAnnotation */
	DA_BOOL = 2,
	DA_UINT = 3,
	DA_INT = 4,
	DA_DOUBLE = 5,
	DA_STRING = 6,
	DA_NAME = 10,
	DA_DICT = 11,
	DA_ARRAY = 12,
	/* sequence_flags */
	SEQ_CLEARED = 1,
	SEQ_NEEDS = 2,
};

#endif
