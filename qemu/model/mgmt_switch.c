/* Management network framing and learning switch (see mgmt_switch.h). */
#include "mgmt_switch.h"

#include <string.h>

/* Group bit of the first address octet: broadcast and multicast. */
#define ETH_GROUP_BIT		0x01U
#define ETH_DST_OFF		0U
#define ETH_SRC_OFF		MGMT_ETH_ALEN

void vb_switch_rx_init(struct vb_switch_rx *rx)
{
	rx->hdr_have = 0;
	rx->len = 0;
	rx->have = 0;
	rx->skip = 0;
	rx->bad_len = 0;
}

void vb_switch_put_len(uint8_t out[MGMT_LEN_SIZE], uint32_t len)
{
	out[0] = (uint8_t)(len >> 24);
	out[1] = (uint8_t)(len >> 16);
	out[2] = (uint8_t)(len >> 8);
	out[3] = (uint8_t)len;
}

static size_t vb_switch_min_size(size_t a, uint64_t b)
{
	return b < a ? (size_t)b : a;
}

enum vb_switch_rx_event vb_switch_rx_feed(struct vb_switch_rx *rx,
					  const uint8_t *data, size_t n,
					  size_t *used)
{
	size_t pos = 0, k;

	while (pos < n) {
		if (rx->skip) {
			k = vb_switch_min_size(n - pos, rx->skip);
			rx->skip -= k;
			pos += k;
			continue;
		}
		if (rx->hdr_have < MGMT_LEN_SIZE) {
			rx->hdr[rx->hdr_have++] = data[pos++];
			if (rx->hdr_have < MGMT_LEN_SIZE)
				continue;
			rx->len = (uint32_t)rx->hdr[0] << 24 |
				  (uint32_t)rx->hdr[1] << 16 |
				  (uint32_t)rx->hdr[2] << 8 | rx->hdr[3];
			rx->have = 0;
			if (rx->len < MGMT_FRAME_MIN || rx->len > MGMT_FRAME_MAX) {
				/* Drop the frame but stay in step with the stream. */
				rx->bad_len = rx->len;
				rx->skip = rx->len;
				rx->hdr_have = 0;
				*used = pos;
				return MGMT_RX_MALFORMED;
			}
			continue;
		}
		k = vb_switch_min_size(n - pos, rx->len - rx->have);
		memcpy(rx->frame + rx->have, data + pos, k);
		rx->have += k;
		pos += k;
		if (rx->have == rx->len) {
			rx->hdr_have = 0;
			*used = pos;
			return MGMT_RX_FRAME;
		}
	}
	*used = pos;
	return MGMT_RX_MORE;
}

void vb_switch_init(struct vb_switch *sw)
{
	memset(sw, 0, sizeof(*sw));
}

static struct vb_switch_mac_entry *vb_switch_mac_find(struct vb_switch *sw,
						      const uint8_t *mac)
{
	unsigned int i;

	for (i = 0; i < MGMT_MAC_TABLE_SIZE; i++) {
		struct vb_switch_mac_entry *e = &sw->table[i];

		if (e->port != MGMT_PORT_NONE &&
		    !memcmp(e->mac, mac, MGMT_ETH_ALEN))
			return e;
	}
	return NULL;
}

static void vb_switch_mac_learn(struct vb_switch *sw, const uint8_t *mac,
				uint32_t port)
{
	struct vb_switch_mac_entry *e = vb_switch_mac_find(sw, mac), *victim;
	unsigned int i;

	if (!e) {
		/* A free entry, else the one learnt longest ago. */
		victim = &sw->table[0];
		for (i = 0; i < MGMT_MAC_TABLE_SIZE; i++) {
			e = &sw->table[i];
			if (e->port == MGMT_PORT_NONE) {
				victim = e;
				break;
			}
			if (e->used < victim->used)
				victim = e;
		}
		e = victim;
		memcpy(e->mac, mac, MGMT_ETH_ALEN);
	}
	e->port = port;
	e->used = ++sw->clock;
}

uint32_t vb_switch_route(struct vb_switch *sw, uint32_t in,
			 const uint8_t *frame, size_t len)
{
	const uint8_t *dst = frame + ETH_DST_OFF, *src = frame + ETH_SRC_OFF;
	struct vb_switch_mac_entry *e;

	if (len < MGMT_FRAME_MIN)
		return in;
	if (!(src[0] & ETH_GROUP_BIT))
		vb_switch_mac_learn(sw, src, in);
	if (dst[0] & ETH_GROUP_BIT)
		return MGMT_PORT_NONE;
	e = vb_switch_mac_find(sw, dst);
	return e ? e->port : MGMT_PORT_NONE;
}

void vb_switch_forget(struct vb_switch *sw, uint32_t port)
{
	unsigned int i;

	for (i = 0; i < MGMT_MAC_TABLE_SIZE; i++)
		if (sw->table[i].port == port)
			sw->table[i].port = MGMT_PORT_NONE;
}
