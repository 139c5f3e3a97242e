/* SPDX-License-Identifier: GPL-2.0-only */
/* liblfn for the netlink samplers (lfn-tcpsampler, lfn-qdiscstat): reading the end of a dump. */
#ifndef LFN_NETLINK_H
#define LFN_NETLINK_H

#include <errno.h>
#include <string.h>

#include <linux/netlink.h>

/*
 * Whether nlh ends the dump it belongs to: 1 with *err set to 0 (NLMSG_DONE) or a negative errno
 * (NLMSG_DONE carrying one, or NLMSG_ERROR; -EBADMSG when the kernel gave no usable code), or 0 for
 * a message of the dump itself. Bodies are copied out, so a short message is never over-read.
 */
static inline int lfn_nl_dump_end(const struct nlmsghdr *nlh, int *err)
{
	if (nlh->nlmsg_type == NLMSG_DONE) {
		int code = 0;

		if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
			memcpy(&code, NLMSG_DATA(nlh), sizeof(code));
		*err = code < 0 ? code : 0;
		return 1;
	}
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr e = { .error = -EBADMSG };

		if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(e)))
			memcpy(&e, NLMSG_DATA(nlh), sizeof(e));
		*err = e.error < 0 ? e.error : -EBADMSG;
		return 1;
	}
	return 0;
}

#endif
