// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_grid - "TCP Grid" congestion control for lfnlab (Linux 6.1), after
 * Martin-Flatin & Ravot 2002, "TCP Congestion Control in Fast Long-Distance
 * Networks" (seed 003).
 *
 * Equations (arithmetic and state machine in grid_math.h, shared with
 * test/test_grid.c):
 *
 *   congestion (sec. III.B):  >= loss_thresh (2) losses in one window;
 *                             a single loss is a line error: no change.
 *   decrease (sec. IV.B, eqs. (13)-(15)):
 *       alpha_{i+1} = alpha_i / (1 + alpha_i)   =>   w <- w / (1 + alpha_i),
 *       alpha_i = ABW_i / C = (w / sRTT) / C   (eq. 14)
 *   increase (sec. IV.C): binary search back to ABW_i (the window at the
 *       congestion event) until the step is one packet, then +1 per RTT;
 *       hold at ABW_i until the greedy timer expires (state 3); then probe
 *       with +1 packet per RTT or eq. (20) alpha <- alpha / (1 - alpha).
 *
 * Kernel mapping: a "window" of losses is one loss-recovery episode (all
 * losses among the packets outstanding when recovery began, counted with
 * tp->lost).  ssthresh() decides when recovery starts; if more losses of
 * the same episode turn up later, the decrease is applied then by lowering
 * snd_ssthresh, which PRR follows.  An ignored episode ends with the window
 * restored to its value before the loss.  A retransmission timeout and an
 * ECN echo always count as congestion.
 *
 * C is the "link_mbps" parameter or, when 0, the largest delivery rate the
 * connection has measured (a lone flow sees the bottleneck rate; with
 * competitors the estimate is lower, alpha larger, the decrease closer to
 * Jacobson's halving, i.e. the fallback errs on the conservative side).
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/build_bug.h>
#include <linux/inet_diag.h>
#include <net/tcp.h>

#include "grid_math.h"

static unsigned int grid_loss_thresh __read_mostly = 2;
module_param_named(loss_thresh, grid_loss_thresh, uint, 0644);
MODULE_PARM_DESC(loss_thresh, "losses in one window that mean congestion (paper: 2), default 2");

static unsigned int grid_link_mbps __read_mostly;
module_param_named(link_mbps, grid_link_mbps, uint, 0644);
MODULE_PARM_DESC(link_mbps, "bottleneck capacity C in Mbit/s; 0 = largest measured delivery rate, default 0");

static unsigned int grid_greedy_ms __read_mostly = 600000;
module_param_named(greedy_ms, grid_greedy_ms, uint, 0644);
MODULE_PARM_DESC(greedy_ms, "TCP greedy timer in ms (paper: 10 min to 1 h; 0 = probe at once), default 600000");

static unsigned int grid_probe_mode __read_mostly = GRID_PROBE_ADDITIVE;
module_param_named(probe_mode, grid_probe_mode, uint, 0644);
MODULE_PARM_DESC(probe_mode, "increase after the greedy timer: 0 = +1 packet/RTT, 1 = eq. (20), default 0");

enum grid_episode {
	GRID_EP_NONE = 0,	/* no loss recovery running */
	GRID_EP_IGNORED = 1,	/* recovery for what looks like a line error */
	GRID_EP_ACTED = 2,	/* congestion: decrease applied */
};

struct grid_sk {
	struct grid_core core;
	u32 round_end;		/* snd_nxt when the round began */
	u32 ai_div;		/* per-ACK divisor for this round, 0 = hold */
	u32 lost_base;		/* tp->lost before the current episode */
	u32 cap_pps;		/* largest measured delivery rate, pkts/s */
	u8 episode;		/* enum grid_episode */
	u8 ece;			/* ECN echo seen since the last episode */
};

static u32 grid_now_ms(const struct tcp_sock *tp)
{
	return tcp_time_stamp(tp);
}

static u32 grid_capacity(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct grid_sk *ca = inet_csk_ca(sk);

	if (grid_link_mbps)
		return grid_pps_from_mbps(grid_link_mbps, tp->mss_cache);
	return ca->cap_pps;
}

static u32 grid_alpha_now(const struct sock *sk, u32 w)
{
	return grid_alpha_q16(w, tcp_sk(sk)->srtt_us >> 3, grid_capacity(sk));
}

static void grid_init(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct grid_sk *ca = inet_csk_ca(sk);

	grid_core_init(&ca->core);
	ca->round_end = tp->snd_nxt;
	ca->ai_div = 0;
	ca->lost_base = tp->lost;
	ca->cap_pps = 0;
	ca->episode = GRID_EP_NONE;
	ca->ece = 0;
}

/* Decrease by (15) for the window held before this episode began. */
static u32 grid_act(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct grid_sk *ca = inet_csk_ca(sk);
	u32 w = tp->prior_cwnd ? tp->prior_cwnd : tcp_snd_cwnd(tp);

	ca->episode = GRID_EP_ACTED;
	ca->ece = 0;
	ca->ai_div = 0;
	return grid_on_congestion(&ca->core, w, grid_alpha_now(sk, w));
}

static void grid_in_ack_event(struct sock *sk, u32 flags)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct grid_sk *ca = inet_csk_ca(sk);
	u8 state = inet_csk(sk)->icsk_ca_state;

	if (state < TCP_CA_CWR) {
		/* losses this ACK reveals open a new episode */
		ca->lost_base = tp->lost;
		ca->ece = 0;
	}
	if (flags & CA_ACK_ECE)
		ca->ece = 1;

	if (!grid_link_mbps && tp->rate_interval_us && !tp->rate_app_limited) {
		u32 pps = grid_pps_from_sample(tp->rate_delivered,
					       tp->rate_interval_us);

		if (pps > ca->cap_pps)
			ca->cap_pps = pps;
	}

	if (state < TCP_CA_CWR)
		return;

	/* more losses of an ignored episode: now it is congestion */
	if (ca->episode == GRID_EP_IGNORED &&
	    grid_is_congestion(tp->lost - ca->lost_base, ca->ece,
			       grid_loss_thresh)) {
		ca->core.ignored--;
		tp->snd_ssthresh = grid_act(sk);
	}
}

