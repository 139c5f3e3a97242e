// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_renoack - Reno that counts ACKs, not acknowledged segments, as the Linux of 2002 did.
 *
 * Today's Reno grows by one packet per window's worth of acknowledged segments, so a receiver that
 * acknowledges every second segment (delayed ACKs) does not slow it down. Seed 003 measured recovery
 * at about twice the theory on its testbed and blamed delayed ACKs; this stack restores the old
 * counting so lfnlab can test that explanation: slow start adds one packet per ACK, congestion
 * avoidance one packet per window's worth of ACKs, and a loss halves the window.
 */
#include <linux/module.h>
#include <net/tcp.h>

struct renoack {
	u32 cwnd_before_loss;	/* packets; 0 until the first loss */
};

static void renoack_init(struct sock *sk)
{
	struct renoack *ca = inet_csk_ca(sk);

	ca->cwnd_before_loss = 0;
}

static u32 renoack_ssthresh(struct sock *sk)
{
	struct renoack *ca = inet_csk_ca(sk);
	u32 cwnd = tcp_snd_cwnd(tcp_sk(sk));

	ca->cwnd_before_loss = cwnd;
	return max(cwnd >> 1U, 2U);
}

static void renoack_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!tcp_is_cwnd_limited(sk) || !acked)
		return;
	/* One ACK is one step whatever it covers: the point of this stack. */
	if (tcp_in_slow_start(tp)) {
		tcp_slow_start(tp, 1);
		return;
	}
	tcp_cong_avoid_ai(tp, tcp_snd_cwnd(tp), 1);
}

static u32 renoack_undo_cwnd(struct sock *sk)
{
	const struct renoack *ca = inet_csk_ca(sk);

	return max(tcp_snd_cwnd(tcp_sk(sk)), ca->cwnd_before_loss);
}

static struct tcp_congestion_ops tcp_renoack_ops __read_mostly = {
	.init		= renoack_init,
	.ssthresh	= renoack_ssthresh,
	.cong_avoid	= renoack_cong_avoid,
	.undo_cwnd	= renoack_undo_cwnd,
	.owner		= THIS_MODULE,
	.name		= "renoack",
};

static int __init renoack_register(void)
{
	BUILD_BUG_ON(sizeof(struct renoack) > ICSK_CA_PRIV_SIZE);
	return tcp_register_congestion_control(&tcp_renoack_ops);
}

static void __exit renoack_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_renoack_ops);
}

module_init(renoack_register);
module_exit(renoack_unregister);

MODULE_AUTHOR("lfnlab");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Reno counting ACKs rather than acknowledged segments (Linux 2002 behaviour)");
