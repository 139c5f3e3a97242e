// SPDX-License-Identifier: GPL-2.0
/*
 * test_fast.c - checks the FAST TCP arithmetic of fast/fast_math.h, the
 * same header the kernel module compiles.  Hand-computed steps of
 *   w <- min(2w, (1 - gamma) w + gamma (baseRTT/RTT w + alpha))
 * plus a fluid model of one bottleneck showing why start-up is needed.
 */
#include "check.h"
#include "fast_math.h"

#define MS 1000U	/* microseconds per millisecond */

static void check_update_steps(void)
{
	u32 g50 = fast_gamma_q10_from_pct(50);

	/* 0.5*100 + 0.5*(100*100/110 + 20) = 50 + 55.45 = 105.45 -> 105 */
	CHECK_EQ(fast_window_update(100, 100 * MS, 110 * MS, 20, g50), 105,
		 "w=100 base=100ms rtt=110ms alpha=20 gamma=0.5");
	/* backlog 120*(20/120) = 20 = alpha: fixed point of (F1) */
	CHECK_EQ(fast_window_update(120, 100 * MS, 120 * MS, 20, g50), 120,
		 "equilibrium w=120 base=100ms rtt=120ms alpha=20 stays");
	/* empty queue: grows by gamma*alpha = 10 */
	CHECK_EQ(fast_window_update(400, 50 * MS, 50 * MS, 20, g50), 410,
		 "empty queue w=400 alpha=20 gamma=0.5 grows by 10");
	/* 0.5*10 + 0.5*(10 + 100) = 60, capped at 2w = 20 */
	CHECK_EQ(fast_window_update(10, 50 * MS, 50 * MS, 100, g50), 20,
		 "min(2w, ...) cap: w=10 alpha=100 -> 20 not 60");
	/* gamma = 1: w*base/rtt + alpha = 50 + 20 = 70 */
	CHECK_EQ(fast_window_update(100, 100 * MS, 200 * MS, 20,
				    fast_gamma_q10_from_pct(100)), 70,
		 "gamma=1 w=100 base=100ms rtt=200ms alpha=20 -> 70");
	/* too much queue: 0.5*200 + 0.5*(200*100/150 + 20) = 100 + 76.67 */
	CHECK_EQ(fast_window_update(200, 100 * MS, 150 * MS, 20, g50), 176,
		 "backlog 66.7 > alpha=20: w=200 shrinks to 176");
	/* an RTT below baseRTT is treated as baseRTT */
	CHECK_EQ(fast_window_update(400, 100 * MS, 90 * MS, 20, g50), 410,
		 "rtt < baseRTT counts as empty queue");
	/* never below 2 packets */
	CHECK_EQ(fast_window_update(2, 1 * MS, 1000 * MS, 0, g50), FAST_MIN_CWND,
		 "floor at FAST_MIN_CWND");
	/* no RTT information: window unchanged */
	CHECK_EQ(fast_window_update(77, 0, 100 * MS, 20, g50), 77,
		 "no baseRTT yet: unchanged");
	/* largest inputs: w=2^22, rtt=16.7 s, alpha=2^16, gamma=1 -> w+alpha */
	CHECK_EQ(fast_window_update(FAST_MAX_W, FAST_MAX_RTT_US, FAST_MAX_RTT_US,
				    FAST_MAX_ALPHA, FAST_GAMMA_ONE),
		 (long long)FAST_MAX_W + FAST_MAX_ALPHA,
		 "no overflow at w=2^22 rtt=2^24us alpha=2^16");
}

static void check_helpers(void)
{
	struct fast_core c;
	u32 i;

	CHECK_EQ(fast_backlog(100, 100 * MS, 125 * MS), 20,
		 "backlog w=100 base=100ms rtt=125ms = 20");
	CHECK_EQ(fast_backlog(100, 100 * MS, 100 * MS), 0, "backlog empty queue = 0");
	CHECK_EQ(fast_gamma_q10_from_pct(50), 512, "gamma 50% = 512/1024");
	CHECK_EQ(fast_gamma_q10_from_pct(100), 1024, "gamma 100% = 1024/1024");
	CHECK_EQ(fast_gamma_q10_from_pct(0), 10, "gamma 0% clamps to 1%");
	CHECK_EQ(fast_gamma_q10_from_pct(150), 1024, "gamma 150% clamps to 100%");

	fast_core_init(&c, true);
	fast_rtt_sample(&c, 120 * MS);
	fast_rtt_sample(&c, 110 * MS);
	fast_rtt_sample(&c, 130 * MS);
	fast_rtt_sample(&c, 100 * MS);
	CHECK_EQ(c.base_rtt_us, 100 * MS, "baseRTT = min of 120,110,130,100 ms");
	CHECK_EQ(fast_round_avg(&c), 115 * MS, "round average = 115 ms");
	CHECK_EQ(c.round_min_us, 100 * MS, "round minimum = 100 ms");
	fast_round_reset(&c);
	fast_rtt_sample(&c, 150 * MS);
	CHECK_EQ(c.base_rtt_us, 100 * MS, "baseRTT survives a new round");
	CHECK_EQ(c.round_min_us, 150 * MS, "round minimum restarts");

	/* start-up exit: w=200, base 100 ms, all samples 125 ms: backlog 40 */
	fast_core_init(&c, true);
	fast_rtt_sample(&c, 100 * MS);
	fast_round_reset(&c);
	for (i = 0; i < FAST_STARTUP_SAMPLES - 1; i++)
		fast_rtt_sample(&c, 125 * MS);
	CHECK(!fast_startup_done(&c, 200, 20, false),
	      "start-up: 7 samples mid-round are not enough");
	CHECK(fast_startup_done(&c, 200, 20, true),
	      "start-up: backlog 40 >= alpha 20 at round end -> exit");
	fast_rtt_sample(&c, 125 * MS);
	CHECK(fast_startup_done(&c, 200, 20, false),
	      "start-up: 8 samples mid-round, backlog 40 -> exit");
	CHECK(!fast_startup_done(&c, 200, 50, false),
	      "start-up: backlog 40 < alpha 50 -> keep growing");
}

