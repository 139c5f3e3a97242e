// SPDX-License-Identifier: GPL-2.0-only
/*
 * Checks of lfn-flowmeter's per-frame logic on synthetic frames, for the cases a real capture on
 * the host cannot be made to produce on demand: a connection whose sequence space wraps past 2^32,
 * a segment the emulator dropped and the sender retransmitted, an echo that skips a TSval, a frame
 * whose source is on the wrong side. Built and run by `make check`; exit status 0 = all passed.
 * The program itself is included so the checks see its static functions and tables.
 */
#define main flowmeter_main
#include "flowmeter.c"
#undef main

static int failures;

#define CHECK_EQ(what, got, want)                                                                    \
	do {                                                                                         \
		unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want); \
		if (g_ != w_) {                                                                      \
			fprintf(stderr, "FAIL %s: got %llu, want %llu (line %d)\n", what, g_, w_, __LINE__); \
			failures++;                                                                  \
		}                                                                                    \
	} while (0)

#define HOST_A 0x0a000001u /* 10.0.0.1 */
#define HOST_B 0x0a000002u /* 10.0.0.2 */

struct frame_spec {
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint32_t payload;
	int ts; /* 1 = carry TSval/TSecr */
	uint32_t tsval, tsecr;
};

/* Builds the frame's headers as the capture filter would hand them over (cut after the TCP header). */
static size_t build(uint8_t *p, const struct frame_spec *s)
{
	size_t doff = s->ts ? 32 : 20;
	uint8_t *ip = p + 14, *tcp = ip + 20;

	memset(p, 0, SNAPLEN);
	p[12] = 0x08;
	ip[0] = 0x45;
	ip[2] = (uint8_t)((20 + doff + s->payload) >> 8);
	ip[3] = (uint8_t)(20 + doff + s->payload);
	ip[6] = 0x40; /* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_TCP;
	put_be32(ip + 12, s->saddr);
	put_be32(ip + 16, s->daddr);
	tcp[0] = (uint8_t)(s->sport >> 8);
	tcp[1] = (uint8_t)s->sport;
	tcp[2] = (uint8_t)(s->dport >> 8);
	tcp[3] = (uint8_t)s->dport;
	put_be32(tcp + 4, s->seq);
	put_be32(tcp + 8, s->ack);
	tcp[12] = (uint8_t)(doff / 4 << 4);
	tcp[13] = s->flags;
	if (s->ts) {
		tcp[20] = 1;
		tcp[21] = 1;
		tcp[22] = 8;
		tcp[23] = 10;
		put_be32(tcp + 24, s->tsval);
		put_be32(tcp + 28, s->tsecr);
	}
	return 14 + 20 + doff;
}

/* The frame entering the emulator on `in_port` and, unless dropped, leaving on the other port. */
static void cross(const struct frame_spec *s, int in_port, int dropped, uint64_t t_in, uint64_t t_out)
{
	uint8_t buf[SNAPLEN];
	size_t len = build(buf, s);

	handle_frame(buf, len, in_port, 0, t_in);
	if (!dropped)
		handle_frame(buf, len, !in_port, 1, t_out);
}

static struct half_flow *find(uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport)
{
	return flow_find(htonl(saddr), htonl(daddr), htons(sport), htons(dport), 0, 0);
}

static void wrapping_transfer(void)
{
	const uint32_t isn = 0xfffff000u, risn = 7;
	const uint32_t mss = 1448;
	struct frame_spec syn = { HOST_A, HOST_B, 40000, 5201, isn, 0, TCP_SYN, 0, 1, 100, 0 };
	struct frame_spec synack = { HOST_B, HOST_A, 5201, 40000, risn, isn + 1, TCP_SYN | TCP_ACK, 0, 1, 900, 100 };
	struct half_flow *data, *acks;
	uint32_t seq = isn + 1;
	int i;

	cross(&syn, PORT_A, 0, 1000, 2000);
	cross(&synack, PORT_B, 0, 3000, 4000);
	data = find(HOST_A, HOST_B, 40000, 5201);
	acks = find(HOST_B, HOST_A, 5201, 40000);
	if (!data || !acks) {
		fprintf(stderr, "FAIL: half-flows not created\n");
		failures++;
		return;
	}
	CHECK_EQ("data enters on a", data->src_port, PORT_A);
	CHECK_EQ("acks enter on b", acks->src_port, PORT_B);
	/* The SYN's TSval 100 entered at 1000 and its echo left toward A at 4000. */
	CHECK_EQ("handshake rtt samples", data->rtt_n, 1);
	CHECK_EQ("handshake rtt ns", data->rtt_min_ns, 3000);

	/* Eight segments across the wrap (the third straddles it); the fourth is dropped in the emulator. */
	for (i = 0; i < 8; i++) {
		struct frame_spec d = { HOST_A, HOST_B, 40000, 5201, seq, risn + 1, TCP_ACK, mss, 1, 200 + (uint32_t)i, 900 };

		cross(&d, PORT_A, i == 3, 10000 + (uint64_t)i * 10, 20000 + (uint64_t)i * 10);
		seq += mss;
	}
	CHECK_EQ("entered bytes", data->in_bytes, 8 * mss);
	CHECK_EQ("left bytes", data->out_bytes, 7 * mss);
	CHECK_EQ("new bytes before the retransmission", data->new_bytes, 7 * mss);
	CHECK_EQ("one hole", data->n_holes, 1);
	CHECK_EQ("no retransmission yet", data->retrans, 0);

	/* B acknowledges up to the hole (ack = start of segment 3), echoing TSval 202 (segment 2's). */
	{
		struct frame_spec a = { HOST_B, HOST_A, 5201, 40000, risn + 1, isn + 1 + 3 * mss, TCP_ACK, 0, 1, 901, 202 };

		cross(&a, PORT_B, 0, 30000, 31000);
	}
	/* Flight: highest end entered (8 segments) minus the ACK entered from B (3 segments). */
	CHECK_EQ("flight", flight_of(data), 5 * mss);
	/* TSvals 200 and 201 were never echoed and are dropped; 202 entered at 10020, echo left at 31000. */
	CHECK_EQ("rtt samples", data->rtt_n, 2);
	CHECK_EQ("rtt max ns", data->rtt_max_ns, 31000 - 10020);
	/* An echo entering (not yet leaving toward the sender) is not a sample. */
	{
		struct frame_spec a = { HOST_B, HOST_A, 5201, 40000, risn + 1, isn + 1 + 3 * mss, TCP_ACK, 0, 1, 902, 204 };
		uint8_t buf[SNAPLEN];

		handle_frame(buf, build(buf, &a), PORT_B, 0, 32000);
		CHECK_EQ("entering echo not sampled", data->rtt_n, 2);
	}

	/* The retransmission of segment 3: counted entering as a retransmission, and new when it leaves. */
	{
		struct frame_spec r = { HOST_A, HOST_B, 40000, 5201, isn + 1 + 3 * mss, risn + 1, TCP_ACK, mss, 1, 300, 902 };

		cross(&r, PORT_A, 0, 40000, 41000);
		cross(&r, PORT_A, 0, 42000, 43000); /* and a spurious second copy */
	}
	CHECK_EQ("retransmissions entered", data->retrans, 2);
	CHECK_EQ("new bytes after the hole is filled", data->new_bytes, 8 * mss);
	CHECK_EQ("hole closed", data->n_holes, 0);
	CHECK_EQ("sequence end past the wrap", data->out_end, isn + 1 + 8 * mss);

	/* A partly new segment: half old data, half new. */
	{
		struct frame_spec p = { HOST_A, HOST_B, 40000, 5201, seq - mss / 2, risn + 1, TCP_ACK, mss, 0, 0, 0 };

		cross(&p, PORT_A, 0, 50000, 51000);
	}
	CHECK_EQ("partly new segment", data->new_bytes, 8 * mss + mss / 2);
	CHECK_EQ("partly new segment is not a retransmission", data->retrans, 2);
}

static void misplaced_and_foreign_frames(void)
{
	uint8_t buf[SNAPLEN];
	struct frame_spec d = { HOST_A, HOST_B, 40000, 5201, 1, 1, TCP_ACK, 100, 0, 0, 0 };
	uint64_t ignored = cnt.ignored;
	size_t len = build(buf, &d);

	/* Host A's half-flow showing up as entering on port B: its source cannot be on both sides. */
	handle_frame(buf, len, PORT_B, 0, 60000);
	CHECK_EQ("wrong side ignored", cnt.ignored, ignored + 1);
	/* UDP, and a later IP fragment. */
	buf[14 + 9] = IPPROTO_UDP;
	handle_frame(buf, len, PORT_A, 0, 60000);
	buf[14 + 9] = IPPROTO_TCP;
	buf[14 + 6] = 0x00;
	buf[14 + 7] = 0x10;
	handle_frame(buf, len, PORT_A, 0, 60000);
	CHECK_EQ("udp and fragment ignored", cnt.ignored, ignored + 3);
}

static void timestamps_off(void)
{
	struct frame_spec d = { HOST_A, HOST_B, 41000, 80, 5, 9, TCP_ACK, 500, 0, 0, 0 };
	struct frame_spec a = { HOST_B, HOST_A, 80, 41000, 9, 505, TCP_ACK, 0, 0, 0, 0 };
	struct half_flow *f;

	cross(&d, PORT_A, 0, 70000, 71000);
	cross(&a, PORT_B, 0, 72000, 73000);
	f = find(HOST_A, HOST_B, 41000, 80);
	CHECK_EQ("no timestamps, no rtt", f ? f->rtt_n : 99, 0);
	CHECK_EQ("mid-flow start counts its first segment", f ? f->new_bytes : 0, 500);
	CHECK_EQ("flight 0 once all is acknowledged", f ? flight_of(f) : 99, 0);
}

int main(void)
{
	lfn_prog = "lfn-flowmeter-selftest";
	wrapping_transfer();
	misplaced_and_foreign_frames();
	timestamps_off();
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("lfn-flowmeter selftest: all checks passed\n");
	return 0;
}
