/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests for the data budget (common/budget.c).
 *
 * - a vector table of (params, now) -> (start, end), each row run in UTC
 *   and in Europe/Berlin: months with reset days 1, 15, 28..31 across
 *   January..March of 2027 and of the leap year 2028, the year change, the
 *   reset day 31 in a 30-day month and in February, weeks from Monday and
 *   from Sunday, days; and Berlin's DST changes inside a month and a week
 *   as absolute times (computed with GNU date), so that a boundary moved
 *   off midnight by an hour cannot pass; and a zone whose DST change skips
 *   midnight (America/Santiago);
 * - a randomized comparison with a naive reference (walk day by day over
 *   civil day numbers to the previous and next reset day) for some
 *   thousands of times in 2026-2030 per zone;
 * - thresholds, clock jumps (back: kept; forward over periods: one reset),
 *   budget_resume's three cases, budget_set_used, saturation, no limit;
 * - the state file: round trip, missing, each kind of corruption (error
 *   with file and line), the atomic replacement.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/budget.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Berlin from tzdata, or the same rules as a POSIX TZ string. */
static const char *berlin(void)
{
	return access("/usr/share/zoneinfo/Europe/Berlin", R_OK) == 0
		       ? "Europe/Berlin"
		       : "CET-1CEST,M3.5.0,M10.5.0/3";
}

static void set_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

