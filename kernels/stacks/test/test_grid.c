// SPDX-License-Identifier: GPL-2.0
/*
 * test_grid.c - checks the "TCP Grid" arithmetic and state machine of
 * grid/grid_math.h (Martin-Flatin & Ravot 2002, seed 003), the same header
 * the kernel module compiles.
 */
#include "check.h"
#include "grid_math.h"

#define ONE ((double)GRID_ONE)

static void check_alpha_rule(void)
{
	u32 a = GRID_ONE;
	int n;

	/* (15) from alpha = 1: 1/2, 1/3, 1/4, 1/5, 1/6 */
	for (n = 2; n <= 6; n++) {
		char what[48];

		a = grid_alpha_next_q16(a);
		snprintf(what, sizeof(what), "alpha sequence step: 1/%d", n);
		CHECK_NEAR(a, ONE / n, 1.0, what);
	}
	/* the paper's worked numbers (sec. IV.B) */
	CHECK_NEAR(grid_alpha_next_q16((u32)(0.05 * ONE + 0.5)) / ONE, 0.0476,
		   0.0001, "alpha 5% -> 4.76%");
	CHECK_NEAR(grid_alpha_next_q16((u32)(0.20 * ONE + 0.5)) / ONE, 0.1667,
		   0.0001, "alpha 20% -> 16.7%");
	CHECK_EQ(grid_alpha_next_q16(GRID_ONE), GRID_ONE / 2, "alpha 100% -> 50%");

	/* window after congestion: w / (1 + alpha) */
	CHECK_EQ(grid_decrease(1000, GRID_ONE), 500, "w=1000 alpha=1: halve (Jacobson)");
	CHECK_EQ(grid_decrease(1000, (u32)(0.2 * ONE + 0.5)), 833,
		 "w=1000 alpha=0.2: 1000/1.2 = 833");
	CHECK_EQ(grid_decrease(1000, (u32)(0.05 * ONE + 0.5)), 952,
		 "w=1000 alpha=0.05: 1000/1.05 = 952");
	CHECK_EQ(grid_decrease(3, GRID_ONE), 2, "decrease floor 2 packets");
}

static void check_estimates(void)
{
	/* 100 packets per 100 ms = 1000 pkt/s of C = 2000 pkt/s */
	CHECK_EQ(grid_alpha_q16(100, 100000, 2000), GRID_ONE / 2,
		 "alpha = (w/sRTT)/C = 1000/2000 = 0.5");
	CHECK_EQ(grid_decrease(100, grid_alpha_q16(100, 100000, 2000)), 67,
		 "w=100 at half the capacity: 100/1.5 = 67");
	CHECK_EQ(grid_alpha_q16(100, 100000, 0), GRID_ONE,
		 "C unknown: alpha = 1 (halve)");
	CHECK_EQ(grid_alpha_q16(500, 100000, 2000), GRID_ONE,
		 "rate above C clamps to alpha = 1");
	CHECK_EQ(grid_pps_from_mbps(100, 1448), 8632,
		 "100 Mbit/s at MSS 1448 = 8632 pkt/s");
	CHECK_EQ(grid_pps_from_sample(500, 50000), 10000,
		 "500 packets in 50 ms = 10000 pkt/s");
	CHECK_EQ(grid_pps_from_sample(500, 0), 0, "empty interval: no estimate");
}

static void check_congestion_definition(void)
{
	CHECK(!grid_is_congestion(1, false, 2), "one loss in a window: line error, ignored");
	CHECK(grid_is_congestion(2, false, 2), "two losses in a window: congestion");
	CHECK(grid_is_congestion(7, false, 2), "seven losses in a window: congestion");
	CHECK(!grid_is_congestion(0, false, 2), "no loss: nothing");
	CHECK(grid_is_congestion(0, true, 2), "ECN echo: congestion");
	CHECK(!grid_is_congestion(2, false, 3), "loss_thresh=3: two losses ignored");
	CHECK(grid_is_congestion(1, false, 0), "loss_thresh=0 acts like 1");
}

/* Per-window driver: returns the window after one RTT with `losses`. */
static u32 window_step(struct grid_core *g, u32 w, u32 losses, u32 now,
		       u32 greedy, u32 alpha)
{
	if (losses && grid_is_congestion(losses, false, 2))
		return grid_on_congestion(g, w, alpha);
	if (losses) {
		g->ignored++;
		return w;		/* isolated loss: unchanged */
	}
	return w + grid_round_increment(g, w, now, greedy, GRID_PROBE_ADDITIVE,
					alpha);
}

