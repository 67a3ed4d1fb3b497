/* SPDX-License-Identifier: BSD-2-Clause */
/* The data budget of a metered path; see budget.h.
 *
 * Periods are computed on the broken-down local date (year, month, day)
 * and turned into a time_t by mktime() at 00:00 with tm_isdst = -1: days
 * out of range (day 0, day 32, month 12) are normalised by mktime, so the
 * calendar arithmetic here is only "which day", never "how many seconds"
 * (a day is 23 or 25 hours across a DST change).
 *
 * The state file is parsed strictly, line by line, and entirely before
 * anything is returned: a file that fails any check is corrupt as a whole
 * (the daemon then starts from the configured count, with a warning),
 * never half-used.
 */
#include "common/budget.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const period_names[BUDGET_NPERIOD] = {
	[BUDGET_MONTH] = "month",
	[BUDGET_WEEK] = "week",
	[BUDGET_DAY] = "day",
};

static const char state_magic[] = "l3bond-budget";
enum { STATE_VERSION = 1, STATE_LINE_MAX = 256 };

static bool leap(int year)
{
	return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

/* mon 0..11 */
static int month_days(int year, int mon)
{
	static const int days[12] = {31, 28, 31, 30, 31, 30,
				     31, 31, 30, 31, 30, 31};

	return mon == 1 && leap(year) ? 29 : days[mon];
}

/* The reset day in that month: a day past its end means its last day. */
static int reset_mday(unsigned reset_day, int year, int mon)
{
	int last = month_days(year, mon);

	return (int)reset_day > last ? last : (int)reset_day;
}

/* 00:00 local of year/mon/mday, any of them out of range (mktime
 * normalises).  tm_isdst = -1: midnight of that day whatever DST says. */
static int midnight(int year, int mon, int mday, time_t *t)
{
	struct tm tm = {0};

	tm.tm_year = year - 1900;
	tm.tm_mon = mon;
	tm.tm_mday = mday;
	tm.tm_isdst = -1;
	*t = mktime(&tm);
	return *t == (time_t)-1 ? -EINVAL : 0;
}

static bool params_ok(const struct budget_params *p)
{
	switch (p->period) {
	case BUDGET_MONTH:
		return p->reset_day >= 1 && p->reset_day <= 31;
	case BUDGET_WEEK:
		return p->reset_day >= 1 && p->reset_day <= 7;
	case BUDGET_DAY:
		return true;
	default:
		return false;
	}
}

int budget_period_bounds(const struct budget_params *p, time_t now,
			 time_t *start, time_t *end)
{
	int year, mon, mday, next_year, next_mon, next_mday, ret;
	struct tm tm;

	if (!params_ok(p) || !localtime_r(&now, &tm)) {
		return -EINVAL;
	}
	year = tm.tm_year + 1900;
	mon = tm.tm_mon;
	mday = tm.tm_mday;
	next_year = year;
	next_mon = mon;
	switch (p->period) {
	case BUDGET_MONTH:
		/* before this month's reset day: the period began last month */
		if (mday < reset_mday(p->reset_day, year, mon) && --mon < 0) {
			mon = 11;
			year--;
		}
		mday = reset_mday(p->reset_day, year, mon);
		next_year = mon == 11 ? year + 1 : year;
		next_mon = (mon + 1) % 12;
		next_mday = reset_mday(p->reset_day, next_year, next_mon);
		break;
	case BUDGET_WEEK:
		/* tm_wday: 0 = Sunday; reset_day: 1 = Monday .. 7 = Sunday */
		mday -= (tm.tm_wday + 6 - ((int)p->reset_day - 1)) % 7;
		next_mday = mday + 7;
		break;
	default: /* BUDGET_DAY */
		next_mday = mday + 1;
		break;
	}
	ret = midnight(year, mon, mday, start);
	return ret ? ret : midnight(next_year, next_mon, next_mday, end);
}

/* ceil(limit * pct / 100) without overflow: used >= this is pct % */
static uint64_t threshold(uint64_t limit, unsigned pct)
{
	uint64_t q = limit / 100, r = limit % 100;

	return q * pct + (r * pct + 99) / 100;
}

static unsigned level_of(const struct budget *b)
{
	if (b->p.limit_bytes == 0) {
		return 0;
	}
	if (b->used >= b->p.limit_bytes) {
		return BUDGET_LEVEL_SPENT;
	}
	if (b->used >= threshold(b->p.limit_bytes, BUDGET_LEVEL_WARN)) {
		return BUDGET_LEVEL_WARN;
	}
	return 0;
}

int budget_init(struct budget *b, const struct budget_params *p, uint64_t used,
		time_t now)
{
	time_t start, end;
	int ret;

	ret = budget_period_bounds(p, now, &start, &end);
	if (ret) {
		return ret;
	}
	memset(b, 0, sizeof(*b));
	b->p = *p;
	b->used = used;
	b->start = start;
	b->end = end;
	return 0;
}

int budget_resume(struct budget *b, const struct budget_params *p,
		  uint64_t used, time_t saved_start, time_t now)
{
	time_t start, end;
	int ret;

	ret = budget_period_bounds(p, saved_start, &start, &end);
	if (ret) {
		return ret;
	}
	if (now < end) {
		/* now in saved_start's period, or before it: the clock went
		 * back */
		return budget_init(b, p, used, saved_start);
	}
	ret = budget_init(b, p, 0, now);
	if (ret == 0) {
		b->resets = 1;
	}
	return ret;
}

void budget_add(struct budget *b, uint64_t bytes)
{
	b->used = bytes > UINT64_MAX - b->used ? UINT64_MAX : b->used + bytes;
}

enum budget_event budget_check(struct budget *b, time_t now)
{
	time_t start, end;
	unsigned level;

	if (now >= b->end &&
	    budget_period_bounds(&b->p, now, &start, &end) == 0) {
		b->start = start;
		b->end = end;
		b->used = 0;
		b->level = 0;
		b->resets++;
		return BUDGET_EV_RESET;
	}
	/* now < b->start: the clock went back; the period stays */
	level = level_of(b);
	if (b->level < BUDGET_LEVEL_WARN && level >= BUDGET_LEVEL_WARN) {
		b->level = BUDGET_LEVEL_WARN;
		return BUDGET_EV_80;
	}
	if (b->level < BUDGET_LEVEL_SPENT && level >= BUDGET_LEVEL_SPENT) {
		b->level = BUDGET_LEVEL_SPENT;
		return BUDGET_EV_100;
	}
	return BUDGET_EV_NONE;
}

bool budget_spent(const struct budget *b)
{
	return b->p.limit_bytes > 0 && b->used >= b->p.limit_bytes;
}

void budget_set_used(struct budget *b, uint64_t used)
{
	b->used = used;
	b->level = level_of(b);
}

const char *budget_period_name(enum budget_period p)
{
	return (unsigned)p < BUDGET_NPERIOD ? period_names[p] : NULL;
}

int budget_period_from_name(const char *name, enum budget_period *p)
{
	unsigned i;

	for (i = 0; i < BUDGET_NPERIOD; i++) {
		if (strcmp(name, period_names[i]) == 0) {
			*p = (enum budget_period)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* The state file. */

static uint64_t fnv1a(uint64_t h, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)

static void say(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static bool name_ok(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len >= BUDGET_NAME_MAX) {
		return false;
	}
	for (; *s; s++) {
		if (*s <= ' ' || *s > '~') {
			return false;
		}
	}
	return true;
}

/* The directory of file, fsynced so that the rename itself survives a
 * power cut. */
static int sync_dir(const char *file)
{
	char dir[4096];
	const char *slash = strrchr(file, '/');
	int fd, ret = 0;

	if (!slash) {
		strcpy(dir, ".");
	} else if (slash == file) {
		strcpy(dir, "/");
	} else if ((size_t)(slash - file) < sizeof(dir)) {
		memcpy(dir, file, (size_t)(slash - file));
		dir[slash - file] = '\0';
	} else {
		return -ENAMETOOLONG;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		return -errno;
	}
	if (fsync(fd) < 0) {
		ret = -errno;
	}
	close(fd);
	return ret;
}

static int put(FILE *f, uint64_t *h, const char *line)
{
	*h = fnv1a(*h, line, strlen(line));
	return fputs(line, f) < 0 ? -EIO : 0;
}

int budget_state_save(const char *file, unsigned n, const char *const names[],
		      const struct budget *const b[], char *err, size_t errlen)
{
	char tmp[4096], line[STATE_LINE_MAX];
	uint64_t h = FNV_OFFSET;
	unsigned i, j;
	FILE *f;
	int fd, ret = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && name_ok(names[i]); j++) {
			if (strcmp(names[i], names[j]) == 0) {
				break;
			}
		}
		if (!name_ok(names[i]) || j < i) {
			say(err, errlen, "%s: bad or duplicate path name '%s'",
			    file, names[i]);
			return -EINVAL;
		}
	}
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", file) >= sizeof(tmp)) {
		say(err, errlen, "%s: name too long", file);
		return -ENAMETOOLONG;
	}
	/* a temporary file left by a crash (of any mode) is replaced */
	if (unlink(tmp) < 0 && errno != ENOENT) {
		ret = -errno;
		say(err, errlen, "cannot remove %s: %s", tmp, strerror(-ret));
		return ret;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		say(err, errlen, "cannot create %s: %s", tmp, strerror(-ret));
		return ret;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto unlink_tmp;
	}
	snprintf(line, sizeof(line), "%s %d\n", state_magic, STATE_VERSION);
	ret = put(f, &h, line);
	for (i = 0; i < n && ret == 0; i++) {
		snprintf(line, sizeof(line),
			 "path %s used %" PRIu64 " start %lld\n", names[i],
			 b[i]->used, (long long)b[i]->start);
		ret = put(f, &h, line);
	}
	if (ret == 0) {
		snprintf(line, sizeof(line), "end %016" PRIx64 "\n", h);
		ret = put(f, &h, line);
	}
	if (ret == 0 && (fflush(f) != 0 || fsync(fd) < 0)) {
		ret = -errno;
	}
	if (fclose(f) != 0 && ret == 0) {
		ret = -errno;
	}
	if (ret) {
		goto unlink_tmp;
	}
	if (rename(tmp, file) < 0) {
		ret = -errno;
		say(err, errlen, "cannot rename %s to %s: %s", tmp, file,
		    strerror(-ret));
		unlink(tmp);
		return ret;
	}
	ret = sync_dir(file);
	if (ret) {
		say(err, errlen, "%s: syncing its directory: %s", file,
		    strerror(-ret));
	}
	return ret;

unlink_tmp:
	say(err, errlen, "cannot write %s: %s", tmp, strerror(-ret));
	unlink(tmp);
	return ret;
}

/* A decimal number: digits only (no sign, no space), in range. */
static bool parse_u64(const char *s, uint64_t *v)
{
	char *e;

	if (*s < '0' || *s > '9') {
		return false;
	}
	errno = 0;
	*v = strtoull(s, &e, 10);
	return errno == 0 && *e == '\0';
}

/* A period start may be negative: 00:00 local on 1 January 1970 is before
 * the epoch east of Greenwich (a router booted without a clock). */
static bool parse_time(const char *s, time_t *t)
{
	uint64_t v;
	bool neg = *s == '-';

	if (!parse_u64(s + neg, &v) || v > (uint64_t)LLONG_MAX) {
		return false;
	}
	*t = (time_t)(neg ? -(long long)v : (long long)v);
	return (long long)*t == (neg ? -(long long)v : (long long)v);
}

/* Splits a line into its space-separated words, in place: exactly max of
 * them, single spaces, no empty one. */
static unsigned words(char *s, char *w[], unsigned max)
{
	unsigned n = 0;

	for (;;) {
		if (n == max || *s == ' ' || *s == '\0') {
			return n == max && *s == '\0' ? n : 0;
		}
		w[n++] = s;
		s += strcspn(s, " ");
		if (*s == ' ') {
			*s++ = '\0';
			if (*s == '\0') {
				return 0;
			}
		}
	}
}

int budget_state_load(const char *file, const char *name, bool *found,
		      uint64_t *used, time_t *start, char *err, size_t errlen)
{
	char line[STATE_LINE_MAX], copy[STATE_LINE_MAX], *w[6];
	uint64_t h = FNV_OFFSET, sum, u;
	time_t t;
	unsigned lineno = 0;
	bool ended = false, have = false;
	const char *bad = NULL;
	size_t len;
	FILE *f;
	int ret;

	*found = false;
	f = fopen(file, "re");
	if (!f) {
		ret = -errno;
		say(err, errlen, "%s: %s", file, strerror(-ret));
		return ret;
	}
	while (!bad && fgets(line, sizeof(line), f)) {
		lineno++;
		len = strlen(line);
		if (len == 0 || line[len - 1] != '\n') {
			bad = feof(f) ? "truncated (no end of line)"
				      : "line too long";
			break;
		}
		if (ended) {
			bad = "text after the end line";
			break;
		}
		line[len - 1] = '\0';
		memcpy(copy, line, len);
		if (lineno == 1) {
			if (words(copy, w, 2) != 2 ||
			    strcmp(w[0], state_magic) != 0) {
				bad = "bad header (not an l3bond budget file)";
			} else if (strcmp(w[1], "1") != 0) {
				bad = "unknown version";
			}
		} else if (strncmp(copy, "end ", 4) == 0) {
			if (words(copy, w, 2) != 2 || strlen(w[1]) != 16 ||
			    sscanf(w[1], "%16" SCNx64, &sum) != 1 ||
			    strspn(w[1], "0123456789abcdef") != 16) {
				bad = "bad end line";
			} else if (sum != h) {
				bad = "checksum mismatch";
			}
			ended = true;
		} else if (words(copy, w, 6) != 6 || strcmp(w[0], "path") ||
			   strcmp(w[2], "used") || strcmp(w[4], "start")) {
			bad = "bad line (want: path NAME used BYTES start "
			      "TIME)";
		} else if (!name_ok(w[1])) {
			bad = "bad path name";
		} else if (!parse_u64(w[3], &u)) {
			bad = "bad number of bytes used";
		} else if (!parse_time(w[5], &t)) {
			bad = "bad start time";
		} else if (strcmp(w[1], name) == 0) {
			/* the one path of the file that matters twice */
			if (have) {
				bad = "the path twice";
			}
			*used = u;
			*start = t;
			have = true;
		}
		line[len - 1] = '\n';
		h = fnv1a(h, line, len);
	}
	if (!bad && ferror(f)) {
		ret = -EIO;
		say(err, errlen, "%s:%u: read error", file, lineno + 1);
		fclose(f);
		return ret;
	}
	fclose(f);
	if (!bad && lineno == 0) {
		lineno = 1;
		bad = "empty file";
	} else if (!bad && !ended) {
		bad = "truncated (no end line)";
	}
	if (bad) {
		say(err, errlen, "%s:%u: %s", file, lineno, bad);
		return -EINVAL;
	}
	*found = have;
	return 0;
}