/* local time y-m-d h:mi (m 1..12) */
static time_t at(int y, int m, int d, int h, int mi)
{
	struct tm tm = {0};

	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

struct ymd {
	int y, m, d, h, mi;
};

struct vec {
	enum budget_period period;
	unsigned reset;
	struct ymd now, start, end; /* start, end: 00:00 */
};

static const struct vec vectors[] = {
	/* month, reset day 1 */
	{BUDGET_MONTH, 1, {2028, 1, 1, 0, 0}, {2028, 1, 1}, {2028, 2, 1}},
	{BUDGET_MONTH, 1, {2027, 12, 31, 23, 59}, {2027, 12, 1}, {2028, 1, 1}},
	{BUDGET_MONTH, 1, {2028, 2, 29, 12, 0}, {2028, 2, 1}, {2028, 3, 1}},
	{BUDGET_MONTH, 1, {2027, 2, 28, 23, 59}, {2027, 2, 1}, {2027, 3, 1}},
	/* 15, over the year change */
	{BUDGET_MONTH,
	 15,
	 {2027, 1, 14, 23, 59},
	 {2026, 12, 15},
	 {2027, 1, 15}},
	{BUDGET_MONTH, 15, {2027, 1, 15, 0, 0}, {2027, 1, 15}, {2027, 2, 15}},
	{BUDGET_MONTH, 15, {2028, 2, 20, 8, 0}, {2028, 2, 15}, {2028, 3, 15}},
	{BUDGET_MONTH,
	 15,
	 {2027, 12, 31, 12, 0},
	 {2027, 12, 15},
	 {2028, 1, 15}},
	/* 28 */
	{BUDGET_MONTH, 28, {2027, 2, 28, 0, 0}, {2027, 2, 28}, {2027, 3, 28}},
	{BUDGET_MONTH, 28, {2027, 2, 27, 10, 0}, {2027, 1, 28}, {2027, 2, 28}},
	{BUDGET_MONTH, 28, {2028, 2, 29, 10, 0}, {2028, 2, 28}, {2028, 3, 28}},
	/* 29: the last day of February 2027, the 29th in 2028 */
	{BUDGET_MONTH, 29, {2027, 2, 28, 10, 0}, {2027, 2, 28}, {2027, 3, 29}},
	{BUDGET_MONTH, 29, {2027, 2, 27, 10, 0}, {2027, 1, 29}, {2027, 2, 28}},
	{BUDGET_MONTH, 29, {2027, 3, 28, 10, 0}, {2027, 2, 28}, {2027, 3, 29}},
	{BUDGET_MONTH, 29, {2028, 2, 28, 10, 0}, {2028, 1, 29}, {2028, 2, 29}},
	{BUDGET_MONTH, 29, {2028, 2, 29, 0, 0}, {2028, 2, 29}, {2028, 3, 29}},
	/* 30 */
	{BUDGET_MONTH, 30, {2027, 2, 28, 0, 0}, {2027, 2, 28}, {2027, 3, 30}},
	{BUDGET_MONTH, 30, {2028, 1, 30, 0, 0}, {2028, 1, 30}, {2028, 2, 29}},
	{BUDGET_MONTH, 30, {2028, 2, 28, 23, 59}, {2028, 1, 30}, {2028, 2, 29}},
	{BUDGET_MONTH, 30, {2028, 2, 29, 0, 0}, {2028, 2, 29}, {2028, 3, 30}},
	/* 31 in 30-day months and in February */
	{BUDGET_MONTH, 31, {2027, 4, 30, 0, 0}, {2027, 4, 30}, {2027, 5, 31}},
	{BUDGET_MONTH, 31, {2027, 4, 29, 23, 59}, {2027, 3, 31}, {2027, 4, 30}},
	{BUDGET_MONTH, 31, {2027, 2, 28, 0, 0}, {2027, 2, 28}, {2027, 3, 31}},
	{BUDGET_MONTH, 31, {2027, 2, 27, 12, 0}, {2027, 1, 31}, {2027, 2, 28}},
	{BUDGET_MONTH, 31, {2028, 2, 28, 12, 0}, {2028, 1, 31}, {2028, 2, 29}},
	{BUDGET_MONTH, 31, {2028, 2, 29, 0, 0}, {2028, 2, 29}, {2028, 3, 31}},
	{BUDGET_MONTH, 31, {2027, 1, 31, 0, 0}, {2027, 1, 31}, {2027, 2, 28}},
	{BUDGET_MONTH,
	 31,
	 {2027, 12, 30, 12, 0},
	 {2027, 11, 30},
	 {2027, 12, 31}},
	{BUDGET_MONTH, 31, {2027, 12, 31, 0, 0}, {2027, 12, 31}, {2028, 1, 31}},
	{BUDGET_MONTH, 31, {2027, 6, 15, 0, 0}, {2027, 5, 31}, {2027, 6, 30}},
	/* weeks: Monday (1) and Sunday (7); 2027-03-24 is a Wednesday */
	{BUDGET_WEEK, 1, {2027, 3, 24, 12, 0}, {2027, 3, 22}, {2027, 3, 29}},
	{BUDGET_WEEK, 1, {2027, 3, 22, 0, 0}, {2027, 3, 22}, {2027, 3, 29}},
	{BUDGET_WEEK, 1, {2027, 3, 21, 23, 59}, {2027, 3, 15}, {2027, 3, 22}},
	{BUDGET_WEEK, 1, {2027, 1, 1, 12, 0}, {2026, 12, 28}, {2027, 1, 4}},
	{BUDGET_WEEK, 7, {2027, 3, 24, 12, 0}, {2027, 3, 21}, {2027, 3, 28}},
	{BUDGET_WEEK, 7, {2027, 3, 28, 0, 0}, {2027, 3, 28}, {2027, 4, 4}},
	{BUDGET_WEEK, 7, {2027, 3, 27, 23, 59}, {2027, 3, 21}, {2027, 3, 28}},
	{BUDGET_WEEK, 3, {2027, 3, 24, 0, 0}, {2027, 3, 24}, {2027, 3, 31}},
	/* days, reset_day ignored */
	{BUDGET_DAY, 0, {2028, 2, 28, 13, 0}, {2028, 2, 28}, {2028, 2, 29}},
	{BUDGET_DAY, 99, {2027, 12, 31, 23, 59}, {2027, 12, 31}, {2028, 1, 1}},
	{BUDGET_DAY, 1, {2027, 3, 28, 12, 0}, {2027, 3, 28}, {2027, 3, 29}},
	{BUDGET_DAY, 1, {2027, 10, 31, 0, 0}, {2027, 10, 31}, {2027, 11, 1}},
};

static void run_vectors(const char *tz)
{
	const struct vec *v;
	time_t s, e, now;
	size_t i;

	set_tz(tz);
	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		struct budget_params p = {0};

		v = &vectors[i];
		p.period = v->period;
		p.reset_day = v->reset;
		now = at(v->now.y, v->now.m, v->now.d, v->now.h, v->now.mi);
		assert_int_equal(budget_period_bounds(&p, now, &s, &e), 0);
		if (s != at(v->start.y, v->start.m, v->start.d, 0, 0) ||
		    e != at(v->end.y, v->end.m, v->end.d, 0, 0)) {
			fail_msg("%s row %zu: got [%lld, %lld)", tz, i,
				 (long long)s, (long long)e);
		}
	}
}

static void test_vectors_utc(void **state)
{
	(void)state;
	run_vectors("UTC");
}

static void test_vectors_berlin(void **state)
{
	(void)state;
	run_vectors(berlin());
}

