/*
 * clock.h - the one clock of the library (a seam): every wall-clock read
 * that decides behaviour (cell timestamps, TTL, lock expiry, REST times)
 * goes through sbx_clock_now_ms(), so a test can set the time.
 */
#ifndef SBX_COMMON_CLOCK_H
#define SBX_COMMON_CLOCK_H

#include <stdint.h>

/* Milliseconds since the Unix epoch: CLOCK_REALTIME, or the test clock. */
int64_t sbx_clock_now_ms(void);
/* The same, at the coarse clock's few-ms resolution (no system call), for
 * counters read on every row; follows the test clock when one is set. */
int64_t sbx_clock_coarse_ms(void);

/* Tests: make now_ms the clock (NULL restores the system clock). Not
 * thread-safe against concurrent reads of the clock's identity; set it
 * before the threads that read it start. */
void sbx_clock_set(int64_t (*now_ms)(void));

#endif