static u32 grid_ssthresh(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct grid_sk *ca = inet_csk_ca(sk);

	if (grid_is_congestion(tp->lost - ca->lost_base, ca->ece,
			       grid_loss_thresh))
		return grid_act(sk);

	/* isolated loss: a line error, keep the window (sec. III.B) */
	ca->episode = GRID_EP_IGNORED;
	ca->core.ignored++;
	if (tcp_in_slow_start(tp))
		return tp->snd_ssthresh;
	return max(tcp_snd_cwnd(tp), GRID_MIN_CWND);
}

static void grid_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct grid_sk *ca = inet_csk_ca(sk);

	switch (ev) {
	case CA_EVENT_LOSS:
		/* retransmission timeout: always congestion */
		if (ca->episode != GRID_EP_ACTED) {
			if (ca->episode == GRID_EP_IGNORED)
				ca->core.ignored--;
			tp->snd_ssthresh = grid_act(sk);
		}
		break;
	case CA_EVENT_COMPLETE_CWR:
		if (ca->episode == GRID_EP_IGNORED)
			tcp_snd_cwnd_set(tp, min(max(tcp_snd_cwnd(tp),
						     tp->prior_cwnd),
						 tp->snd_cwnd_clamp));
		ca->episode = GRID_EP_NONE;
		break;
	default:
		break;
	}
}

static void grid_set_state(struct sock *sk, u8 new_state)
{
	struct grid_sk *ca = inet_csk_ca(sk);

	if (new_state < TCP_CA_CWR) {
		ca->episode = GRID_EP_NONE;
		ca->ece = 0;
		ca->lost_base = tcp_sk(sk)->lost;
	}
}

static void grid_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct grid_sk *ca = inet_csk_ca(sk);
	u32 cwnd;

	if (!tcp_is_cwnd_limited(sk))
		return;

	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}

	cwnd = tcp_snd_cwnd(tp);
	if (ca->ai_div == 0 || after(ack, ca->round_end)) {
		u32 inc = grid_round_increment(&ca->core, cwnd,
					       grid_now_ms(tp), grid_greedy_ms,
					       grid_probe_mode,
					       grid_alpha_now(sk, cwnd));

		ca->ai_div = grid_ai_divisor(cwnd, inc);
		ca->round_end = tp->snd_nxt;
		if (!ca->ai_div)
			return;
	}

	tcp_cong_avoid_ai(tp, ca->ai_div, acked);
	if (ca->core.state == GRID_SEARCH && tcp_snd_cwnd(tp) > ca->core.w_max)
		tcp_snd_cwnd_set(tp, max(ca->core.w_max, cwnd));
}

static size_t grid_get_info(struct sock *sk, u32 ext, int *attr,
			    union tcp_cc_info *info)
{
	const struct grid_sk *ca = inet_csk_ca(sk);

	if (ext & (1 << (INET_DIAG_VEGASINFO - 1))) {
		info->vegas.tcpv_enabled = ca->core.state;
		info->vegas.tcpv_rttcnt = ca->core.events;
		info->vegas.tcpv_rtt = ca->core.ignored;
		info->vegas.tcpv_minrtt = ca->core.w_max;
		*attr = INET_DIAG_VEGASINFO;
		return sizeof(struct tcpvegas_info);
	}
	return 0;
}

static struct tcp_congestion_ops tcp_grid_ops __read_mostly = {
	.init		= grid_init,
	.ssthresh	= grid_ssthresh,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.cong_avoid	= grid_cong_avoid,
	.in_ack_event	= grid_in_ack_event,
	.set_state	= grid_set_state,
	.cwnd_event	= grid_cwnd_event,
	.get_info	= grid_get_info,
	.owner		= THIS_MODULE,
	.name		= "grid",
};

static int __init tcp_grid_register(void)
{
	BUILD_BUG_ON(sizeof(struct grid_sk) > ICSK_CA_PRIV_SIZE);
	return tcp_register_congestion_control(&tcp_grid_ops);
}

static void __exit tcp_grid_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_grid_ops);
}

module_init(tcp_grid_register);
module_exit(tcp_grid_unregister);

MODULE_AUTHOR("lfnlab");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("TCP Grid (Martin-Flatin & Ravot 2002 decrease rule) for lfnlab");
MODULE_VERSION("0.1");