/* Berlin's DST changes of 2027 (28 March 02:00 -> 03:00, 31 October
 * 03:00 -> 02:00) inside a month and a week, against absolute times from
 * `TZ=Europe/Berlin date -d '2027-03-01 00:00' +%s` and so on. */
static void test_dst(void **state)
{
	static const struct {
		enum budget_period period;
		unsigned reset;
		struct ymd now;
		long long start, end;
	} v[] = {
		/* March: 1 March 00:00 CET .. 1 April 00:00 CEST */
		{BUDGET_MONTH, 1, {2027, 3, 29, 12, 0}, 1803855600, 1806530400},
		/* the week of the change is an hour short */
		{BUDGET_WEEK, 1, {2027, 3, 24, 12, 0}, 1805670000, 1806271200},
		{BUDGET_WEEK, 1, {2027, 3, 28, 23, 0}, 1805670000, 1806271200},
		/* October: CEST .. CET */
		{BUDGET_MONTH,
		 1,
		 {2027, 10, 31, 12, 0},
		 1822341600,
		 1825023600},
		/* and the week of the change back an hour long */
		{BUDGET_WEEK, 1, {2027, 10, 27, 12, 0}, 1824415200, 1825023600},
	};
	struct budget_params p = {0};
	time_t s, e;
	size_t i;

	(void)state;
	set_tz(berlin());
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		p.period = v[i].period;
		p.reset_day = v[i].reset;
		assert_int_equal(budget_period_bounds(&p,
						      at(v[i].now.y, v[i].now.m,
							 v[i].now.d, v[i].now.h,
							 v[i].now.mi),
						      &s, &e),
				 0);
		assert_int_equal((long long)s, v[i].start);
		assert_int_equal((long long)e, v[i].end);
	}
	assert_int_equal(1806271200 - 1805670000, 7 * 86400 - 3600);
	assert_int_equal(1825023600 - 1824415200, 7 * 86400 + 3600);

	/* the same instant is in another period in UTC: TZ is respected
	 * (2027-03-01 00:30 in Berlin is still February in UTC) */
	p.period = BUDGET_MONTH;
	p.reset_day = 1;
	assert_int_equal(budget_period_bounds(&p, 1803855600 + 1800, &s, &e),
			 0);
	assert_int_equal((long long)s, 1803855600);
	set_tz("UTC");
	assert_int_equal(budget_period_bounds(&p, 1803855600 + 1800, &s, &e),
			 0);
	assert_int_equal((long long)e, 1803859200); /* 1 March 00:00 UTC */
}

/* A zone where DST skips midnight itself (Santiago, Sunday 6 September
 * 2026: 00:00 -04 is 01:00 -03): the day's boundary is its first local
 * time, 01:00 (1788667200), on both sides of it. */
static void test_midnight_skipped(void **state)
{
	struct budget_params p = {.period = BUDGET_DAY};
	time_t s, e;

	(void)state;
	if (access("/usr/share/zoneinfo/America/Santiago", R_OK) != 0) {
		skip();
	}
	set_tz("America/Santiago");
	assert_int_equal(budget_period_bounds(&p, 1788667200 + 3600, &s, &e),
			 0);
	assert_int_equal((long long)s, 1788667200);
	assert_int_equal(budget_period_bounds(&p, 1788667200 - 1, &s, &e), 0);
	assert_int_equal((long long)e, 1788667200);
	p.period = BUDGET_WEEK;
	p.reset_day = 7;
	assert_int_equal(budget_period_bounds(&p, 1788667200 + 3600, &s, &e),
			 0);
	assert_int_equal((long long)s, 1788667200);
	assert_int_equal((long long)e - s, 7 * 86400 - 3600);
}

