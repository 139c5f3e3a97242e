// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_scalable16 - Scalable TCP whose scalable growth starts at 16 packets instead of 100.
 *
 * Above its legacy threshold Scalable TCP grows by 1 % of the window per RTT (one packet per 100
 * acknowledged) whatever the window; below it, by one packet per RTT like Reno. The mainline module
 * puts the threshold at 100 packets. seed001-dst shrinks the window 6.2 times (622 -> 100 Mbit/s):
 * the paper's flows (about 430 to 5100 packets each) always grew by 1 % per RTT, ours (70 to 830)
 * spend most of their time below 100 packets growing like Reno. With the threshold at 100 x 0.1608 =
 * 16 packets, our flows grow as the paper's did at every window the runs see. The 1/8 cut on loss,
 * slow start and undo are the mainline module's.
 */
#include <linux/module.h>
#include <net/tcp.h>

#define SCALABLE16_LEGACY_CWND 16U	/* packets: 100 scaled by 0.1608 */
#define SCALABLE16_AI_CNT 100U		/* one packet per 100 acknowledged: 1 % of the window per RTT */
#define SCALABLE16_MD_SHIFT 3		/* a loss takes 1/8 of the window */

static void scalable16_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = tcp_snd_cwnd(tp);

	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	tcp_cong_avoid_ai(tp, cwnd < SCALABLE16_LEGACY_CWND ? cwnd : SCALABLE16_AI_CNT, acked);
}

static u32 scalable16_ssthresh(struct sock *sk)
{
	u32 cwnd = tcp_snd_cwnd(tcp_sk(sk));

	return max(cwnd - (cwnd >> SCALABLE16_MD_SHIFT), 2U);
}

static struct tcp_congestion_ops tcp_scalable16_ops __read_mostly = {
	.ssthresh	= scalable16_ssthresh,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.cong_avoid	= scalable16_cong_avoid,
	.owner		= THIS_MODULE,
	.name		= "scalable16",
};

static int __init scalable16_register(void)
{
	return tcp_register_congestion_control(&tcp_scalable16_ops);
}

static void __exit scalable16_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_scalable16_ops);
}

module_init(scalable16_register);
module_exit(scalable16_unregister);

MODULE_AUTHOR("lfnlab");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Scalable TCP with its legacy threshold at 16 packets (seed001-dst scaling)");
