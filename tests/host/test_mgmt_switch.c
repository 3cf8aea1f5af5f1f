/*
 * Unit tests of qemu/model/mgmt_switch.c: stream framing (partial input,
 * several frames at once, malformed lengths) and the learning switch
 * (flooding, learning, moves, forgetting a port, a bounded MAC table).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt_switch.h"
#include "tap.h"

static struct vb_switch_rx rx;
static struct vb_switch sw;

/* A frame of LEN bytes from SRC to DST, payload byte i = SEED + i. */
static size_t make_frame(uint8_t *out, const uint8_t *dst, const uint8_t *src,
			 uint32_t len, uint8_t seed)
{
	uint32_t i;

	vb_switch_put_len(out, len);
	memcpy(out + MGMT_LEN_SIZE, dst, MGMT_ETH_ALEN);
	memcpy(out + MGMT_LEN_SIZE + MGMT_ETH_ALEN, src, MGMT_ETH_ALEN);
	for (i = 2 * MGMT_ETH_ALEN; i < len; i++)
		out[MGMT_LEN_SIZE + i] = (uint8_t)(seed + i);
	return MGMT_LEN_SIZE + len;
}

static const uint8_t mac_a[MGMT_ETH_ALEN] = { 0x52, 0x54, 0, 0, 0, 0xa };
static const uint8_t mac_b[MGMT_ETH_ALEN] = { 0x52, 0x54, 0, 0, 0, 0xb };
static const uint8_t bcast[MGMT_ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mcast[MGMT_ETH_ALEN] = { 0x33, 0x33, 0, 0, 0, 1 };

/* Feed all of BUF; count frames and malformed events. */
static void feed_all(const uint8_t *buf, size_t n, size_t step,
		     unsigned int *frames, unsigned int *bad, uint32_t *last_len)
{
	size_t pos = 0, used, chunk;

	while (pos < n) {
		chunk = n - pos < step ? n - pos : step;
		while (chunk) {
			enum vb_switch_rx_event ev = vb_switch_rx_feed(&rx, buf + pos, chunk,
								       &used);

			pos += used;
			chunk -= used;
			if (ev == MGMT_RX_FRAME) {
				(*frames)++;
				*last_len = rx.len;
			} else if (ev == MGMT_RX_MALFORMED) {
				(*bad)++;
			}
		}
	}
}

static void test_framing(void)
{
	static uint8_t buf[4 * (MGMT_FRAME_MAX + MGMT_LEN_SIZE)];
	unsigned int frames = 0, bad = 0;
	uint32_t last = 0;
	size_t n;

	vb_switch_rx_init(&rx);
	n = make_frame(buf, mac_b, mac_a, 60, 1);
	feed_all(buf, n, 1, &frames, &bad, &last);
	ok(frames == 1 && bad == 0 && last == 60 &&
	   !memcmp(rx.frame, buf + MGMT_LEN_SIZE, 60),
	   "framing: a frame fed byte by byte");

	frames = 0;
	n = make_frame(buf, mac_b, mac_a, 60, 1);
	n += make_frame(buf + n, mac_a, mac_b, 1514, 2);
	n += make_frame(buf + n, bcast, mac_a, MGMT_FRAME_MAX, 3);
	feed_all(buf, n, n, &frames, &bad, &last);
	ok(frames == 3 && bad == 0 && last == MGMT_FRAME_MAX &&
	   rx.frame[MGMT_FRAME_MAX - 1] == (uint8_t)(3 + MGMT_FRAME_MAX - 1),
	   "framing: three frames in one buffer, the largest is %u bytes",
	   MGMT_FRAME_MAX);

	/* Malformed lengths are dropped and the stream stays in step. */
	frames = 0;
	n = 0;
	vb_switch_put_len(buf, 0);
	n += MGMT_LEN_SIZE;
	vb_switch_put_len(buf + n, MGMT_FRAME_MIN - 1);
	n += MGMT_LEN_SIZE;
	memset(buf + n, 0xee, MGMT_FRAME_MIN - 1);
	n += MGMT_FRAME_MIN - 1;
	vb_switch_put_len(buf + n, MGMT_FRAME_MAX + 1);
	n += MGMT_LEN_SIZE;
	memset(buf + n, 0xee, MGMT_FRAME_MAX + 1);
	n += MGMT_FRAME_MAX + 1;
	n += make_frame(buf + n, mac_b, mac_a, 100, 4);
	feed_all(buf, n, 777, &frames, &bad, &last);
	ok(bad == 3 && frames == 1 && last == 100 &&
	   rx.frame[99] == (uint8_t)(4 + 99),
	   "framing: lengths 0, %u and %u are dropped, the next frame is intact",
	   MGMT_FRAME_MIN - 1, MGMT_FRAME_MAX + 1);

	/* A huge length is skipped without being buffered. */
	bad = 0;
	frames = 0;
	vb_switch_put_len(buf, 0xffffffffU);
	feed_all(buf, MGMT_LEN_SIZE, 4, &frames, &bad, &last);
	ok(bad == 1 && rx.bad_len == 0xffffffffU && rx.skip == 0xffffffffULL,
	   "framing: a 4 GiB length is reported and skipped in place");
}

static void test_switch(void)
{
	uint8_t f[MGMT_LEN_SIZE + 64], mac[MGMT_ETH_ALEN];
	const uint8_t *fr = f + MGMT_LEN_SIZE;
	unsigned int i;
	bool all;

	vb_switch_init(&sw);
	make_frame(f, mac_b, mac_a, 60, 0);
	ok(vb_switch_route(&sw, 1, fr, 60) == MGMT_PORT_NONE,
	   "switch: unknown destination floods");
	make_frame(f, mac_a, mac_b, 60, 0);
	ok(vb_switch_route(&sw, 2, fr, 60) == 1,
	   "switch: the learnt source of the first frame is a unicast target");
	make_frame(f, mac_b, mac_a, 60, 0);
	ok(vb_switch_route(&sw, 1, fr, 60) == 2, "switch: and the other way");
	make_frame(f, bcast, mac_a, 60, 0);
	ok(vb_switch_route(&sw, 1, fr, 60) == MGMT_PORT_NONE,
	   "switch: broadcast floods");
	make_frame(f, mcast, mac_a, 60, 0);
	ok(vb_switch_route(&sw, 1, fr, 60) == MGMT_PORT_NONE,
	   "switch: multicast floods");
	make_frame(f, mac_a, mcast, 60, 0);
	vb_switch_route(&sw, 3, fr, 60);
	all = true;
	for (i = 0; i < MGMT_MAC_TABLE_SIZE; i++)
		all &= sw.table[i].port == MGMT_PORT_NONE ||
		       !(sw.table[i].mac[0] & 1);
	ok(all, "switch: a group source address is never learnt");

	/* mac_a moves from port 1 to port 4. */
	make_frame(f, mac_b, mac_a, 60, 0);
	vb_switch_route(&sw, 4, fr, 60);
	make_frame(f, mac_a, mac_b, 60, 0);
	ok(vb_switch_route(&sw, 2, fr, 60) == 4, "switch: a moved address is relearnt");
	make_frame(f, mac_b, mac_a, 60, 0);
	ok(vb_switch_route(&sw, 4, fr, 60) == 2, "switch: stable after the move");
	make_frame(f, mac_a, mac_a, 60, 0);
	ok(vb_switch_route(&sw, 4, fr, 60) == 4,
	   "switch: a frame for the port it came from is routed back there (the hub drops it)");

	vb_switch_forget(&sw, 4);
	make_frame(f, mac_a, mac_b, 60, 0);
	ok(vb_switch_route(&sw, 2, fr, 60) == MGMT_PORT_NONE,
	   "switch: a closed port's addresses are forgotten");

	/* Many more addresses than table entries: bounded, newest kept. */
	for (i = 0; i < 4 * MGMT_MAC_TABLE_SIZE; i++) {
		mac[0] = 0x02;
		mac[1] = 0;
		mac[2] = (uint8_t)(i >> 24);
		mac[3] = (uint8_t)(i >> 16);
		mac[4] = (uint8_t)(i >> 8);
		mac[5] = (uint8_t)i;
		make_frame(f, bcast, mac, 60, 0);
		vb_switch_route(&sw, 10 + i, fr, 60);
	}
	all = true;
	for (i = 3 * MGMT_MAC_TABLE_SIZE; i < 4 * MGMT_MAC_TABLE_SIZE; i++) {
		mac[2] = (uint8_t)(i >> 24);
		mac[3] = (uint8_t)(i >> 16);
		mac[4] = (uint8_t)(i >> 8);
		mac[5] = (uint8_t)i;
		/* A group source: looking up must not learn (and evict). */
		make_frame(f, mac, mcast, 60, 0);
		all &= vb_switch_route(&sw, 2, fr, 60) == 10 + i;
	}
	ok(all, "switch: with %u addresses the newest %u are known",
	   4 * MGMT_MAC_TABLE_SIZE, MGMT_MAC_TABLE_SIZE);
	ok(vb_switch_route(&sw, 2, fr, MGMT_FRAME_MIN - 1) == 2,
	   "switch: a runt frame is not routed");
}

int main(void)
{
	test_framing();
	test_switch();
	return tap_done();
}
