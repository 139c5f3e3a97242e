/* SPDX-License-Identifier: GPL-2.0 */
/*
 * check.h - tiny check helpers for the user-space harnesses.  Each check
 * prints one line; check_summary() prints "N passed, M failed" and returns
 * the process exit status.
 */
#ifndef LFNLAB_CHECK_H
#define LFNLAB_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_passed;
static int check_failed;

#define CHECK(cond, ...)						\
	do {								\
		if (cond) {						\
			check_passed++;					\
			printf("ok   ");				\
		} else {						\
			check_failed++;					\
			printf("FAIL ");				\
		}							\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	} while (0)

/* Integer equality with both values in the message. */
#define CHECK_EQ(got, want, what)					\
	do {								\
		long long g_ = (long long)(got);			\
		long long w_ = (long long)(want);			\
		CHECK(g_ == w_, "%s: got %lld, want %lld", (what), g_, w_); \
	} while (0)

/* |got - want| <= tol. */
#define CHECK_NEAR(got, want, tol, what)				\
	do {								\
		double g_ = (double)(got);				\
		double w_ = (double)(want);				\
		double d_ = g_ > w_ ? g_ - w_ : w_ - g_;		\
		CHECK(d_ <= (double)(tol), "%s: got %.6g, want %.6g +- %.3g", \
		      (what), g_, w_, (double)(tol));			\
	} while (0)

static int check_summary(const char *name)
{
	printf("# %s\n", name);
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif /* LFNLAB_CHECK_H */
