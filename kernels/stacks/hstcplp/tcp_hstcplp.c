// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_hstcplp - HSTCP-LP congestion control for lfnlab (Linux 6.1):
 * HighSpeed TCP's response function with TCP-LP's early congestion
 * inference, so the flow yields to other traffic (seed 000, sec. 2.5-2.6).
 *
 * Equations (arithmetic in hstcplp_math.h, shared with test/test_hstcplp.c):
 *
 *   HighSpeed TCP, RFC 3649 sec. 5 (seed 000 eqs. (2)-(3), a = a(w), b = b(w)):
 *     ACK:  w <- w + a(w)/w      loss:  w <- w - b(w) w
 *     b(w) = (0.1 - 0.5) f(w) + 0.5,  p(w) = exp(log 1e-3 + f(w) log(1e-7/1e-3)),
 *     a(w) = w^2 p(w) 2 b(w) / (2 - b(w)),
 *     f(w) = (log w - log 38) / (log 83000 - log 38);  a = 1, b = 0.5 for w <= 38.
 *
 *   TCP-LP (Kuzmanovic & Knightly, INFOCOM 2003):
 *     one-way delay d = TSval - TSecr of each ACK (1 ms TCP timestamps;
 *     owd_newest=1 times the newest segment the ACK covers instead),
 *     sd <- 7/8 sd + 1/8 d;  early congestion when sd > d_min + delta (d_max - d_min);
 *     (min_threshold_us puts a floor under that threshold; 0 = as published)
 *     first indication: w <- w/2 and an inference time-out itt (itt_rtts RTTs)
 *     during which the window does not grow; another indication before itt
 *     expires: w <- 1.  An indication counts only from ACKs of data sent
 *     after the last reaction (the smoothed delay restarts there, from
 *     d_min, and is judged after 8 such samples): the ACKs still in flight
 *     report the queue the reaction has already answered, and under TCG one
 *     late packet must not read as a queue.
 *
 * Without TCP timestamps (or when the peer's timestamp clock does not run at
 * ~1 kHz) the delay inference cannot work: the socket falls back to plain
 * HighSpeed TCP and the read-only parameter "fallback_sockets" counts it;
 * ss -ti shows the per-socket state in the vegas info (enabled = 1 when the
 * inference is active).
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/inet_diag.h>
#include <net/tcp.h>

#include "hstcplp_math.h"

static bool hlp_lp_enable __read_mostly = true;
module_param_named(lp_enable, hlp_lp_enable, bool, 0644);
MODULE_PARM_DESC(lp_enable, "use TCP-LP early congestion inference (N = plain HighSpeed TCP), default Y");

static unsigned int hlp_delta_pct __read_mostly = 15;
module_param_named(delta_pct, hlp_delta_pct, uint, 0644);
MODULE_PARM_DESC(delta_pct, "TCP-LP threshold delta in percent of (d_max - d_min), default 15");

static unsigned int hlp_itt_rtts __read_mostly = 3;
module_param_named(itt_rtts, hlp_itt_rtts, uint, 0644);
MODULE_PARM_DESC(itt_rtts, "TCP-LP inference time-out in smoothed RTTs, default 3");

static unsigned int hlp_min_spread_ms __read_mostly = 5;
module_param_named(min_spread_ms, hlp_min_spread_ms, uint, 0644);
MODULE_PARM_DESC(min_spread_ms, "smallest d_max - d_min (ms) before delay inference acts, default 5");

static unsigned int hlp_min_threshold_us __read_mostly;
module_param_named(min_threshold_us, hlp_min_threshold_us, uint, 0644);
MODULE_PARM_DESC(min_threshold_us, "least TCP-LP threshold above d_min in us, whatever delta_pct of d_max - d_min gives (0 = as published), default 0");

static unsigned int hlp_owd_newest __read_mostly;
module_param_named(owd_newest, hlp_owd_newest, uint, 0644);
MODULE_PARM_DESC(owd_newest, "time each one-way delay from the newest segment an ACK covers (1) instead of the TSecr it echoes (0, as mainline tcp_lp), default 0");

