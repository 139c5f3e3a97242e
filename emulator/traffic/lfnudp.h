/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by lfn-udpgen and lfn-udpsink: the datagram header both sides
 * agree on, addresses and rates (clocks, integers and the rest: lfn_common.h).
 *
 * Datagram payload, all integers big-endian:
 *   bytes 0..7   sequence number, 0 for the first datagram of a run, +1 per
 *                datagram actually handed to the kernel (a datagram the
 *                generator skipped or failed to send takes no number)
 *   bytes 8..15  CLOCK_REALTIME in ns, read just before the send call
 *   bytes 16..   filler (0x5a)
 */
#ifndef LFNUDP_H
#define LFNUDP_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "lfn_common.h"

#define LFNUDP_HDR_LEN 16
/* Largest UDP payload that fits an IPv4 datagram (65535 - 20 - 8). */
#define LFNUDP_MAX_PAYLOAD 65507
/* IP + UDP header bytes per datagram; the rate and byte counts include them. */
#define LFNUDP_OVERHEAD_V4 28u
#define LFNUDP_OVERHEAD_V6 48u

/* --duration S (0..1e7 s, fractions allowed; 0 = until stopped), as both programs take it; -1 (printed) if bad. */
static inline int udp_opt_duration(const char *arg, double *s, uint64_t *ns)
{
	if (parse_double(arg, 0, 1e7, s))
		return lfn_bad_value("--duration must be seconds, 0..1e7", arg);
	*ns = (uint64_t)llround(*s * 1e9);
	return 0;
}

/* --report HZ (1..100 intervals per second), as both programs take it; -1 (printed) if bad. */
static inline int udp_opt_report(const char *arg, unsigned *hz)
{
	uint64_t v;

	if (parse_u64(arg, 1, 100, &v))
		return lfn_bad_value("--report must be an integer 1..100", arg);
	*hz = (unsigned)v;
	return 0;
}

/* Bits per second: a number with an optional SI suffix k, M or G (powers of 1000). */
static inline int parse_bps(const char *s, double min, double max, double *out)
{
	char buf[64], *end;
	size_t len = strlen(s);
	double mult = 1, d;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len + 1);
	switch (buf[len - 1]) {
	case 'k':
		mult = 1e3;
		break;
	case 'M':
		mult = 1e6;
		break;
	case 'G':
		mult = 1e9;
		break;
	}
	if (mult != 1)
		buf[len - 1] = '\0';
	errno = 0;
	d = strtod(buf, &end);
	if (errno || end == buf || *end || !isfinite(d))
		return -1;
	d *= mult;
	if (d < min || d > max)
		return -1;
	*out = d;
	return 0;
}

/* Numeric IPv4 or IPv6 address (no name lookup: the lab has no resolver). */
static inline int parse_addr(const char *s, uint16_t port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		*len = sizeof(*a4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		*len = sizeof(*a6);
		return 0;
	}
	return -1;
}

static inline void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/* "a.b.c.d:port" or "[v6]:port". */
static inline void format_addr(const struct sockaddr_storage *ss, char *out, size_t n)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(out, n, "%s:%u", host, ntohs(a->sin_port));
	} else {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(out, n, "[%s]:%u", host, ntohs(a->sin6_port));
	}
}

#endif
