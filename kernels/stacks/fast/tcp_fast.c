// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_fast - FAST TCP congestion control for lfnlab (Linux 6.1).
 *
 * Equations (arithmetic in fast_math.h, shared with test/test_fast.c):
 *
 *   once per RTT:  w <- min(2w, (1 - gamma) w + gamma (baseRTT/RTT w + alpha))
 *
 *   FAST TCP: Bullot, Cottrell & Hughes-Jones 2003 ("Evaluation of Advanced
 *   TCP Stacks on Fast Long-Distance Production Networks"), section 2.4,
 *   and the window-control equation of Jin, Wei & Low (Caltech CS TR
 *   2003.010, INFOCOM 2004).  baseRTT = minimum RTT seen; RTT = average of
 *   the RTT samples of the last round; alpha = packets the flow keeps
 *   queued (module parameter "alpha"); gamma = "gamma_pct" / 100.
 *
 *   Start-up: Reno slow start (window doubles per RTT) until the smallest
 *   RTT of a round shows a backlog w (RTT - baseRTT) / RTT >= alpha, then the
 *   equation above.  Without it the update adds only gamma*alpha packets per
 *   RTT on an empty path ("startup=0" keeps that naive behaviour for
 *   comparison runs).
 *
 *   Loss: multiplicative decrease by 1/2, as Reno (seed 000 sec. 2.1 eq. 3
 *   with b = 0.5); FAST's published prototype also halves on loss, and
 *   halving keeps it no more aggressive than Reno when buffers overflow.
 *
 *   Pacing: requested through sk_pacing_status (TCP's internal pacing or
 *   sch_fq), as the FAST design paces to avoid bursts.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/build_bug.h>
#include <linux/inet_diag.h>
#include <net/tcp.h>

#include "fast_math.h"

static unsigned int fast_alpha __read_mostly = 100;
module_param_named(alpha, fast_alpha, uint, 0644);
MODULE_PARM_DESC(alpha, "packets kept queued in the path (FAST alpha), default 100");

static unsigned int fast_gamma_pct __read_mostly = 50;
module_param_named(gamma_pct, fast_gamma_pct, uint, 0644);
MODULE_PARM_DESC(gamma_pct, "FAST gamma in percent (1..100), default 50");

static bool fast_pacing __read_mostly = true;
module_param_named(pacing, fast_pacing, bool, 0644);
MODULE_PARM_DESC(pacing, "request pacing for new connections, default Y");

static bool fast_startup __read_mostly = true;
module_param_named(startup, fast_startup, bool, 0644);
MODULE_PARM_DESC(startup, "exponential start-up until queueing appears (N = naive FAST), default Y");

struct fast_sk {
	struct fast_core core;
	u32 round_end;		/* snd_nxt when the round began */
};

static void fast_new_round(struct sock *sk)
{
	struct fast_sk *ca = inet_csk_ca(sk);

	ca->round_end = tcp_sk(sk)->snd_nxt;
	fast_round_reset(&ca->core);
}

static void fast_init(struct sock *sk)
{
	struct fast_sk *ca = inet_csk_ca(sk);

	fast_core_init(&ca->core, fast_startup);
	fast_new_round(sk);
	if (fast_pacing)
		cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED);
}

static void fast_pkts_acked(struct sock *sk, const struct ack_sample *sample)
{
	struct fast_sk *ca = inet_csk_ca(sk);

	if (sample->rtt_us > 0)
		fast_rtt_sample(&ca->core, (u32)sample->rtt_us);
}

static void fast_set_cwnd(struct tcp_sock *tp, u32 w)
{
	w = min(w, tp->snd_cwnd_clamp);
	w = max(w, FAST_MIN_CWND);
	tcp_snd_cwnd_set(tp, w);
	/* stay out of slow start while the window follows (F1) */
	if (tp->snd_ssthresh > w)
		tp->snd_ssthresh = w;
	tp->snd_cwnd_cnt = 0;
}