static void test_bad_params(void **state)
{
	struct budget_params p = {0};
	struct budget b;
	time_t s, e;

	(void)state;
	set_tz("UTC");
	p.period = BUDGET_MONTH;
	p.reset_day = 0;
	assert_int_equal(budget_period_bounds(&p, 0, &s, &e), -EINVAL);
	p.reset_day = 32;
	assert_int_equal(budget_period_bounds(&p, 0, &s, &e), -EINVAL);
	assert_int_equal(budget_init(&b, &p, 0, 0), -EINVAL);
	p.period = BUDGET_WEEK;
	p.reset_day = 8;
	assert_int_equal(budget_period_bounds(&p, 0, &s, &e), -EINVAL);
	p.reset_day = 0;
	assert_int_equal(budget_period_bounds(&p, 0, &s, &e), -EINVAL);
	p.period = BUDGET_NPERIOD;
	p.reset_day = 1;
	assert_int_equal(budget_period_bounds(&p, 0, &s, &e), -EINVAL);
	/* a time localtime_r cannot put in a struct tm (year overflows) */
	if (sizeof(time_t) == 8) {
		p.period = BUDGET_DAY;
		assert_int_equal(
			budget_period_bounds(&p, (time_t)INT64_MAX, &s, &e),
			-EINVAL);
	}

	assert_string_equal(budget_period_name(BUDGET_MONTH), "month");
	assert_string_equal(budget_period_name(BUDGET_WEEK), "week");
	assert_string_equal(budget_period_name(BUDGET_DAY), "day");
	assert_null(budget_period_name(BUDGET_NPERIOD));
	enum budget_period q;
	assert_int_equal(budget_period_from_name("week", &q), 0);
	assert_int_equal(q, BUDGET_WEEK);
	assert_int_equal(budget_period_from_name("year", &q), -EINVAL);
}

/* The naive reference: civil day numbers (days since 1970-01-01) and a
 * walk day by day to the previous and the next reset day. */
static long days_from_civil(long y, unsigned m, unsigned d)
{
	long era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long)doe - 719468;
}

static void civil_from_days(long z, int *y, int *m, int *d)
{
	long era;
	unsigned doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

static bool last_of_month(long day)
{
	int y, m, d;

	civil_from_days(day + 1, &y, &m, &d);
	return d == 1;
}

static bool is_reset(const struct budget_params *p, long day)
{
	int y, m, d;

	civil_from_days(day, &y, &m, &d);
	switch (p->period) {
	case BUDGET_MONTH:
		return d == (int)p->reset_day ||
		       (last_of_month(day) && (int)p->reset_day > d);
	case BUDGET_WEEK: /* day 0 was a Thursday (4) */
		return (day % 7 + 7 + 3) % 7 + 1 == (long)p->reset_day;
	default:
		return true;
	}
}

static time_t day_midnight(long day)
{
	int y, m, d;

	civil_from_days(day, &y, &m, &d);
	return at(y, m, d, 0, 0);
}

static void ref_bounds(const struct budget_params *p, time_t now, time_t *start,
		       time_t *end)
{
	struct tm tm;
	long day, next;

	assert_non_null(localtime_r(&now, &tm));
	day = days_from_civil(tm.tm_year + 1900, (unsigned)tm.tm_mon + 1,
			      (unsigned)tm.tm_mday);
	while (!is_reset(p, day)) {
		day--;
	}
	for (next = day + 1; !is_reset(p, next); next++) {
	}
	*start = day_midnight(day);
	*end = day_midnight(next);
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void run_random(const char *tz)
{
	const time_t lo = 1767225600, hi = 1924991999; /* 2026..2030, UTC */
	struct budget_params p = {0};
	time_t now, s, e, rs, re;
	struct tm tm, stm;
	int i;

	set_tz(tz);
	for (i = 0; i < 6000; i++) {
		now = lo + (time_t)(rnd() % (uint64_t)(hi - lo));
		p.period = (enum budget_period)(rnd() % BUDGET_NPERIOD);
		p.reset_day = p.period == BUDGET_MONTH	? 1 + rnd() % 31
			      : p.period == BUDGET_WEEK ? 1 + rnd() % 7
							: 0;
		/* a quarter exactly at a local midnight or a second before */
		if (rnd() % 4 == 0) {
			assert_non_null(localtime_r(&now, &tm));
			now = at(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
				 0, 0) -
			      (time_t)(rnd() % 2);
		}
		assert_int_equal(budget_period_bounds(&p, now, &s, &e), 0);
		ref_bounds(&p, now, &rs, &re);
		if (s != rs || e != re || !(s <= now && now < e)) {
			fail_msg("%s %s/%u now %lld: [%lld, %lld) want "
				 "[%lld, %lld)",
				 tz, budget_period_name(p.period), p.reset_day,
				 (long long)now, (long long)s, (long long)e,
				 (long long)rs, (long long)re);
		}
		assert_non_null(localtime_r(&s, &stm));
		assert_non_null(localtime_r(&e, &tm));
		assert_true(stm.tm_hour == 0 && stm.tm_min == 0 &&
			    stm.tm_sec == 0);
		assert_true(tm.tm_hour == 0 && tm.tm_min == 0 &&
			    tm.tm_sec == 0);
		if (p.period == BUDGET_MONTH) {
			long sd = days_from_civil(stm.tm_year + 1900,
						  (unsigned)stm.tm_mon + 1,
						  (unsigned)stm.tm_mday);

			assert_true(stm.tm_mday == (int)p.reset_day ||
				    (last_of_month(sd) &&
				     stm.tm_mday < (int)p.reset_day));
		}
	}
}

static void test_random_utc(void **state)
{
	(void)state;
	run_random("UTC");
}

static void test_random_berlin(void **state)
{
	(void)state;
	run_random(berlin());
}

static const struct budget_params month1 = {
	.limit_bytes = 1000, .period = BUDGET_MONTH, .reset_day = 1};

static void test_thresholds(void **state)
{
	time_t now = 1803855600 + 86400; /* 2 March 2027, UTC */
	struct budget b;

	(void)state;
	set_tz("UTC");
	assert_int_equal(budget_init(&b, &month1, 799, now), 0);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_NONE); /* 79.9 % */
	assert_false(budget_spent(&b));
	budget_add(&b, 1);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_80);
	assert_int_equal(b.level, 80);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_NONE);
	budget_add(&b, 199);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_NONE); /* 99.9 % */
	assert_false(budget_spent(&b));
	budget_add(&b, 1);
	assert_true(budget_spent(&b));
	assert_int_equal(budget_check(&b, now), BUDGET_EV_100);
	assert_int_equal(b.level, 100);
	budget_add(&b, 5000);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_NONE);

	/* the period ends: one reset, then 80 % fires again */
	now = at(2027, 4, 1, 0, 0);
	assert_int_equal(budget_check(&b, now - 1), BUDGET_EV_NONE);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_RESET);
	assert_int_equal(b.used, 0);
	assert_int_equal(b.level, 0);
	assert_int_equal(b.resets, 1);
	assert_int_equal((long long)b.start, (long long)now);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_NONE);
	assert_false(budget_spent(&b));
	budget_add(&b, 800);
	assert_int_equal(budget_check(&b, now + 10), BUDGET_EV_80);

	/* under 80 % to over 100 % in one step: both, in order */
	assert_int_equal(budget_init(&b, &month1, 0, now), 0);
	budget_add(&b, 1000);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_80);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_100);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_NONE);

	/* 80 % of a limit that would overflow limit * 80 */
	struct budget_params big = month1;
	big.limit_bytes = UINT64_MAX;
	/* 80 % of 2^64 - 1 is exactly (2^64 - 1) / 5 * 4 */
	assert_int_equal(budget_init(&b, &big, UINT64_MAX / 5 * 4 - 1, now), 0);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_NONE);
	budget_add(&b, 1);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_80);
}