static void check_state_machine(void)
{
	struct grid_core g;
	u32 w, t, rounds, prev, first_step = 0;
	int monotone = 1, halves_ok = 1;

	grid_core_init(&g);
	CHECK_EQ(g.state, GRID_BOOT, "new connection starts in bootstrap");
	CHECK_EQ(grid_round_increment(&g, 100, 0, 1000, 0, GRID_ONE), 1,
		 "bootstrap past ssthresh: +1 packet per RTT");

	/* line errors: one loss in each of 50 windows changes nothing */
	w = 1000;
	for (t = 0; t < 50; t++)
		w = window_step(&g, w, 1, t, 0, GRID_ONE);
	CHECK_EQ(w, 1000, "50 windows with one loss each: window unchanged");
	CHECK_EQ(g.ignored, 50, "50 isolated losses counted as ignored");
	CHECK_EQ(g.events, 0, "no congestion event");

	/* two losses in one window: decrease by (15) with alpha = 1 */
	w = window_step(&g, w, 2, 100, 0, GRID_ONE);
	CHECK_EQ(w, 500, "two losses at w=1000, alpha=1: w=500");
	CHECK_EQ(g.state, GRID_SEARCH, "state 1: binary search");
	CHECK_EQ(g.w_max, 1000, "ABW_i remembered as w_max=1000");

	/* binary search: steps halve the gap, then +1, until w_max */
	rounds = 0;
	prev = w;
	while (g.state == GRID_SEARCH && rounds < 100) {
		u32 gap = g.w_max - w;
		u32 inc = grid_round_increment(&g, w, 200 + rounds, 60000,
					       GRID_PROBE_ADDITIVE, GRID_ONE);

		if (g.state != GRID_SEARCH)
			break;
		if (inc != (gap / 2 > 1 ? gap / 2 : 1))
			halves_ok = 0;
		w += inc;
		if (rounds == 0)
			first_step = w;
		if (w <= prev)
			monotone = 0;
		prev = w;
		rounds++;
	}
	CHECK_EQ(first_step, 750, "first search step 500 -> 750");
	CHECK(halves_ok, "every search step is max(gap/2, 1)");
	CHECK(monotone, "search only increases");
	CHECK_EQ(w, 1000, "search ends exactly at w_max");
	CHECK(rounds <= 12, "back to ABW_i in %u RTTs (binary search, <= 12)", rounds);
	CHECK_EQ(g.state, GRID_HOLD, "state 3: hold at ABW_i");

	/* hold until the greedy timer (60 s here) expires */
	CHECK_EQ(grid_round_increment(&g, 1000, 200 + rounds + 59000, 60000, 0,
				      GRID_ONE), 0, "greedy timer running: no increase");
	CHECK_EQ(grid_round_increment(&g, 1000, 200 + rounds + 60000, 60000, 0,
				      GRID_ONE), 1, "greedy timer expired: +1 per RTT");
	CHECK_EQ(g.state, GRID_PROBE, "state 4: probing");

	/* congestion while searching (state 2, new phase): decrease again */
	grid_core_init(&g);
	w = grid_on_congestion(&g, 900, GRID_ONE / 2);		/* 900/1.5 */
	CHECK_EQ(w, 600, "w=900 alpha=0.5: 600");
	w += grid_round_increment(&g, w, 0, 0, 0, GRID_ONE / 2);	/* +150 */
	CHECK_EQ(w, 750, "search step 600 -> 750");
	w = grid_on_congestion(&g, w, grid_alpha_next_q16(GRID_ONE / 2));
	CHECK_EQ(w, 563, "congestion again at 750, alpha 1/3: 750/(4/3) = 562.5 -> 563");
	CHECK_EQ(g.w_max, 750, "new phase: ABW_{i+1} = 750");
	CHECK_EQ(g.events, 2, "two congestion events");

	/* greedy_ms = 0: probe immediately after reaching w_max */
	grid_core_init(&g);
	g.state = GRID_SEARCH;
	g.w_max = 400;
	CHECK_EQ(grid_round_increment(&g, 400, 5, 0, 0, GRID_ONE), 1,
		 "greedy_ms=0: at w_max probe straight away");
	CHECK_EQ(g.state, GRID_PROBE, "state 4 reached without holding");
}

static void check_probe_eq20(void)
{
	/* (20): alpha 1/3 -> 1/2, w 300 -> 450 */
	CHECK_EQ(grid_eq20_step(300, GRID_ONE / 3 + 1), 150,
		 "eq. (20) at alpha=1/3: w=300 grows by 150");
	CHECK_EQ(grid_eq20_step(300, GRID_ONE / 2), 300, "alpha >= 1/2: capped at doubling");
	CHECK_EQ(grid_eq20_step(300, GRID_ONE), 300, "alpha = 1: capped at doubling");
	CHECK_EQ(grid_eq20_step(100, 66), 1, "tiny alpha: at least 1 packet");
	CHECK_EQ(grid_ai_divisor(1000, 250), 4, "+250/RTT at w=1000: +1 every 4 ACKed");
	CHECK_EQ(grid_ai_divisor(1000, 0), 0, "no increase: divisor 0");
	CHECK_EQ(grid_ai_divisor(10, 40), 1, "increase above w: +1 per ACK");
}

int main(void)
{
	check_alpha_rule();
	check_estimates();
	check_congestion_definition();
	check_state_machine();
	check_probe_eq20();
	return check_summary("grid");
}