static void fast_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct fast_sk *ca = inet_csk_ca(sk);
	struct fast_core *c = &ca->core;
	bool round_over = after(ack, ca->round_end);
	u32 cwnd = tcp_snd_cwnd(tp);

	if (c->mode == FAST_MODE_STARTUP) {
		if (fast_startup_done(c, cwnd, fast_alpha, round_over)) {
			c->mode = FAST_MODE_EQUILIBRIUM;
			fast_set_cwnd(tp, cwnd);
			fast_new_round(sk);
			return;
		}
		if (tcp_is_cwnd_limited(sk))
			tcp_slow_start(tp, acked);
		if (round_over)
			fast_new_round(sk);
		return;
	}

	/* after a retransmission timeout: regain ssthresh as Reno does */
	if (tcp_in_slow_start(tp)) {
		if (tcp_is_cwnd_limited(sk))
			tcp_slow_start(tp, acked);
		if (round_over)
			fast_new_round(sk);
		return;
	}

	if (!round_over)
		return;

	if (c->round_cnt > 0 && c->base_rtt_us > 0) {
		u32 avg = fast_round_avg(c);
		u32 target = fast_window_update(cwnd, c->base_rtt_us, avg,
						fast_alpha,
						fast_gamma_q10_from_pct(fast_gamma_pct));

		/* do not inflate a window the application is not using */
		if (target > cwnd && !tcp_is_cwnd_limited(sk))
			target = cwnd;
		c->last_avg_us = avg;
		c->updates++;
		fast_set_cwnd(tp, target);
	}
	fast_new_round(sk);
}

static u32 fast_ssthresh(struct sock *sk)
{
	struct fast_sk *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);

	ca->core.mode = FAST_MODE_EQUILIBRIUM;
	return max(tcp_snd_cwnd(tp) >> 1U, FAST_MIN_CWND);
}

static void fast_set_state(struct sock *sk, u8 new_state)
{
	/* samples taken during recovery or after a timeout describe a
	 * different window: start a fresh round when the state changes */
	u8 old_state = inet_csk(sk)->icsk_ca_state;

	if (new_state == TCP_CA_Loss ||
	    (new_state == TCP_CA_Open && old_state >= TCP_CA_CWR))
		fast_new_round(sk);
}

static void fast_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	if (ev == CA_EVENT_TX_START || ev == CA_EVENT_CWND_RESTART)
		fast_new_round(sk);
}

static size_t fast_get_info(struct sock *sk, u32 ext, int *attr,
			    union tcp_cc_info *info)
{
	const struct fast_sk *ca = inet_csk_ca(sk);

	if (ext & (1 << (INET_DIAG_VEGASINFO - 1))) {
		info->vegas.tcpv_enabled = ca->core.mode;
		info->vegas.tcpv_rttcnt = ca->core.updates;
		info->vegas.tcpv_rtt = ca->core.last_avg_us;
		info->vegas.tcpv_minrtt = ca->core.base_rtt_us;
		*attr = INET_DIAG_VEGASINFO;
		return sizeof(struct tcpvegas_info);
	}
	return 0;
}

static struct tcp_congestion_ops tcp_fast_ops __read_mostly = {
	.init		= fast_init,
	.ssthresh	= fast_ssthresh,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.cong_avoid	= fast_cong_avoid,
	.pkts_acked	= fast_pkts_acked,
	.set_state	= fast_set_state,
	.cwnd_event	= fast_cwnd_event,
	.get_info	= fast_get_info,
	.owner		= THIS_MODULE,
	.name		= "fast",
};

static int __init tcp_fast_register(void)
{
	BUILD_BUG_ON(sizeof(struct fast_sk) > ICSK_CA_PRIV_SIZE);
	return tcp_register_congestion_control(&tcp_fast_ops);
}

static void __exit tcp_fast_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_fast_ops);
}

module_init(tcp_fast_register);
module_exit(tcp_fast_unregister);

MODULE_AUTHOR("lfnlab");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("FAST TCP (delay-based window control) for lfnlab");
MODULE_VERSION("0.1");
