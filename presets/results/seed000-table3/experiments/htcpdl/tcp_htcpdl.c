// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_htcpdl - H-TCP (Shorten & Leith, PFLDnet 2004) with its low-speed interval as a parameter.
 *
 * H-TCP grows like Reno (one packet per RTT) for Delta_L after each congestion event, then faster
 * the longer the event is past: alpha(t) = 1 + 10 t + (t/2)^2 packets per RTT, t in seconds past
 * Delta_L, scaled by minRTT/100 ms and by 2(1 - beta) so that a flow's share does not depend on its
 * backoff. On a loss the window keeps beta = minRTT/maxRTT of itself, clamped to [0.5, 0.8], or 0.5
 * when the throughput reached between two losses moved by more than a fifth.
 *
 * Mainline's module fixes Delta_L at one second and counts t in seconds. A preset that shrinks the
 * window by k with the RTT kept shortens every congestion epoch by k (Reno's is then the paper's
 * epoch, compressed in time), so one second covers k^-1 times more of the epoch than in the paper
 * (the htcp.delta_l/epoch group). H-TCP follows the same compression when its whole time axis
 * does: alpha_ours(t) = alpha_paper(t / k). delta_l_ms sets Delta_L and alpha_time_ms the unit t
 * is counted in; both at 1000 k keep the group and the shape of the increase within an epoch.
 *
 * This is lfnlab's own implementation, written to the conventions of the kernel's H-TCP so that at
 * delta_l_ms = 1000 the two grow and back off alike: times in jiffies (the lab kernel's HZ is 250),
 * fixed-point alpha and beta with 7 fractional bits, whole-number steps of alpha, adaptive backoff
 * only above a 10 ms minimum RTT, maxRTT grown by at most 20 ms a sample and faded by 5 % a loss.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <net/tcp.h>

#define HTCPDL_ONE	128U	/* 1.0 in the 7-bit fixed point of alpha and beta */
#define HTCPDL_BETA_LO	64U	/* 0.5 */
#define HTCPDL_BETA_HI	102U	/* 0.8 */

static unsigned int delta_l_ms __read_mostly = 1000;
module_param(delta_l_ms, uint, 0644);
MODULE_PARM_DESC(delta_l_ms, "low-speed interval Delta_L after a congestion event, in ms "
		 "(1000 in the published algorithm)");

static unsigned int alpha_time_ms __read_mostly = 1000;
module_param(alpha_time_ms, uint, 0644);
MODULE_PARM_DESC(alpha_time_ms, "unit of the time past Delta_L in alpha(t), in ms "
		 "(1000 in the published algorithm: t in seconds)");

static int use_rtt_scaling __read_mostly = 1;
module_param(use_rtt_scaling, int, 0644);
MODULE_PARM_DESC(use_rtt_scaling, "scale the increase by minRTT / 100 ms (1) or not (0)");

static int use_bandwidth_switch __read_mostly = 1;
module_param(use_bandwidth_switch, int, 0644);
MODULE_PARM_DESC(use_bandwidth_switch, "back off by 0.5 when throughput moved by over 20 % (1) or not (0)");

struct htcpdl {
	u32 alpha;		/* increase per RTT, packets << 7 */
	u32 since;		/* jiffies: end of the last congestion event */
	u32 rtt_min;		/* jiffies; 0 until the first sample */
	u32 rtt_max;		/* jiffies */
	u32 tput;		/* smoothed throughput, packets per second */
	u32 tput_max;		/* its peak since the last congestion event */
	u32 tput_max_prev;	/* the peak before that */
	u32 tput_acked;		/* packets acknowledged since tput_from */
	u32 tput_from;		/* jiffies */
	u32 saved_since;	/* for undo: the state before the event, 0 when none */
	u32 saved_rtt_max;
	u32 saved_tput_max_prev;
	u16 acked_now;		/* packets the latest ACK covered (Open state) */
	u8 beta;		/* share kept on a loss, << 7 */
	u8 adaptive;		/* 1 once a congestion event has been seen with stable throughput */
};

static u32 htcpdl_elapsed(const struct htcpdl *ca)
{
	return tcp_jiffies32 - ca->since;
}

/* Packets per RTT to add, << 7: Reno's one during Delta_L, then the quadratic in the time past it. */
static void htcpdl_set_alpha(struct htcpdl *ca)
{
	u32 elapsed = htcpdl_elapsed(ca);
	u32 low = msecs_to_jiffies(delta_l_ms);
	u32 unit = max(msecs_to_jiffies(alpha_time_ms), 1UL);
	u32 gain = 1;

	if (elapsed > low) {
		u32 t = elapsed - low;	/* jiffies past Delta_L */

		/* 1 + 10 t + (t/2)^2 with t in units of alpha_time_ms, whole steps as mainline's */
		gain = 1 + (10 * t + (t / 2) * (t / 2) / unit) / unit;
	}
	if (use_rtt_scaling && ca->rtt_min) {
		/* gain * minRTT / 100 ms, the ratio held to [0.1, 2] in eighths, never below one */
		u32 eighths = clamp((u32)(HZ << 3) / (10 * ca->rtt_min), 4U, 80U);

		gain = max((gain << 3) / eighths, 1U);
	}
	ca->alpha = 2 * gain * (HTCPDL_ONE - ca->beta);
	if (!ca->alpha)
		ca->alpha = HTCPDL_ONE;
}

/* At a congestion event: the backoff for this one, from the RTTs and the throughput since the last. */
static void htcpdl_set_beta(struct htcpdl *ca)
{
	if (use_bandwidth_switch) {
		u32 peak = ca->tput_max, before = ca->tput_max_prev;

		ca->tput_max_prev = peak;
		/* the peak moved by more than a fifth: the path changed, back off by half */
		if (5 * peak < 4 * before || 5 * peak > 6 * before) {
			ca->beta = HTCPDL_BETA_LO;
			ca->adaptive = 0;
			return;
		}
	}
	if (ca->adaptive && ca->rtt_min > msecs_to_jiffies(10) && ca->rtt_max) {
		ca->beta = clamp((ca->rtt_min << 7) / ca->rtt_max, HTCPDL_BETA_LO, HTCPDL_BETA_HI);
	} else {
		ca->beta = HTCPDL_BETA_LO;
		ca->adaptive = 1;
	}
}

static void htcpdl_init(struct sock *sk)
{
	struct htcpdl *ca = inet_csk_ca(sk);

	memset(ca, 0, sizeof(*ca));
	ca->alpha = HTCPDL_ONE;
	ca->beta = HTCPDL_BETA_LO;
	ca->acked_now = 1;
	ca->since = tcp_jiffies32;
}

static u32 htcpdl_ssthresh(struct sock *sk)
{
	struct htcpdl *ca = inet_csk_ca(sk);

	htcpdl_set_beta(ca);
	htcpdl_set_alpha(ca);
	/* forget a past queue slowly, in case the path itself changed */
	if (ca->rtt_min && ca->rtt_max > ca->rtt_min)
		ca->rtt_max = ca->rtt_min + (ca->rtt_max - ca->rtt_min) * 95 / 100;
	return max((tcp_snd_cwnd(tcp_sk(sk)) * ca->beta) >> 7, 2U);
}

static u32 htcpdl_undo_cwnd(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct htcpdl *ca = inet_csk_ca(sk);

	if (ca->saved_since) {
		ca->since = ca->saved_since;
		ca->rtt_max = ca->saved_rtt_max;
		ca->tput_max_prev = ca->saved_tput_max_prev;
		ca->saved_since = 0;
	}
	return max(tcp_snd_cwnd(tp), (tp->snd_ssthresh << 7) / ca->beta);
}

static void htcpdl_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct htcpdl *ca = inet_csk_ca(sk);

	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		tcp_slow_start(tp, acked);
		return;
	}
	/* cwnd += alpha / cwnd per packet ACKed, counted in whole packets */
	if (((tp->snd_cwnd_cnt * ca->alpha) >> 7) >= tcp_snd_cwnd(tp)) {
		if (tcp_snd_cwnd(tp) < tp->snd_cwnd_clamp)
			tcp_snd_cwnd_set(tp, tcp_snd_cwnd(tp) + 1);
		tp->snd_cwnd_cnt = 0;
		htcpdl_set_alpha(ca);
	} else {
		tp->snd_cwnd_cnt += ca->acked_now;
	}
	ca->acked_now = 1;
}