static void test_clock_jumps(void **state)
{
	struct budget b;
	time_t now, start;

	(void)state;
	set_tz(berlin());
	now = at(2027, 3, 10, 12, 0);
	assert_int_equal(budget_init(&b, &month1, 500, now), 0);
	start = b.start;

	/* back before the start (no RTC: 1970): kept, no reset */
	assert_int_equal(budget_check(&b, 0), BUDGET_EV_NONE);
	assert_int_equal(budget_check(&b, start - 86400 * 40), BUDGET_EV_NONE);
	assert_int_equal(b.used, 500);
	assert_int_equal(b.resets, 0);
	assert_int_equal((long long)b.start, (long long)start);
	budget_add(&b, 300); /* still counted, and still warns */
	assert_int_equal(budget_check(&b, 0), BUDGET_EV_80);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_NONE);

	/* forward over 3 periods: one reset, into the period of now */
	now = at(2027, 6, 20, 8, 0);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_RESET);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_NONE);
	assert_int_equal(b.resets, 1);
	assert_int_equal(b.used, 0);
	assert_int_equal((long long)b.start, (long long)at(2027, 6, 1, 0, 0));
	assert_int_equal((long long)b.end, (long long)at(2027, 7, 1, 0, 0));
}

static void test_resume(void **state)
{
	time_t saved = 0, now;
	struct budget b;

	(void)state;
	set_tz(berlin());
	saved = at(2027, 3, 1, 0, 0);

	/* saved_start is the start of now's period: kept */
	now = at(2027, 3, 20, 0, 0);
	assert_int_equal(budget_resume(&b, &month1, 850, saved, now), 0);
	assert_int_equal(b.used, 850);
	assert_int_equal((long long)b.start, (long long)saved);
	assert_int_equal((long long)b.end, (long long)at(2027, 4, 1, 0, 0));
	assert_int_equal(b.resets, 0);
	assert_int_equal(b.level, 0); /* reported again */
	assert_int_equal(budget_check(&b, now), BUDGET_EV_80);

	/* now before it (a 1970 boot): kept, period kept */
	assert_int_equal(budget_resume(&b, &month1, 850, saved, 0), 0);
	assert_int_equal(b.used, 850);
	assert_int_equal((long long)b.start, (long long)saved);
	assert_int_equal(b.resets, 0);
	assert_int_equal(budget_check(&b, 3600), BUDGET_EV_80);
	assert_int_equal(b.used, 850);

	/* now at the end of saved_start's period, and far past it: reset */
	now = at(2027, 4, 1, 0, 0);
	assert_int_equal(budget_resume(&b, &month1, 850, saved, now), 0);
	assert_int_equal(b.used, 0);
	assert_int_equal((long long)b.start, (long long)now);
	assert_int_equal(b.resets, 1);
	now = at(2028, 2, 29, 12, 0);
	assert_int_equal(budget_resume(&b, &month1, 850, saved, now), 0);
	assert_int_equal(b.used, 0);
	assert_int_equal((long long)b.start, (long long)at(2028, 2, 1, 0, 0));

	/* one second before the end: still kept */
	now = at(2027, 4, 1, 0, 0) - 1;
	assert_int_equal(budget_resume(&b, &month1, 850, saved, now), 0);
	assert_int_equal(b.used, 850);

	/* the reset day changed from 1 to 15 since the save: saved_start's
	 * period is 15 February .. 15 March now */
	struct budget_params mid = month1;
	mid.reset_day = 15;
	now = at(2027, 3, 10, 0, 0);
	assert_int_equal(budget_resume(&b, &mid, 850, saved, now), 0);
	assert_int_equal(b.used, 850);
	assert_int_equal((long long)b.start, (long long)at(2027, 2, 15, 0, 0));
	assert_int_equal((long long)b.end, (long long)at(2027, 3, 15, 0, 0));
	now = at(2027, 3, 15, 0, 0);
	assert_int_equal(budget_resume(&b, &mid, 850, saved, now), 0);
	assert_int_equal(b.used, 0);
	assert_int_equal((long long)b.start, (long long)now);

	struct budget_params bad = month1;
	bad.reset_day = 0;
	assert_int_equal(budget_resume(&b, &bad, 1, saved, now), -EINVAL);
}

