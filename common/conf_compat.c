/* SPDX-License-Identifier: BSD-2-Clause */
/* libconfig 1.5's integer wrap: a second, tiny lexer of libconfig's syntax.
 *
 * libconfig 1.5 reads a decimal integer literal with atoi() and a hex one
 * into an int, so "session_id = 4294967297" silently becomes 1; newer
 * versions promote such literals.  The library in use is asked once which
 * kind it wraps (conf_probe_wrap), and every file (conf_prescan) and every
 * value typed at l3bondctl (conf_scan_value) is read for such literals
 * before libconfig reads it: the error then names the key and says to
 * write an L suffix.  The prescan also gives the real errno of a file that
 * cannot be read (libconfig only says "file I/O error").  Drop this file
 * when no supported system ships libconfig 1.5 any more.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_priv.h"

/* libconfig 1.5 reads a decimal integer literal with atoi() and a hex one
 * into an int, so "session_id = 4294967297" silently becomes 1; it only
 * reads 64 bits with an L suffix.  Newer versions promote such literals.
 * Ask the library in use which kind it wraps. */
struct wrap conf_probe_wrap(void)
{
	struct wrap w = {false, false};
	long long v;
	config_t cfg;

	config_init(&cfg);
	if (config_read_string(&cfg, "d = 4294967297; h = 0x100000001;")) {
		w.dec = !config_lookup_int64(&cfg, "d", &v) ||
			v != 4294967297LL;
		w.hex = !config_lookup_int64(&cfg, "h", &v) ||
			v != 4294967297LL;
	}
	config_destroy(&cfg);
	return w;
}

static bool is_name_char(int ch)
{
	return isalnum(ch) || ch == '_' || ch == '-' || ch == '*';
}

/* Reads a number token that starts with ch; notes it in *wd if it is an
 * integer literal w says the library would wrap. */
static void scan_number(FILE *f, int ch, unsigned line, const char *key,
			struct wrap w, struct wide *wd)
{
	char tok[32];
	size_t len = 0;
	bool hex, flt = false, huge = false;
	const char *digits;
	unsigned long long u;
	long long v;
	int prev = 0;

	for (;;) {
		if (!(isalnum(ch) || ch == '.' ||
		      ((ch == '-' || ch == '+') &&
		       (len == 0 || prev == 'e' || prev == 'E')))) {
			break;
		}
		if (len + 1 < sizeof(tok)) {
			tok[len++] = (char)ch;
		} else {
			huge = true;
		}
		prev = ch;
		ch = getc(f);
	}
	if (ch != EOF) {
		ungetc(ch, f);
	}
	tok[len] = '\0';
	if (wd->line || prev == 'L') {
		return;
	}
	digits = tok + (tok[0] == '-' || tok[0] == '+');
	hex = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
	if (hex) {
		errno = 0;
		u = strtoull(digits + 2, NULL, 16);
		if (!w.hex || !(huge || errno == ERANGE || u > UINT32_MAX)) {
			return;
		}
	} else {
		flt = strpbrk(digits, ".eE") != NULL;
		errno = 0;
		v = strtoll(tok, NULL, 10);
		if (flt || !w.dec ||
		    !(huge || errno == ERANGE || v < INT_MIN || v > INT_MAX)) {
			return;
		}
	}
	wd->line = line;
	snprintf(wd->key, sizeof(wd->key), "%s", key);
	snprintf(wd->text, sizeof(wd->text), "%s%s", tok, huge ? "..." : "");
}

/* Reads the whole file once before libconfig does: this gives the real
 * errno for a file that cannot be read (libconfig only says "file I/O
 * error") and finds integer literals the library would wrap.  A tiny lexer
 * of libconfig's syntax: comments and strings are skipped, names are
 * remembered so the error can say which key the literal belongs to. */
int conf_prescan(const char *file, struct wrap w, struct wide *wd)
{
	char key[32] = "";
	unsigned line = 1;
	size_t len;
	int ch, nx, ret = 0;
	FILE *f;

	f = fopen(file, "r");
	if (!f) {
		return -errno;
	}
	while ((ch = getc(f)) != EOF) {
		if (ch == '\n') {
			line++;
		} else if (ch == '#' || ch == '/') {
			/* '#' and '//' both run to the end of the line */
			nx = ch == '#' ? '/' : getc(f);
			if (nx == '/') {
				while ((ch = getc(f)) != EOF && ch != '\n') {
				}
				line += ch == '\n';
			} else if (nx == '*') {
				for (ch = 0, nx = getc(f); nx != EOF;
				     ch = nx, nx = getc(f)) {
					line += nx == '\n';
					if (ch == '*' && nx == '/') {
						break;
					}
				}
			} else if (nx != EOF) {
				ungetc(nx, f);
			}
		} else if (ch == '"') {
			while ((ch = getc(f)) != EOF && ch != '"') {
				line += ch == '\n';
				if (ch == '\\' && getc(f) == '\n') {
					line++;
				}
			}
		} else if (isalpha(ch) || ch == '*') {
			for (len = 0; is_name_char(ch); ch = getc(f)) {
				if (len + 1 < sizeof(key)) {
					key[len++] = (char)ch;
				}
			}
			key[len] = '\0';
			if (ch != EOF) {
				ungetc(ch, f);
			}
		} else if (isdigit(ch) || ch == '.' || ch == '-' || ch == '+') {
			nx = getc(f);
			if (nx != EOF) {
				ungetc(nx, f);
			}
			if (isdigit(ch) || isdigit(nx) || nx == '.') {
				scan_number(f, ch, line, key, w, wd);
			}
		}
	}
	if (ferror(f)) {
		ret = errno ? -errno : -EIO;
	}
	fclose(f);
	return ret;
}

/* A typed value gets the prescan's check of a literal in the file: this
 * libconfig would wrap "t_dwd_ms 4294967496" to 200 just the same (found
 * by tests/fuzz/fuzz_conf_set). */
int conf_scan_value(const char *value, struct wide *wd)
{
	FILE *f;
	int ch;

	f = fmemopen((void *)value, strlen(value), "r");
	if (!f) {
		return -errno;
	}
	ch = getc(f);
	if (isdigit(ch) || ch == '.' || ch == '-' || ch == '+') {
		scan_number(f, ch, 1, "", conf_probe_wrap(), wd);
	}
	fclose(f);
	return 0;
}