static unsigned int hlp_hs_window_pct __read_mostly = 100;
module_param_named(hs_window_pct, hlp_hs_window_pct, uint, 0644);
MODULE_PARM_DESC(hs_window_pct, "HighSpeed table's window column scaled to this percent (1..100; a lab at 1/k of a paper's rate sets 100 k), default 100");

static atomic_t hlp_fallbacks = ATOMIC_INIT(0);

static int hlp_fallbacks_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&hlp_fallbacks));
}

static const struct kernel_param_ops hlp_fallbacks_ops = {
	.get = hlp_fallbacks_get,
};
module_param_cb(fallback_sockets, &hlp_fallbacks_ops, NULL, 0444);
MODULE_PARM_DESC(fallback_sockets, "sockets that fell back to plain HighSpeed TCP (no usable TCP timestamps)");

enum hlp_mode {
	HLP_MODE_PENDING = 0,	/* timestamps not verified yet: plain HSTCP */
	HLP_MODE_LP = 1,	/* delay inference active */
	HLP_MODE_FALLBACK = 2,	/* no usable timestamps: plain HSTCP */
};

struct hlp_sk {
	struct hlp_core lp;
	u32 hs_w;		/* window for which hs_a / hs_b_q16 hold */
	u32 hs_a;		/* a(w) */
	u32 hs_b_q16;		/* b(w) */
	u8 mode;		/* enum hlp_mode */
};

static void hlp_refresh(struct hlp_sk *ca, u32 w)
{
	if (ca->hs_w == w)
		return;
	ca->hs_w = w;
	/* A change of hs_window_pct shows from the next window change on. */
	ca->hs_a = hs_a(hs_table_window(w, READ_ONCE(hlp_hs_window_pct)));
	ca->hs_b_q16 = hs_b_q16(hs_table_window(w, READ_ONCE(hlp_hs_window_pct)));
}

static void hlp_init(struct sock *sk)
{
	struct hlp_sk *ca = inet_csk_ca(sk);

	hlp_core_init(&ca->lp);
	ca->hs_w = 0;
	ca->hs_a = 1;
	ca->hs_b_q16 = HS_HALF_Q16;
	ca->mode = HLP_MODE_PENDING;
}

static void hlp_fall_back(struct hlp_sk *ca)
{
	if (ca->mode != HLP_MODE_FALLBACK) {
		ca->mode = HLP_MODE_FALLBACK;
		atomic_inc(&hlp_fallbacks);
	}
}

static u32 hlp_srtt_ms(const struct tcp_sock *tp)
{
	u32 ms = (tp->srtt_us >> 3) / USEC_PER_MSEC;

	return ms ? ms : 1;
}

static void hlp_pkts_acked(struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hlp_sk *ca = inet_csk_ca(sk);
	u32 now_ms, sent_ms, cwnd;
	enum hlp_action act;

	if (!hlp_lp_enable || ca->mode == HLP_MODE_FALLBACK)
		return;
	if (!tp->rx_opt.tstamp_ok) {
		hlp_fall_back(ca);
		return;
	}
	/* only ACKs that advance the window echo a fresh segment's TSval,
	 * and only undelayed ones time the path */
	if (!hlp_ack_measures_path(sample->pkts_acked) ||
	    !tp->rx_opt.saw_tstamp ||
	    inet_csk(sk)->icsk_ca_state != TCP_CA_Open ||
	    !hlp_timed_send_ms(READ_ONCE(hlp_owd_newest) != 0,
			       tp->rx_opt.rcv_tsecr, tp->tcp_mstamp,
			       sample->rtt_us, tp->tsoffset, &sent_ms))
		return;

	now_ms = tcp_time_stamp(tp);
	hlp_owd_sample(&ca->lp, tp->rx_opt.rcv_tsval, sent_ms, now_ms,
		       tp->snd_una);
	if (ca->lp.flags & HLP_F_CLOCK_BAD) {
		hlp_fall_back(ca);
		return;
	}
	if (!hlp_usable(&ca->lp))
		return;
	ca->mode = HLP_MODE_LP;

	act = hlp_check(&ca->lp, now_ms, tp->snd_nxt, hlp_srtt_ms(tp),
			hlp_delta_pct, hlp_itt_rtts, hlp_min_spread_ms,
			READ_ONCE(hlp_min_threshold_us));
	if (act == HLP_NONE)
		return;

	cwnd = tcp_snd_cwnd(tp);
	if (act == HLP_HALVE) {
		cwnd = max(cwnd >> 1, 2U);
		tcp_snd_cwnd_set(tp, cwnd);
		tp->snd_ssthresh = cwnd;
	} else {
		tp->snd_ssthresh = max(cwnd >> 1, 2U);
		tcp_snd_cwnd_set(tp, 1U);
	}
	tp->snd_cwnd_cnt = 0;
}