static void test_set_used(void **state)
{
	time_t now = 1803855600 + 86400;
	struct budget b;

	(void)state;
	set_tz("UTC");
	assert_int_equal(budget_init(&b, &month1, 1000, now), 0);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_80);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_100);
	/* set over 80 %: the level follows, no new event */
	budget_set_used(&b, 900);
	assert_int_equal(b.level, 80);
	assert_false(budget_spent(&b));
	assert_int_equal(budget_check(&b, now), BUDGET_EV_NONE);
	budget_add(&b, 100);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_100);
	/* reset (set 0): both warnings re-armed */
	budget_set_used(&b, 0);
	assert_int_equal(b.level, 0);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_NONE);
	budget_add(&b, 1000);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_80);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_100);
	/* set over the limit: spent, nothing reported again */
	budget_set_used(&b, 2000);
	assert_true(budget_spent(&b));
	assert_int_equal(b.level, 100);
	assert_int_equal(budget_check(&b, now), BUDGET_EV_NONE);
}

static void test_add_and_no_limit(void **state)
{
	struct budget_params none = month1;
	time_t now = 1803855600 + 86400;
	struct budget b;

	(void)state;
	set_tz("UTC");
	assert_int_equal(budget_init(&b, &month1, UINT64_MAX - 10, now), 0);
	budget_add(&b, 5);
	assert_true(b.used == UINT64_MAX - 5);
	budget_add(&b, 100);
	assert_true(b.used == UINT64_MAX);
	budget_add(&b, UINT64_MAX);
	assert_true(b.used == UINT64_MAX);

	none.limit_bytes = 0;
	assert_int_equal(budget_init(&b, &none, UINT64_MAX, now), 0);
	assert_false(budget_spent(&b));
	assert_int_equal(budget_check(&b, now), BUDGET_EV_NONE);
	budget_set_used(&b, UINT64_MAX);
	assert_int_equal(b.level, 0);
	assert_false(budget_spent(&b));
}