static void htcpdl_rtt_sample(struct sock *sk, u32 rtt)
{
	struct htcpdl *ca = inet_csk_ca(sk);

	if (!ca->rtt_min || rtt < ca->rtt_min)
		ca->rtt_min = rtt;
	if (inet_csk(sk)->icsk_ca_state != TCP_CA_Open)
		return;
	if (ca->rtt_max < ca->rtt_min)
		ca->rtt_max = ca->rtt_min;
	/* a sample far above the last maximum is more likely a delayed ACK than a queue */
	if (rtt > ca->rtt_max && rtt <= ca->rtt_max + msecs_to_jiffies(20))
		ca->rtt_max = rtt;
}

static void htcpdl_pkts_acked(struct sock *sk, const struct ack_sample *sample)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct htcpdl *ca = inet_csk_ca(sk);
	u8 state = inet_csk(sk)->icsk_ca_state;
	u32 now = tcp_jiffies32;

	if (state == TCP_CA_Open)
		ca->acked_now = sample->pkts_acked;
	if (sample->rtt_us > 0)
		htcpdl_rtt_sample(sk, usecs_to_jiffies(sample->rtt_us));
	if (!use_bandwidth_switch)
		return;
	if (state != TCP_CA_Open && state != TCP_CA_Disorder) {
		ca->tput_acked = 0;
		ca->tput_from = now;
		return;
	}
	ca->tput_acked += sample->pkts_acked;
	/* one throughput sample per window's worth of ACKs, at most one per minRTT */
	if (ca->rtt_min && now - ca->tput_from >= ca->rtt_min &&
	    ca->tput_acked >= tcp_snd_cwnd(tp) - max(ca->alpha >> 7, 1U)) {
		u32 rate = ca->tput_acked * HZ / (now - ca->tput_from);

		if (htcpdl_elapsed(ca) / ca->rtt_min <= 3) {
			/* within three RTTs of a backoff: start over from this sample */
			ca->tput = ca->tput_max = rate;
		} else {
			ca->tput = (3 * ca->tput + rate) / 4;
			ca->tput_max = max(ca->tput_max, ca->tput);
		}
		ca->tput_acked = 0;
		ca->tput_from = now;
	}
}