static void hlp_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hlp_sk *ca = inet_csk_ca(sk);
	u32 cwnd;

	if (!tcp_is_cwnd_limited(sk))
		return;
	if (ca->mode == HLP_MODE_LP &&
	    hlp_in_inference(&ca->lp, tcp_time_stamp(tp)))
		return;

	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}

	cwnd = tcp_snd_cwnd(tp);
	hlp_refresh(ca, cwnd);
	cwnd = hs_increase(cwnd, &tp->snd_cwnd_cnt, ca->hs_a, acked);
	tcp_snd_cwnd_set(tp, min(cwnd, tp->snd_cwnd_clamp));
}

static u32 hlp_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct hlp_sk *ca = inet_csk_ca(sk);
	u32 cwnd = tcp_snd_cwnd(tp);

	hlp_refresh(ca, cwnd);
	return hs_decrease(cwnd, ca->hs_b_q16);
}

static size_t hlp_get_info(struct sock *sk, u32 ext, int *attr,
			   union tcp_cc_info *info)
{
	const struct hlp_sk *ca = inet_csk_ca(sk);

	if (ext & (1 << (INET_DIAG_VEGASINFO - 1))) {
		info->vegas.tcpv_enabled = ca->mode == HLP_MODE_LP;
		info->vegas.tcpv_rttcnt = ca->lp.reactions;
		/* in us: whole ms would show a 1.5 ms threshold as 1 and any
		 * queue under 1 ms as none (the values are kept in ms / 8) */
		info->vegas.tcpv_rtt = hlp_queue_q3(&ca->lp) *
				       (USEC_PER_MSEC >> HLP_SOWD_SHIFT);
		info->vegas.tcpv_minrtt =
			hlp_threshold_in_force_q3(&ca->lp, hlp_delta_pct,
						  READ_ONCE(hlp_min_threshold_us)) *
			(USEC_PER_MSEC >> HLP_SOWD_SHIFT);
		*attr = INET_DIAG_VEGASINFO;
		return sizeof(struct tcpvegas_info);
	}
	return 0;
}

static struct tcp_congestion_ops tcp_hstcplp_ops __read_mostly = {
	.init		= hlp_init,
	.ssthresh	= hlp_ssthresh,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.cong_avoid	= hlp_cong_avoid,
	.pkts_acked	= hlp_pkts_acked,
	.get_info	= hlp_get_info,
	.owner		= THIS_MODULE,
	.name		= "hstcplp",
};

static int __init tcp_hstcplp_register(void)
{
	BUILD_BUG_ON(sizeof(struct hlp_sk) > ICSK_CA_PRIV_SIZE);
	return tcp_register_congestion_control(&tcp_hstcplp_ops);
}

static void __exit tcp_hstcplp_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_hstcplp_ops);
}

module_init(tcp_hstcplp_register);
module_exit(tcp_hstcplp_unregister);

MODULE_AUTHOR("lfnlab");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("HSTCP-LP: HighSpeed TCP with TCP-LP early congestion inference, for lfnlab");
MODULE_VERSION("0.1");
