/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz_conf: conf_load() on an arbitrary file.
 *
 * conf_load takes a path and opens it twice (its prescan, then libconfig),
 * so the input goes into a memfd, rewritten for each input, and is loaded
 * through /proc/self/fd/N: no file on disk, and a fresh offset each open.
 * Any outcome is fine except a crash, a leak, a sanitizer report, or a
 * broken promise of conf.h:
 *   - success: the struct satisfies every rule (fuzz_check_conf());
 *   - failure: -EINVAL, the caller's struct untouched, and one line
 *     "file:line: key: why" in err, cut cleanly to any smaller errlen;
 *     a bad key string (the pre-shared key) quoted by at most its first
 *     4 characters and "...", with its length.
 * Inputs with @include are skipped: libconfig would read the file named,
 * any file on the machine (see README.md).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"

static int memfd = -1;
static char path[64];

static void put_input(const uint8_t *data, size_t size)
{
	size_t done = 0;
	ssize_t n;

	if (memfd < 0) {
		memfd = memfd_create("fuzz_conf", MFD_CLOEXEC);
		FUZZ_CHECK(memfd >= 0, "memfd_create: %s", strerror(errno));
		snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	}
	FUZZ_CHECK(ftruncate(memfd, 0) == 0, "ftruncate: %s", strerror(errno));
	while (done < size) {
		n = pwrite(memfd, data + done, size - done, (off_t)done);
		FUZZ_CHECK(n > 0, "pwrite: %s", strerror(errno));
		done += (size_t)n;
	}
}

static bool has_include(const uint8_t *data, size_t size)
{
	static const char word[] = "@include";
	size_t i, j;

	for (i = 0; i + sizeof(word) - 1 <= size; i++) {
		for (j = 0; j < sizeof(word) - 1; j++) {
			if (tolower(data[i + j]) != word[j]) {
				break;
			}
		}
		if (j == sizeof(word) - 1) {
			return true;
		}
	}
	return false;
}

/* "<path>:<line>: <key>: <why>", key and why not empty, line within the
 * file (0: the file as a whole). */
static void check_shape(const char *err, const uint8_t *data, size_t size)
{
	size_t n = strlen(path), lines = 1, i;
	const char *p = err + n, *key;
	unsigned long line;
	char *end;

	FUZZ_CHECK(!strncmp(err, path, n) && *p == ':', "no file in '%s'", err);
	p++;
	FUZZ_CHECK(isdigit((unsigned char)*p), "no line in '%s'", err);
	line = strtoul(p, &end, 10);
	p = end;
	for (i = 0; i < size; i++) {
		lines += data[i] == '\n';
	}
	FUZZ_CHECK(line <= lines, "line %lu of %zu in '%s'", line, lines, err);
	FUZZ_CHECK(p[0] == ':' && p[1] == ' ', "no line in '%s'", err);
	key = p + 2;
	p = strchr(key, ':');
	FUZZ_CHECK(p && p > key && *key != ' ' && p[1] == ' ' && p[2],
		   "no key in '%s'", err);
}

/* The key's text is a secret: "key: bad value 'AbCd...' (43 chars): ",
 * "'...' (8 chars)" or "'' (0 chars)", never more of it.  A key that is
 * not a string (key = 5) is quoted as any value is. */
static void check_secret(const char *err)
{
	static const char head[] = ": key: bad value '";
	const char *v = strstr(err, head), *q;
	size_t n;

	if (!v) {
		return;
	}
	v += sizeof(head) - 1;
	q = strstr(v, "' (");
	if (!q || !isdigit((unsigned char)q[3])) {
		return; /* not a string: show()'s quoting */
	}
	n = (size_t)(q - v);
	FUZZ_CHECK(n == 0 || (n == 3 && !strncmp(v, "...", 3)) ||
			   (n == 7 && !strncmp(v + 4, "...", 3)),
		   "key quoted as '%.*s' in '%s'", (int)n, v, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[CONF_ERR_MAX], small[24];
	struct conf c, poison;
	size_t cut;
	int ret;

	if (has_include(data, size)) {
		return -1;
	}
	put_input(data, size);
	memset(&poison, 0x5a, sizeof(poison));
	c = poison;
	memset(err, 0x5a, sizeof(err));
	ret = conf_load(&c, path, err, sizeof(err));
	if (!ret) {
		FUZZ_CHECK(err[0] == '\0', "error '%s' on success", err);
		fuzz_check_conf(&c);
		FUZZ_CHECK(c.role == ROLE_CONCENTRATOR || c.ncpes == 1,
			   "a CPE with %u CPEs", c.ncpes);
		conf_free(&c);
		FUZZ_CHECK(!c.cpe && !c.ncpes && !conf_has_key(&c),
			   "conf_free left CPEs or a key");
		return 0;
	}
	FUZZ_CHECK(ret == -EINVAL, "conf_load gave %d (%s)", ret, err);
	FUZZ_CHECK(!memcmp(&c, &poison, sizeof(c)), "struct changed on error");
	FUZZ_CHECK(fuzz_one_line(err, sizeof(err)) && err[0],
		   "not one line: '%s'", err);
	check_shape(err, data, size);
	check_secret(err);

	/* the same error, cut to a smaller buffer, and none at all */
	cut = 1 + (size ? data[size - 1] : 0) % sizeof(small);
	memset(small, 0x5a, sizeof(small));
	FUZZ_CHECK(conf_load(&c, path, small, cut) == ret, "second load");
	FUZZ_CHECK(strnlen(small, cut) < cut && !strncmp(small, err, cut - 1),
		   "cut to %zu: '%.*s' of '%s'", cut, (int)cut, small, err);
	FUZZ_CHECK(conf_load(&c, path, NULL, 0) == ret, "load without err");
	FUZZ_CHECK(!memcmp(&c, &poison, sizeof(c)), "struct changed on error");
	return 0;
}
