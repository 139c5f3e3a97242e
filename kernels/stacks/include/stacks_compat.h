/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stacks_compat.h - lets the *_math.h headers of lfnlab's congestion-control
 * modules compile unchanged in the kernel and in the user-space test harness.
 *
 * In the kernel this only pulls in the real definitions.  In user space it
 * provides the handful of kernel types and helpers those headers use, with
 * the same semantics (u32/u64/s32/s64, div_u64, div64_u64, fls64, min/max
 * helpers, before/after for wrapping 32-bit sequence/time stamps).
 *
 * Nothing here may use floating point: the same code runs in the kernel.
 */
#ifndef LFNLAB_STACKS_COMPAT_H
#define LFNLAB_STACKS_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/math64.h>
#include <linux/bitops.h>

#else /* user space */

#include <stdint.h>
#include <stdbool.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

/* Position of the most significant set bit, 1-based; 0 for x == 0. */
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

#endif /* __KERNEL__ */

/* Small helpers with names of our own so they never clash with the kernel's. */
static inline u32 lfn_min_u32(u32 a, u32 b) { return a < b ? a : b; }
static inline u32 lfn_max_u32(u32 a, u32 b) { return a > b ? a : b; }
static inline u64 lfn_min_u64(u64 a, u64 b) { return a < b ? a : b; }

/* Wrap-safe "a is later than b" for 32-bit millisecond clocks. */
static inline bool lfn_time_after32(u32 a, u32 b)
{
	return (s32)(a - b) > 0;
}

/* Clamp a u64 into u32 range. */
static inline u32 lfn_sat_u32(u64 x)
{
	return x > 0xffffffffULL ? 0xffffffffU : (u32)x;
}

#endif /* LFNLAB_STACKS_COMPAT_H */