static void htcpdl_set_state(struct sock *sk, u8 new_state)
{
	struct htcpdl *ca = inet_csk_ca(sk);

	switch (new_state) {
	case TCP_CA_Open:
		/* recovery ended without an undo: the congestion event ends now */
		if (ca->saved_since) {
			ca->since = tcp_jiffies32;
			ca->saved_since = 0;
		}
		break;
	case TCP_CA_CWR:
	case TCP_CA_Recovery:
	case TCP_CA_Loss:
		ca->saved_since = ca->since;
		ca->saved_rtt_max = ca->rtt_max;
		ca->saved_tput_max_prev = ca->tput_max_prev;
		ca->since = tcp_jiffies32;
		break;
	}
}

static struct tcp_congestion_ops tcp_htcpdl_ops __read_mostly = {
	.init		= htcpdl_init,
	.ssthresh	= htcpdl_ssthresh,
	.undo_cwnd	= htcpdl_undo_cwnd,
	.cong_avoid	= htcpdl_cong_avoid,
	.set_state	= htcpdl_set_state,
	.pkts_acked	= htcpdl_pkts_acked,
	.owner		= THIS_MODULE,
	.name		= "htcpdl",
};

static int __init htcpdl_register(void)
{
	BUILD_BUG_ON(sizeof(struct htcpdl) > ICSK_CA_PRIV_SIZE);
	return tcp_register_congestion_control(&tcp_htcpdl_ops);
}

static void __exit htcpdl_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_htcpdl_ops);
}

module_init(htcpdl_register);
module_exit(htcpdl_unregister);

MODULE_AUTHOR("lfnlab");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("H-TCP with its low-speed interval Delta_L as a module parameter");