/*
 * Fluid model: bottleneck of C packets/ms, propagation RTT base_ms, a
 * buffer of buf packets.  Each round the queue holds w - BDP packets and
 * every ACK sees RTT = base + queue / C.  Returns the first round whose
 * throughput reaches 95 % of C and reports the final backlog.
 */
struct sim_result {
	int round_95;		/* -1 if never */
	double util_first_40;	/* mean utilisation of the first 40 rounds */
	u32 final_w;
	double final_backlog;
	int losses;
};

static struct sim_result simulate(bool startup, u32 alpha, u32 rounds)
{
	const double c_pkt_ms = 100e6 / 8 / 1500 / 1000; /* 100 Mbit/s */
	const double base_ms = 50.0, buf = 1000.0;
	const double bdp = c_pkt_ms * base_ms;
	struct sim_result r = { -1, 0, 0, 0, 0 };
	struct fast_core c;
	u32 w = 10, g = fast_gamma_q10_from_pct(50);
	u32 i, k;

	fast_core_init(&c, startup);
	for (i = 0; i < rounds; i++) {
		double q = w > bdp ? w - bdp : 0;
		double rtt_ms, rate;
		u32 rtt_us, acks;

		if (q > buf) {			/* overflow: halve, as on loss */
			r.losses++;
			w = w / 2;
			c.mode = FAST_MODE_EQUILIBRIUM;
			continue;
		}
		rtt_ms = base_ms + q / c_pkt_ms;
		rate = w / rtt_ms;
		if (rate > c_pkt_ms)
			rate = c_pkt_ms;
		if (i < 40)
			r.util_first_40 += rate / c_pkt_ms / 40;
		if (r.round_95 < 0 && rate >= 0.95 * c_pkt_ms)
			r.round_95 = (int)i;

		rtt_us = (u32)(rtt_ms * 1000);
		acks = w / 2 ? w / 2 : 1;	/* delayed ACKs */
		fast_round_reset(&c);
		for (k = 0; k < acks; k++)
			fast_rtt_sample(&c, rtt_us);

		if (c.mode == FAST_MODE_STARTUP) {
			if (fast_startup_done(&c, w, alpha, true))
				c.mode = FAST_MODE_EQUILIBRIUM;
			else
				w *= 2;			/* slow start */
			continue;
		}
		w = fast_window_update(w, c.base_rtt_us, fast_round_avg(&c),
				       alpha, g);
	}
	r.final_w = w;
	r.final_backlog = w > bdp ? w - bdp : 0;
	return r;
}

static void check_fluid_model(void)
{
	struct sim_result naive = simulate(false, 20, 200);
	struct sim_result fast = simulate(true, 20, 200);
	struct sim_result big = simulate(true, 200, 200);

	printf("#   naive FAST: 95%% of C after %d RTTs, mean utilisation of the first 40 RTTs %.2f\n",
	       naive.round_95, naive.util_first_40);
	printf("#   with start-up: 95%% of C after %d RTTs, mean utilisation %.2f, final w %u\n",
	       fast.round_95, fast.util_first_40, fast.final_w);
	CHECK(naive.round_95 >= 30,
	      "naive FAST (gamma*alpha = 10 pkts/RTT) needs >= 30 RTTs to 95%% of a 417-pkt BDP (got %d)",
	      naive.round_95);
	CHECK(naive.util_first_40 < 0.80,
	      "naive FAST first 40 RTTs below 80%% utilisation (got %.2f)",
	      naive.util_first_40);
	CHECK(fast.round_95 >= 0 && fast.round_95 <= 8,
	      "start-up reaches 95%% of C within 8 RTTs (got %d)", fast.round_95);
	CHECK(fast.util_first_40 > 0.85,
	      "start-up: first 40 RTTs above 85%% utilisation, slow start from w=10 included (got %.2f)",
	      fast.util_first_40);
	CHECK(fast.losses == 0, "start-up with 1000-pkt buffer: no overflow (got %d)",
	      fast.losses);
	CHECK_NEAR(fast.final_backlog, 20, 1.5,
		   "equilibrium backlog = alpha = 20 packets");
	CHECK_NEAR(big.final_backlog, 200, 1.5,
		   "equilibrium backlog = alpha = 200 packets");
}

int main(void)
{
	check_update_steps();
	check_helpers();
	check_fluid_model();
	return check_summary("fast");
}