/* The state file. */

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_budget.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void write_file(const char *file, const char *text, size_t len)
{
	FILE *f = fopen(file, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static size_t read_file(const char *file, char *buf, size_t size)
{
	FILE *f = fopen(file, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return n;
}

/* two budgets, lte and lte2, saved to file */
static void save_two(const char *file, uint64_t used1, time_t start2)
{
	struct budget b1 = {0}, b2 = {0};
	const char *const names[] = {"lte", "lte2"};
	const struct budget *const bs[] = {&b1, &b2};
	char err[512];

	b1.used = used1;
	b1.start = 1803855600;
	b2.used = 42;
	b2.start = start2;
	assert_int_equal(
		budget_state_save(file, 2, names, bs, err, sizeof(err)), 0);
}

static void test_state_round_trip(void **state)
{
	char file[128], tmp[160], err[512];
	uint64_t used;
	time_t start;
	bool found;

	(void)state;
	path_in(file, sizeof(file), "rt");
	save_two(file, UINT64_MAX, -3600);
	assert_int_equal(budget_state_load(file, "lte", &found, &used, &start,
					   err, sizeof(err)),
			 0);
	assert_true(found);
	assert_true(used == UINT64_MAX);
	assert_int_equal((long long)start, 1803855600);
	assert_int_equal(budget_state_load(file, "lte2", &found, &used, &start,
					   err, sizeof(err)),
			 0);
	assert_true(found);
	assert_true(used == 42);
	assert_int_equal((long long)start, -3600);
	assert_int_equal(budget_state_load(file, "dsl", &found, &used, &start,
					   err, sizeof(err)),
			 0);
	assert_false(found);
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	assert_int_equal(access(tmp, F_OK), -1); /* no temporary left */

	/* no paths at all is a valid file */
	assert_int_equal(
		budget_state_save(file, 0, NULL, NULL, err, sizeof(err)), 0);
	assert_int_equal(budget_state_load(file, "lte", &found, &used, &start,
					   err, sizeof(err)),
			 0);
	assert_false(found);

	/* names the file cannot hold */
	struct budget b = {0};
	const struct budget *const bs[] = {&b, &b};
	const char *const spaced[] = {"l te"};
	const char *const twice[] = {"lte", "lte"};
	assert_int_equal(
		budget_state_save(file, 1, spaced, bs, err, sizeof(err)),
		-EINVAL);
	assert_int_equal(
		budget_state_save(file, 2, twice, bs, err, sizeof(err)),
		-EINVAL);
	assert_non_null(strstr(err, file));
}

static void test_state_missing(void **state)
{
	char file[128], err[512];
	uint64_t used;
	time_t start;
	bool found = true;

	(void)state;
	path_in(file, sizeof(file), "none");
	assert_int_equal(budget_state_load(file, "lte", &found, &used, &start,
					   err, sizeof(err)),
			 -ENOENT);
	assert_false(found);
	assert_non_null(strstr(err, file));
}

/* Each corruption: -EINVAL, and err is "FILE:LINE: <why>...". */
static void expect_corrupt(const char *text, size_t len, unsigned line,
			   const char *why)
{
	char file[128], err[512], want[160];
	uint64_t used;
	time_t start;
	bool found = true;

	path_in(file, sizeof(file), "corrupt");
	write_file(file, text, len);
	err[0] = '\0';
	if (budget_state_load(file, "lte", &found, &used, &start, err,
			      sizeof(err)) != -EINVAL) {
		fail_msg("%s: not -EINVAL (err '%s')", why, err);
	}
	assert_false(found);
	snprintf(want, sizeof(want), "%s:%u: %s", file, line, why);
	if (strncmp(err, want, strlen(want)) != 0) {
		fail_msg("err '%s', want it to begin '%s'", err, want);
	}
}

#define CORRUPT(text, line, why) expect_corrupt(text, strlen(text), line, why)

static void test_state_corrupt(void **state)
{
	char file[128], good[1024], buf[1200], *p, *q;
	size_t n;

	(void)state;
	path_in(file, sizeof(file), "good");
	save_two(file, 123456789, 1803855600);
	n = read_file(file, good, sizeof(good));
	/* the format as documented */
	assert_true(strncmp(good,
			    "l3bond-budget 1\n"
			    "path lte used 123456789 start 1803855600\n"
			    "path lte2 used 42 start 1803855600\nend ",
			    strlen("l3bond-budget 1\npath lte used 123456789 "
				   "start 1803855600\npath lte2 used 42 start "
				   "1803855600\nend ")) == 0);

	expect_corrupt("", 0, 1, "empty file");
	CORRUPT("l3bond-budgets 1\n", 1, "bad header");
	CORRUPT("hello\n", 1, "bad header");
	CORRUPT("l3bond-budget 2\n", 1, "unknown version");
	CORRUPT("l3bond-budget 1\npath lte used 12x start 5\n", 2,
		"bad number of bytes used");
	CORRUPT("l3bond-budget 1\npath lte used -5 start 5\n", 2,
		"bad number of bytes used");
	CORRUPT("l3bond-budget 1\npath lte used 99999999999999999999 "
		"start 5\n",
		2, "bad number of bytes used");
	CORRUPT("l3bond-budget 1\npath lte used 5 start x\n", 2,
		"bad start time");
	CORRUPT("l3bond-budget 1\npath lte used 5  start 5\n", 2, "bad line");
	CORRUPT("l3bond-budget 1\npath lte used 5 start 5\n"
		"path lte used 6 start 5\n",
		3, "the path twice");
	CORRUPT("l3bond-budget 1\nend 0000000000000000\n", 2,
		"checksum mismatch");

	/* from the good file: a digit changed (checksum), line 4 */
	memcpy(buf, good, n);
	p = strstr(buf, "123456789");
	p[0] = '9';
	expect_corrupt(buf, n, 4, "checksum mismatch");
	/* the checksum itself changed */
	memcpy(buf, good, n);
	buf[n - 2] = buf[n - 2] == '0' ? '1' : '0';
	expect_corrupt(buf, n, 4, "checksum mismatch");
	/* a line missing: the second path */
	memcpy(buf, good, n);
	p = strstr(buf, "path lte2");
	q = strchr(p, '\n') + 1;
	memmove(p, q, n - (size_t)(q - buf));
	expect_corrupt(buf, n - (size_t)(q - p), 3, "checksum mismatch");
	/* trailing garbage after the end line */
	memcpy(buf, good, n);
	memcpy(buf + n, "x\n", 2);
	expect_corrupt(buf, n + 2, 5, "text after the end line");
	/* truncated in the middle of the second line, and at a line end */
	expect_corrupt(good, 30, 2, "truncated (no end of line)");
	p = strstr(good, "path lte2");
	expect_corrupt(good, (size_t)(p - good), 2, "truncated (no end line)");
	/* the end line without its newline */
	expect_corrupt(good, n - 1, 4, "truncated (no end of line)");
}

static void test_state_atomic(void **state)
{
	char file[128], tmp[160], err[512], missing[160];
	struct stat before, after;
	uint64_t used;
	time_t start;
	bool found;

	(void)state;
	path_in(file, sizeof(file), "atomic");
	save_two(file, 1, 1803855600);
	assert_int_equal(stat(file, &before), 0);

	/* a temporary file left by a crash mid-save */
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	write_file(tmp, "l3bond-budget 1\npath lt", 23);
	assert_int_equal(chmod(tmp, 0400), 0); /* even read-only */
	save_two(file, 2, 1803855600);
	assert_int_equal(access(tmp, F_OK), -1);
	assert_int_equal(stat(file, &after), 0);
	/* replaced by rename, not rewritten in place */
	assert_true(before.st_ino != after.st_ino);
	assert_int_equal(budget_state_load(file, "lte", &found, &used, &start,
					   err, sizeof(err)),
			 0);
	assert_true(found && used == 2);

	/* a directory that does not exist: the error names it */
	snprintf(missing, sizeof(missing), "%s/nodir/budget", dir);
	struct budget b = {0};
	const struct budget *const bs[] = {&b};
	const char *const names[] = {"lte"};
	assert_int_equal(
		budget_state_save(missing, 1, names, bs, err, sizeof(err)),
		-ENOENT);
	snprintf(missing, sizeof(missing), "%s/nodir", dir);
	assert_non_null(strstr(err, missing));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors_utc),
		cmocka_unit_test(test_vectors_berlin),
		cmocka_unit_test(test_dst),
		cmocka_unit_test(test_midnight_skipped),
		cmocka_unit_test(test_bad_params),
		cmocka_unit_test(test_random_utc),
		cmocka_unit_test(test_random_berlin),
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_clock_jumps),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_set_used),
		cmocka_unit_test(test_add_and_no_limit),
		cmocka_unit_test(test_state_round_trip),
		cmocka_unit_test(test_state_missing),
		cmocka_unit_test(test_state_corrupt),
		cmocka_unit_test(test_state_atomic),
	};

	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
