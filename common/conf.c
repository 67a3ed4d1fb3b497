/* The configuration file: libconfig syntax, read into a validated struct conf.
 *
 * Each key has one small parse_<key>() that checks type and range and stores
 * the value; two key tables (top level, path group) drive the walk, so
 * unknown keys, missing keys and the per-key checks all go through walk().
 * Rules that tie keys together (t_dwd_ms a multiple of t_report_ms, peer
 * against role, at least one fixed path) are checked once all keys are read.
 *
 * Everything is built in a private struct conf and copied out only when the
 * whole file is valid: a failed reload leaves the running config as it was.
 * Every error is one line "file:line: key: bad value 'v': why".
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"

enum {
	DEF_PORT = 7040,
	DEF_T_DWD_MS = 250,
	DEF_T_REPORT_MS = 50,
	DEF_W_FIXED = 50,
	DEF_W_MOBILE_MAX = 45,
	DEF_T_LTO_MS = 50,
	DEF_DWD_HOLD_MS = 3,
	DEF_CAPACITY = 4096,
	DEF_INGRESS_QUEUE = 0,
	DEF_EGRESS_QUEUE = 1,
	DEF_PROBE_INTERVAL_MS = 200,
	DEF_DEAD_AFTER_MS = 1000,
	/* keepalive_ms (deprecated): a path was down after this many */
	OLD_DEAD_KEEPALIVES = 3,
};
#define DEF_CONTROL_SOCKET  "/run/l3bond/l3bondd.sock"
#define DEF_CONTROL_GROUP   "l3bond"
#define DEF_K		    0.5

static const char *const role_names[] = {
	[ROLE_CPE] = "cpe",
	[ROLE_CONCENTRATOR] = "concentrator",
};

static const char *const class_names[] = {
	[PATH_FIXED] = "fixed",
	[PATH_MOBILE] = "mobile",
};

static const char *const log_level_names[] = {
	[CONF_LOG_ERROR] = "error",
	[CONF_LOG_WARNING] = "warning",
	[CONF_LOG_INFO] = "info",
	[CONF_LOG_DEBUG] = "debug",
};

struct loader {
	const char *file;
	char *err;
	size_t errlen;
	char key[48];	       /* the key being read, as errors name it */
	unsigned cur;	       /* index of the path group being read */
	uint32_t keepalive_ms; /* the deprecated key, 0: not given */
	struct conf c;
};

/* A key: a parse function of its own, or (parse NULL) an integer in
 * [min, max] stored, times scale, in the field at offset off of the object
 * (struct conf or struct conf_path); the field's width and whether it is a
 * double come from the field itself, so the table cannot disagree. */
struct key {
	const char *name;
	bool required;
	int (*parse)(struct loader *l, const config_setting_t *s, void *obj);
	long long min, max;
	size_t off;
	uint8_t size;
	bool is_double;
	uint32_t scale;
};

#define FIELD(obj, field) (((obj *)0)->field)
#define INT_KEY(name, req, obj, field, min, max, scale)                        \
	{                                                                      \
		name, req, NULL, min, max, offsetof(obj, field),               \
			sizeof(FIELD(obj, field)),                             \
			_Generic(FIELD(obj, field),                            \
			double: true,                                          \
			default: false),                                       \
			scale                                                  \
	}

/* ---- errors ---------------------------------------------------------- */

/* The value of s as the user wrote it, on one line, for quoting. */
static const char *show(const config_setting_t *s, char *buf, size_t n)
{
	bool hex = config_setting_get_format(s) == CONFIG_FORMAT_HEX;
	const char *str;
	size_t i, len;

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		/* a hex int is a bit pattern: 0xffffffff, not -1 */
		if (hex) {
			snprintf(buf, n, "0x%x",
				 (unsigned)config_setting_get_int(s));
		} else {
			snprintf(buf, n, "%d", config_setting_get_int(s));
		}
		break;
	case CONFIG_TYPE_INT64:
		if (hex) {
			snprintf(buf, n, "0x%llx",
				 (unsigned long long)config_setting_get_int64(
					 s));
		} else {
			snprintf(buf, n, "%lld", config_setting_get_int64(s));
		}
		break;
	case CONFIG_TYPE_FLOAT:
		snprintf(buf, n, "%g", config_setting_get_float(s));
		break;
	case CONFIG_TYPE_BOOL:
		snprintf(buf, n, "%s",
			 config_setting_get_bool(s) ? "true" : "false");
		break;
	case CONFIG_TYPE_STRING:
		/* keep the error on one line whatever the string holds */
		str = config_setting_get_string(s);
		len = strlen(str);
		for (i = 0; i < len && i + 1 < n; i++) {
			buf[i] = iscntrl((unsigned char)str[i]) ? '?' : str[i];
		}
		buf[i] = '\0';
		break;
	case CONFIG_TYPE_GROUP:
		snprintf(buf, n, "{...}");
		break;
	case CONFIG_TYPE_LIST:
		len = (size_t)config_setting_length(s);
		snprintf(buf, n, "(%zu %s)", len,
			 len == 1 ? "entry" : "entries");
		break;
	case CONFIG_TYPE_ARRAY:
		snprintf(buf, n, "[...]");
		break;
	default:
		snprintf(buf, n, "?");
		break;
	}
	return buf;
}

/* Errors go to the log and, from conf_set, to l3bondctl's line-based
 * replies: a key or value typed with a newline or other control character
 * (conf_set quotes what it refuses as it was given), or a file name
 * holding one, must not split the error.  Shown as '?', as show() does. */
static void one_line(char *err)
{
	for (; *err; err++) {
		if (iscntrl((unsigned char)*err)) {
			*err = '?';
		}
	}
}

/* Writes "file:line: key: [bad value 'value'[note]: ]why" and returns
 * -EINVAL.  at may be NULL (no place in the file: line 0); note (NULL: none)
 * follows the quoted value, as in "bad value 'AbCd...' (43 chars): ". */
static int __attribute__((format(printf, 5, 0)))
vfail(struct loader *l, const config_setting_t *at, const char *value,
      const char *note, const char *fmt, va_list ap)
{
	const char *file = l->file;
	unsigned line = 0;
	int n;

	if (!l->err || !l->errlen) {
		return -EINVAL;
	}
	if (at) {
		if (config_setting_source_file(at)) {
			file = config_setting_source_file(at);
		}
		line = config_setting_source_line(at);
	}
	if (!file) {
		/* conf_set: a value typed at l3bondctl, not a file's */
		n = value ? snprintf(l->err, l->errlen,
				     "%s: bad value '%s'%s: ", l->key, value,
				     note ? note : "")
			  : snprintf(l->err, l->errlen, "%s: ", l->key);
	} else if (value) {
		n = snprintf(l->err, l->errlen,
			     "%s:%u: %s: bad value '%s'%s: ", file, line,
			     l->key, value, note ? note : "");
	} else {
		n = snprintf(l->err, l->errlen, "%s:%u: %s: ", file, line,
			     l->key);
	}
	if (n >= 0 && (size_t)n < l->errlen) {
		vsnprintf(l->err + n, l->errlen - (size_t)n, fmt, ap);
	}
	one_line(l->err);
	return -EINVAL;
}

/* An error about the key itself (unknown, missing), at setting at. */
static int __attribute__((format(printf, 3, 4)))
fail(struct loader *l, const config_setting_t *at, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(l, at, NULL, NULL, fmt, ap);
	va_end(ap);
	return ret;
}

/* A bad value: quotes the value of s. */
static int __attribute__((format(printf, 3, 4)))
bad(struct loader *l, const config_setting_t *s, const char *fmt, ...)
{
	char value[96];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(l, s, show(s, value, sizeof(value)), NULL, fmt, ap);
	va_end(ap);
	return ret;
}

/* A bad value that is not s's own (a default checked against s). */
static int __attribute__((format(printf, 4, 5)))
bad_at(struct loader *l, const config_setting_t *at, const char *value,
       const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(l, at, value, NULL, fmt, ap);
	va_end(ap);
	return ret;
}

static int __attribute__((format(printf, 5, 6)))
vfail_note(struct loader *l, const config_setting_t *at, const char *value,
	   const char *note, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(l, at, value, note, fmt, ap);
	va_end(ap);
	return ret;
}

/* A bad secret: quotes at most its first 4 characters, and its length.
 * A key that is nearly right (one character short, a space pasted in) is
 * still nearly the secret, and errors go to logs and l3bondctl replies. */
static int bad_secret(struct loader *l, const config_setting_t *s,
		      const char *v, const char *why)
{
	char shown[8], note[32];
	size_t len = strlen(v);

	/* a short text shows nothing: 4 characters would be most of it */
	if (len >= 16) {
		snprintf(shown, sizeof(shown), "%.4s...", v);
	} else {
		snprintf(shown, sizeof(shown), "%s", len ? "..." : "");
	}
	snprintf(note, sizeof(note), " (%zu chars)", len);
	return vfail_note(l, s, shown, note, "%s", why);
}

static void set_key(struct loader *l, const char *prefix, const char *name)
{
	snprintf(l->key, sizeof(l->key), "%s%s", prefix, name);
}

/* ---- typed getters: check the type, then the range ------------------- */

static int get_int(struct loader *l, const config_setting_t *s, long long min,
		   long long max, long long *out)
{
	long long v;

	*out = 0; /* for -O3's maybe-uninitialized */

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		/* libconfig stores 0x80000000..0xffffffff in a 32-bit int
		 * as negative numbers; a hex literal means the bit pattern */
		if (config_setting_get_format(s) == CONFIG_FORMAT_HEX) {
			v = (uint32_t)config_setting_get_int(s);
		} else {
			v = config_setting_get_int(s);
		}
		break;
	case CONFIG_TYPE_INT64:
		v = config_setting_get_int64(s);
		break;
	default:
		return bad(l, s, "expected an integer");
	}
	if (v < min || v > max) {
		return bad(l, s, "out of range %lld..%lld", min, max);
	}
	*out = v;
	return 0;
}

/* A number: float or integer, finite, within [min, max]. */
static int get_number(struct loader *l, const config_setting_t *s, double min,
		      double max, double *out)
{
	double v;

	*out = 0; /* for -O3's maybe-uninitialized */

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		v = (double)config_setting_get_int64(s);
		break;
	case CONFIG_TYPE_FLOAT:
		v = config_setting_get_float(s);
		break;
	default:
		return bad(l, s, "expected a number");
	}
	if (!isfinite(v)) {
		return bad(l, s, "not a finite number");
	}
	if (v < min || v > max) {
		return bad(l, s, "out of range %g..%g", min, max);
	}
	*out = v;
	return 0;
}

static int get_bool(struct loader *l, const config_setting_t *s, bool *out)
{
	*out = false; /* for -O3's maybe-uninitialized */
	if (config_setting_type(s) != CONFIG_TYPE_BOOL) {
		return bad(l, s, "expected true or false");
	}
	*out = config_setting_get_bool(s);
	return 0;
}

/* A string of 1..maxlen characters. */
static int get_string(struct loader *l, const config_setting_t *s,
		      size_t maxlen, const char **out)
{
	const char *v;
	size_t len;

	*out = ""; /* for -O3's maybe-uninitialized */
	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		return bad(l, s, "expected a string");
	}
	v = config_setting_get_string(s);
	len = strlen(v);
	if (len < 1 || len > maxlen) {
		return bad(l, s, "must be 1 to %zu characters long", maxlen);
	}
	*out = v;
	return 0;
}

/* One of names[0..n-1]; the index goes to *out. */
static int get_choice(struct loader *l, const config_setting_t *s,
		      const char *const *names, size_t n, unsigned *out)
{
	const char *v;
	unsigned i;

	*out = 0; /* for -O3's maybe-uninitialized */
	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		return bad(l, s, "expected a string");
	}
	v = config_setting_get_string(s);
	for (i = 0; i < n; i++) {
		if (!strcmp(v, names[i])) {
			*out = i;
			return 0;
		}
	}
	/* every choice set we have has exactly two members */
	return bad(l, s, "expected \"%s\" or \"%s\"", names[0], names[n - 1]);
}

/* ---- one parser per key ---------------------------------------------- */

static int parse_int(struct loader *l, const config_setting_t *s, void *obj,
		     const struct key *k)
{
	uint8_t *dst = (uint8_t *)obj + k->off;
	long long v;
	uint32_t u32;
	uint16_t u16;
	double d;
	int ret;

	ret = get_int(l, s, k->min, k->max, &v);
	if (ret) {
		return ret;
	}
	v *= k->scale;
	if (k->is_double) {
		d = (double)v;
		memcpy(dst, &d, sizeof(d));
	} else if (k->size == sizeof(u16)) {
		u16 = (uint16_t)v;
		memcpy(dst, &u16, sizeof(u16));
	} else if (k->size == sizeof(u32)) {
		u32 = (uint32_t)v;
		memcpy(dst, &u32, sizeof(u32));
	} else {
		return bad(l, s, "internal error: field of %u bytes", k->size);
	}
	return 0;
}

static int parse_role(struct loader *l, const config_setting_t *s, void *obj)
{
	struct conf *c = obj;
	unsigned v;
	int ret;

	ret = get_choice(l, s, role_names, 2, &v);
	if (!ret) {
		c->role = (enum conf_role)v;
	}
	return ret;
}

static int parse_k(struct loader *l, const config_setting_t *s, void *obj)
{
	struct conf *c = obj;

	return get_number(l, s, 0, 10, &c->sched.k);
}

static int parse_early_release(struct loader *l, const config_setting_t *s,
			       void *obj)
{
	struct conf *c = obj;

	return get_bool(l, s, &c->reseq.early_release);
}

static int parse_reorder_capacity(struct loader *l, const config_setting_t *s,
				  void *obj)
{
	struct conf *c = obj;
	long long v;
	int ret;

	ret = get_int(l, s, 16, 1048576, &v);
	if (ret) {
		return ret;
	}
	/* the resequencer indexes its slots with gseq & (capacity - 1) */
	if (v & (v - 1)) {
		return bad(l, s, "not a power of two");
	}
	c->reseq.capacity = (uint32_t)v;
	return 0;
}

/* A pre-shared key, base64 of 32 bytes, into k (zeroed on error).  The
 * text libconfig holds is wiped by conf_load once read (wipe_key_text). */
static int get_key(struct loader *l, const config_setting_t *s,
		   struct auth_key *k)
{
	const char *v, *why = "not 32 bytes of base64";

	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		return bad(l, s,
			   "expected a string: base64 of 32 bytes, as "
			   "l3bondd --genkey prints");
	}
	v = config_setting_get_string(s);
	if (auth_key_parse(k, v, &why)) {
		return bad_secret(l, s, v, why);
	}
	return 0;
}

static int parse_key(struct loader *l, const config_setting_t *s, void *obj)
{
	struct conf *c = obj;

	return get_key(l, s, &c->psk);
}

static int parse_encrypt(struct loader *l, const config_setting_t *s, void *obj)
{
	struct conf *c = obj;

	return get_bool(l, s, &c->encrypt);
}

static int parse_name(struct loader *l, const config_setting_t *s, void *obj)
{
	struct conf_path *p = obj;
	const char *v;
	unsigned i;
	int ret;

	ret = get_string(l, s, CONF_NAME_MAX - 1, &v);
	if (ret) {
		return ret;
	}
	/* names end up in metrics labels and l3bondctl output */
	if (strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(v)) {
		return bad(l, s, "only a-z, 0-9, '_' and '-' are allowed");
	}
	for (i = 0; i < l->cur; i++) {
		if (!strcmp(l->c.path[i].name, v)) {
			return bad(l, s, "paths[%u] has the same name", i);
		}
	}
	strcpy(p->name, v);
	return 0;
}

static int parse_class(struct loader *l, const config_setting_t *s, void *obj)
{
	struct conf_path *p = obj;
	unsigned v;
	int ret;

	ret = get_choice(l, s, class_names, 2, &v);
	if (!ret) {
		p->cls = (enum path_class)v;
	}
	return ret;
}

/* An interface name that can exist (the kernel's dev_valid_name()) and
 * that the rules can carry as it is: iptables reads a trailing '+' as a
 * wildcard, and a quote or backslash would break the nft text. */
static int check_ifname(struct loader *l, const config_setting_t *s,
			const char *v)
{
	const char *ch;

	if (!strcmp(v, ".") || !strcmp(v, "..")) {
		return bad(l, s, "not a valid interface name");
	}
	for (ch = v; *ch; ch++) {
		if (!isalnum((unsigned char)*ch) && !strchr("_.-@", *ch)) {
			return bad(l, s,
				   "only letters, digits and _ . - @ are "
				   "allowed in an interface name");
		}
	}
	return 0;
}

static int parse_interface(struct loader *l, const config_setting_t *s,
			   void *obj)
{
	struct conf_path *p = obj;
	const char *v;
	int ret;

	ret = get_string(l, s, IF_NAMESIZE - 1, &v);
	if (ret) {
		return ret;
	}
	ret = check_ifname(l, s, v);
	if (ret) {
		return ret;
	}
	strcpy(p->ifname, v);
	return 0;
}

static int parse_peer(struct loader *l, const config_setting_t *s, void *obj)
{
	struct conf_path *p = obj;
	unsigned char addr[sizeof(struct in6_addr)];
	const char *v;
	int ret;

	ret = get_string(l, s, CONF_ADDR_MAX - 1, &v);
	if (ret) {
		return ret;
	}
	if (l->c.role == ROLE_CONCENTRATOR) {
		return bad(l, s,
			   "not allowed with role \"concentrator\": the "
			   "concentrator learns its peers from the packets "
			   "it receives");
	}
	if (inet_pton(AF_INET, v, addr) != 1 &&
	    inet_pton(AF_INET6, v, addr) != 1) {
		return bad(l, s, "not an IPv4 or IPv6 address");
	}
	strcpy(p->peer, v);
	return 0;
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the daemon's keys ----------------------------------------------- */

/* The elements of a list ( ... ) or array [ ... ] of 1..max entries. */
static int get_seq(struct loader *l, const config_setting_t *s, unsigned max,
		   const char *what, unsigned *n)
{
	*n = 0; /* for -O3's maybe-uninitialized */
	if (!config_setting_is_list(s) && !config_setting_is_array(s)) {
		return bad(l, s, "expected a list of %s [ \"...\", ... ]",
			   what);
	}
	*n = (unsigned)config_setting_length(s);
	if (*n < 1 || *n > max) {
		return bad(l, s, "need 1 to %u %s", max, what);
	}
	return 0;
}

static int parse_lan_interfaces(struct loader *l, const config_setting_t *s,
				void *obj)
{
	struct conf *c = obj;
	const config_setting_t *e;
	const char *v;
	unsigned i, j, n;
	int ret;

	if (c->role != ROLE_CPE) {
		return bad(l, s, "only allowed with role \"cpe\"");
	}
	ret = get_seq(l, s, CONF_LAN_MAX, "interfaces", &n);
	if (ret) {
		return ret;
	}
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, i);
		snprintf(l->key, sizeof(l->key), "lan_interfaces[%u]", i);
		ret = get_string(l, e, IF_NAMESIZE - 1, &v);
		if (ret) {
			return ret;
		}
		ret = check_ifname(l, e, v);
		if (ret) {
			return ret;
		}
		for (j = 0; j < i; j++) {
			if (!strcmp(c->lan[j], v)) {
				return bad(l, e,
					   "lan_interfaces[%u] is the "
					   "same",
					   j);
			}
		}
		/* bonding a path's own traffic would loop it */
		for (j = 0; j < c->npaths; j++) {
			if (!strcmp(c->path[j].ifname, v)) {
				return bad(l, e, "the interface of paths[%u]",
					   j);
			}
		}
		strcpy(c->lan[i], v);
	}
	c->nlan = n;
	return 0;
}

static int parse_bond_output(struct loader *l, const config_setting_t *s,
			     void *obj)
{
	struct conf *c = obj;
	int ret;

	ret = get_bool(l, s, &c->bond_output);
	if (!ret && c->role != ROLE_CPE) {
		c->bond_output = false;
		return bad(l, s, "only allowed with role \"cpe\"");
	}
	return ret;
}

/* True if any of the bits of a (n bytes) from bit len on is set. */
static bool host_bits(const uint8_t *a, size_t n, unsigned len)
{
	size_t i;

	for (i = len / 8; i < n; i++) {
		uint8_t m = i == len / 8 ? (uint8_t)(0xff >> (len % 8)) : 0xff;

		if (a[i] & m) {
			return true;
		}
	}
	return false;
}

/* "a.b.c.d/len" or "x:y::/len" with the host bits clear. */
static int get_prefix(struct loader *l, const config_setting_t *e,
		      struct conf_prefix *p)
{
	char buf[CONF_ADDR_MAX], *slash, *end;
	uint8_t a[16];
	unsigned long len, max;
	const char *v;
	bool v6;
	int ret;

	ret = get_string(l, e, CONF_ADDR_MAX - 1, &v);
	if (ret) {
		return ret;
	}
	strcpy(buf, v);
	slash = strchr(buf, '/');
	if (!slash) {
		return bad(l, e, "expected a prefix a.b.c.d/len or x:y::/len");
	}
	*slash = '\0';
	v6 = strchr(buf, ':') != NULL;
	if (inet_pton(v6 ? AF_INET6 : AF_INET, buf, a) != 1) {
		return bad(l, e,
			   v6 ? "expected an IPv6 prefix x:y::/len"
			      : "expected an IPv4 prefix a.b.c.d/len");
	}
	max = v6 ? 128 : 32;
	errno = 0;
	len = strtoul(slash + 1, &end, 10);
	if (!isdigit((unsigned char)slash[1]) || *end || errno || len > max) {
		return bad(l, e, "prefix length must be 0..%lu", max);
	}
	if (host_bits(a, v6 ? 16 : 4, (unsigned)len)) {
		return bad(l, e, "host bits set");
	}
	memset(p, 0, sizeof(*p));
	p->v6 = v6;
	p->len = (uint8_t)len;
	if (v6) {
		memcpy(p->addr6, a, 16);
	} else {
		memcpy(&p->addr, a, 4);
	}
	return 0;
}

static bool prefix_same(const struct conf_prefix *a,
			const struct conf_prefix *b)
{
	return a->v6 == b->v6 && a->len == b->len &&
	       (a->v6 ? !memcmp(a->addr6, b->addr6, 16) : a->addr == b->addr);
}

/* A list of at least min prefixes, none twice, into out; name: the key,
 * as errors name its elements ("prefixes[2]"). */
static int get_prefixes(struct loader *l, const config_setting_t *s,
			const char *name, struct conf_prefix *out,
			unsigned *nout, unsigned min)
{
	const config_setting_t *e;
	char key[32];
	unsigned i, j, n;
	int ret;

	snprintf(key, sizeof(key), "%s", name);
	ret = get_seq(l, s, CONF_PREFIX_MAX, key, &n);
	if (ret) {
		return ret;
	}
	if (n < min) {
		return bad(l, s, "at least %u prefix needed", min);
	}
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, i);
		snprintf(l->key, sizeof(l->key), "%s[%u]", key, i);
		ret = get_prefix(l, e, &out[i]);
		if (ret) {
			return ret;
		}
		for (j = 0; j < i; j++) {
			if (prefix_same(&out[j], &out[i])) {
				return bad(l, e, "%s[%u] is the same", key, j);
			}
		}
	}
	*nout = n;
	return 0;
}

static int parse_prefixes(struct loader *l, const config_setting_t *s,
			  void *obj)
{
	struct conf *c = obj;

	if (c->role != ROLE_CONCENTRATOR) {
		return bad(l, s, "only allowed with role \"concentrator\"");
	}
	return get_prefixes(l, s, "prefixes", c->prefix, &c->nprefixes, 0);
}

static int parse_log_level(struct loader *l, const config_setting_t *s,
			   void *obj)
{
	struct conf *c = obj;
	const char *v;
	unsigned i;

	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		return bad(l, s, "expected a string");
	}
	v = config_setting_get_string(s);
	for (i = 0; i < ARRAY_SIZE(log_level_names); i++) {
		if (!strcmp(v, log_level_names[i])) {
			c->log_level = (enum conf_log_level)i;
			return 0;
		}
	}
	return bad(l, s,
		   "expected \"error\", \"warning\", \"info\" or \"debug\"");
}

/* keepalive_ms, replaced by probe_interval_ms and dead_after_ms: accepted
 * so that a file written for an earlier l3bondd still starts it, with the
 * detection time it had (3 x keepalive_ms) when dead_after_ms is not given
 * (check_liveness).  Not a runtime setting any more. */
static int parse_keepalive(struct loader *l, const config_setting_t *s,
			   void *obj)
{
	long long v;
	int ret;

	(void)obj;
	ret = get_int(l, s, 100, 1000, &v);
	if (!ret) {
		l->keepalive_ms = (uint32_t)v;
	}
	return ret;
}

/* "" (no socket) or an absolute path that fits sun_path. */
static int parse_control_socket(struct loader *l, const config_setting_t *s,
				void *obj)
{
	struct conf *c = obj;
	const char *v;

	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		return bad(l, s, "expected a string");
	}
	v = config_setting_get_string(s);
	if (*v && *v != '/') {
		return bad(l, s, "expected an absolute path, or \"\" for none");
	}
	if (strlen(v) >= sizeof(c->control_socket)) {
		return bad(l, s, "longer than %zu characters",
			   sizeof(c->control_socket) - 1);
	}
	strcpy(c->control_socket, v);
	return 0;
}

/* A group name as useradd accepts it. */
static int parse_control_group(struct loader *l, const config_setting_t *s,
			       void *obj)
{
	struct conf *c = obj;
	const char *v;
	size_t i;
	int ret;

	ret = get_string(l, s, sizeof(c->control_group) - 1, &v);
	if (ret) {
		return ret;
	}
	for (i = 0; v[i]; i++) {
		if (!(islower((unsigned char)v[i]) || v[i] == '_' ||
		      (i && (isdigit((unsigned char)v[i]) || v[i] == '-')))) {
			return bad(l, s,
				   "expected a group name: a-z or _, then "
				   "a-z 0-9 _ -");
		}
	}
	strcpy(c->control_group, v);
	return 0;
}

/* metrics_port and metrics_address were the daemon's HTTP listener; the
 * daemon serves no HTTP now (the exporter asks its control socket): a
 * config that still has them would silently lose its scrape endpoint. */
static int parse_moved_to_exporter(struct loader *l,
				   const config_setting_t *s, void *obj)
{
	(void)obj;
	return fail(l, s,
		    "moved to l3bond-exporter (its --listen and --port): "
		    "l3bondd serves no HTTP");
}

static int parse_paths(struct loader *l, const config_setting_t *s, void *obj);
static int parse_cpes(struct loader *l, const config_setting_t *s, void *obj);
static int parse_cpe_dir(struct loader *l, const config_setting_t *s,
			 void *obj);

/* role comes before paths: a path's peer is checked against it */
static const struct key top_keys[] = {
	{"role", true, parse_role},
	/* both required but on a concentrator with cpes or cpe_dir:
	 * check_top */
	INT_KEY("session_id", false, struct conf, session_id, 1, UINT32_MAX, 1),
	{"key", false, parse_key},
	{"encrypt", false, parse_encrypt},
	INT_KEY("port", false, struct conf, port, 1, UINT16_MAX, 1),
	{"k", false, parse_k},
	INT_KEY("t_dwd_ms", false, struct conf, sched.t_dwd_ms, 0, 60000, 1),
	INT_KEY("t_report_ms", false, struct conf, sched.t_report_ms, 10, 10000,
		1),
	INT_KEY("w_fixed", false, struct conf, sched.w_fixed, 1, 1000, 1),
	INT_KEY("w_mobile_max", false, struct conf, sched.w_mobile_max, 0, 1000,
		1),
	INT_KEY("t_lto_ms", false, struct conf, reseq.t_lto_us, 1, 10000, 1000),
	{"early_release", false, parse_early_release},
	INT_KEY("dwd_hold_ms", false, struct conf, sched.dwd_hold_us, 0, 1000,
		1000),
	{"reorder_capacity", false, parse_reorder_capacity},
	{"paths", true, parse_paths},
	/* after paths: lan_interfaces are checked against the paths' */
	INT_KEY("ingress_queue", false, struct conf, ingress_queue, 0,
		UINT16_MAX, 1),
	INT_KEY("egress_queue", false, struct conf, egress_queue, 0, UINT16_MAX,
		1),
	{"lan_interfaces", false, parse_lan_interfaces},
	{"bond_output", false, parse_bond_output},
	{"prefixes", false, parse_prefixes},
	/* after the top-level CPE's keys: they are the first CPE */
	{"cpes", false, parse_cpes},
	{"cpe_dir", false, parse_cpe_dir},
	INT_KEY("release_mark", false, struct conf, release_mark, 0, UINT32_MAX,
		1),
	{"log_level", false, parse_log_level},
	INT_KEY("probe_interval_ms", false, struct conf, probe_interval_ms, 20,
		1000, 1),
	INT_KEY("dead_after_ms", false, struct conf, dead_after_ms, 100, 10000,
		1),
	{"keepalive_ms", false, parse_keepalive},
	{"control_socket", false, parse_control_socket},
	{"control_group", false, parse_control_group},
	{"metrics_port", false, parse_moved_to_exporter},
	{"metrics_address", false, parse_moved_to_exporter},
};

/* What l3bondctl set may change while the daemon runs: the tunables that
 * SIGHUP applies without a restart. */
static const char *const runtime_keys[] = {
	"k",
	"t_dwd_ms",
	"t_report_ms",
	"w_fixed",
	"w_mobile_max",
	"t_lto_ms",
	"dwd_hold_ms",
	"early_release",
	"log_level",
	"probe_interval_ms",
	"dead_after_ms",
};

static const struct key path_keys[] = {
	{"name", true, parse_name},
	{"class", true, parse_class},
	{"interface", true, parse_interface},
	INT_KEY("fwmark", false, struct conf_path, fwmark, 0, UINT32_MAX, 1),
	{"peer", false, parse_peer},
	INT_KEY("peer_port", false, struct conf_path, peer_port, 1, UINT16_MAX,
		1),
	/* 576: the least every IPv4 host must take (RFC 791) */
	INT_KEY("mtu", false, struct conf_path, mtu, 576, 65535, 1),
};

/* What a missing required key's error adds to "missing". */
static const char *missing_hint(const char *name)
{
	if (!strcmp(name, "key")) {
		return ": generate one with l3bondd --genkey";
	}
	return "";
}

/* Reads group's keys into obj.  Unknown keys are looked for first, so that
 * a misspelt key is reported as such and not as the right one missing. */
static int walk(struct loader *l, const config_setting_t *group,
		const char *prefix, const struct key *keys, size_t nkeys,
		void *obj)
{
	const config_setting_t *s;
	const struct key *k;
	int i, n, ret;

	n = config_setting_length(group);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(group, (unsigned)i);
		for (k = keys; k < keys + nkeys; k++) {
			if (!strcmp(k->name, config_setting_name(s))) {
				break;
			}
		}
		if (k == keys + nkeys) {
			set_key(l, prefix, config_setting_name(s));
			return fail(l, s, "unknown key");
		}
	}
	for (k = keys; k < keys + nkeys; k++) {
		set_key(l, prefix, k->name);
		s = config_setting_get_member(group, k->name);
		if (!s) {
			if (k->required) {
				return fail(l, group, "missing%s",
					    missing_hint(k->name));
			}
			continue;
		}
		ret = k->parse ? k->parse(l, s, obj) : parse_int(l, s, obj, k);
		if (ret) {
			return ret;
		}
	}
	return 0;
}

static int parse_paths(struct loader *l, const config_setting_t *s, void *obj)
{
	struct conf *c = obj;
	const config_setting_t *e;
	char prefix[24];
	unsigned i, n;
	int ret;

	if (!config_setting_is_list(s)) {
		return bad(l, s,
			   "expected a list of path groups "
			   "( { ... }, { ... } )");
	}
	n = (unsigned)config_setting_length(s);
	if (n < 2 || n > WIRE_MAX_PATHS) {
		return bad(l, s, "need 2 to %d paths", WIRE_MAX_PATHS);
	}
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, i);
		snprintf(prefix, sizeof(prefix), "paths[%u]", i);
		if (!config_setting_is_group(e)) {
			set_key(l, prefix, "");
			return bad(l, e, "expected a path group { ... }");
		}
		strcat(prefix, ".");
		l->cur = i;
		ret = walk(l, e, prefix, path_keys, ARRAY_SIZE(path_keys),
			   &c->path[i]);
		if (ret) {
			return ret;
		}
		if (c->role == ROLE_CPE && !c->path[i].peer[0]) {
			set_key(l, prefix, "peer");
			return fail(l, e,
				    "missing: required with role \"cpe\"");
		}
	}
	c->npaths = n;

	for (i = 0; i < n; i++) {
		if (c->path[i].cls == PATH_FIXED) {
			return 0;
		}
	}
	set_key(l, "", "paths");
	return bad(l, s, "no path of class \"fixed\"; at least one is needed");
}

/* DWD counts quiet report intervals, so T_dwd must be whole intervals. */
static int check_dwd(struct loader *l, const config_setting_t *root)
{
	const config_setting_t *dwd, *report;
	char value[16];

	if (l->c.sched.t_dwd_ms % l->c.sched.t_report_ms == 0) {
		return 0;
	}
	set_key(l, "", "t_dwd_ms");
	dwd = config_setting_get_member(root, "t_dwd_ms");
	if (dwd) {
		return bad(l, dwd, "not a multiple of t_report_ms (%u)",
			   l->c.sched.t_report_ms);
	}
	/* the default does not fit the t_report_ms given: point there */
	report = config_setting_get_member(root, "t_report_ms");
	snprintf(value, sizeof(value), "%u", l->c.sched.t_dwd_ms);
	return bad_at(l, report, value,
		      "the default is not a multiple of t_report_ms (%u)",
		      l->c.sched.t_report_ms);
}

/* A path is down after dead_after_ms without a packet from the peer, who
 * probes every probe_interval_ms (when no REPORT or DATA comes): one lost
 * probe must not take a path down, so at least two intervals.  The
 * deprecated keepalive_ms stands for dead_after_ms = 3 x keepalive_ms when
 * dead_after_ms is not given (raised to two probe intervals if needed). */
static int check_liveness(struct loader *l, const config_setting_t *root)
{
	const config_setting_t *dead, *probe;
	uint32_t need = 2 * l->c.probe_interval_ms;
	char value[16];

	dead = config_setting_get_member(root, "dead_after_ms");
	if (l->keepalive_ms && !dead) {
		l->c.dead_after_ms = OLD_DEAD_KEEPALIVES * l->keepalive_ms;
		if (l->c.dead_after_ms < need) {
			l->c.dead_after_ms = need;
		}
	}
	if (l->c.dead_after_ms >= need) {
		return 0;
	}
	if (dead) {
		set_key(l, "", "dead_after_ms");
		return bad(l, dead,
			   "less than 2 x probe_interval_ms (%u): one lost "
			   "probe would take a path down",
			   l->c.probe_interval_ms);
	}
	/* the default does not fit the probe_interval_ms given: point there */
	set_key(l, "", "probe_interval_ms");
	probe = config_setting_get_member(root, "probe_interval_ms");
	snprintf(value, sizeof(value), "%u", l->c.probe_interval_ms);
	return bad_at(l, probe, value,
		      "more than half of dead_after_ms (%u, the default): "
		      "set dead_after_ms too",
		      l->c.dead_after_ms);
}

/* The two queues must differ: one is drained by the ingress, one by the
 * egress. */
static int check_queues(struct loader *l, const config_setting_t *root)
{
	const config_setting_t *s;

	if (l->c.ingress_queue != l->c.egress_queue) {
		return 0;
	}
	s = config_setting_get_member(root, "egress_queue");
	if (s) {
		set_key(l, "", "egress_queue");
		return bad(l, s, "the same queue as ingress_queue");
	}
	set_key(l, "", "ingress_queue");
	s = config_setting_get_member(root, "ingress_queue");
	return bad(l, s, "the same queue as the default egress_queue (%u)",
		   (unsigned)DEF_EGRESS_QUEUE);
}

/* ---- reading the file ------------------------------------------------ */

/* libconfig 1.5 reads a decimal integer literal with atoi() and a hex one
 * into an int, so "session_id = 4294967297" silently becomes 1; it only
 * reads 64 bits with an L suffix.  Newer versions promote such literals.
 * Ask the library in use which kind it wraps. */
struct wrap {
	bool dec;
	bool hex;
};

static struct wrap probe_wrap(void)
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

/* The first integer literal the library would wrap. */
struct wide {
	unsigned line;
	char key[32];
	char text[40];
};

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
static int prescan(const char *file, struct wrap w, struct wide *wd)
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

/* The CPE of the top-level keys: the box itself on a CPE, the one CPE of
 * a plain concentrator config. */
static void top_cpe(struct conf *c)
{
	struct conf_cpe *e = &c->cpe[0];

	unsigned i;

	memset(e, 0, sizeof(*e));
	e->session_id = c->session_id;
	e->psk = c->psk;
	e->encrypt = c->encrypt;
	for (i = 0; i < c->nprefixes; i++) {
		e->prefix[i] = c->prefix[i];
	}
	e->nprefixes = i;
	c->ncpes = 1;
}

/* Before a concentrator's cpes or cpe_dir: the top-level CPE, if the file
 * has one, comes first (all its keys come before those in the table). */
static void top_first(struct conf *c)
{
	if (c->session_id && !c->ncpes) {
		top_cpe(c);
	}
}

/* ---- CPEs (concentrator: cpes, cpe_dir) -------------------------------- */

/* The object a CPE group is read into: the entry, and the loader's CPE
 * index for the checks against the others. */
static int parse_cpe_name(struct loader *l, const config_setting_t *s,
			  void *obj)
{
	struct conf_cpe *e = obj;
	const char *v;
	int ret;

	ret = get_string(l, s, CONF_NAME_MAX - 1, &v);
	if (ret) {
		return ret;
	}
	/* names end up in metrics labels, status keys and log lines */
	if (!*v ||
	    strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(v)) {
		return bad(l, s, "1 to %d of a-z, 0-9, '_' and '-'",
			   CONF_NAME_MAX - 1);
	}
	strcpy(e->name, v);
	return 0;
}

static int parse_cpe_key(struct loader *l, const config_setting_t *s, void *obj)
{
	struct conf_cpe *e = obj;

	return get_key(l, s, &e->psk);
}

static int parse_cpe_encrypt(struct loader *l, const config_setting_t *s,
			     void *obj)
{
	struct conf_cpe *e = obj;

	return get_bool(l, s, &e->encrypt);
}

static int parse_cpe_prefixes(struct loader *l, const config_setting_t *s,
			      void *obj)
{
	struct conf_cpe *e = obj;
	char prefix[48];

	snprintf(prefix, sizeof(prefix), "%s", l->key);
	return get_prefixes(l, s, prefix, e->prefix, &e->nprefixes, 1);
}

static const struct key cpe_keys[] = {
	{"name", true, parse_cpe_name},
	INT_KEY("session_id", true, struct conf_cpe, session_id, 1, UINT32_MAX,
		1),
	{"key", true, parse_cpe_key},
	{"encrypt", false, parse_cpe_encrypt},
	{"prefixes", true, parse_cpe_prefixes},
};

/* The i-th CPE, as errors name it. */
static const char *cpe_label(const struct conf *c, unsigned i, char *buf,
			     size_t n)
{
	if (c->cpe[i].name[0]) {
		snprintf(buf, n, "CPE \"%s\"", c->cpe[i].name);
	} else {
		snprintf(buf, n, "the top-level CPE");
	}
	return buf;
}

bool conf_prefix_overlap(const struct conf_prefix *a,
			 const struct conf_prefix *b)
{
	unsigned len = a->len < b->len ? a->len : b->len, i;
	const uint8_t *x = a->v6 ? a->addr6 : (const uint8_t *)&a->addr;
	const uint8_t *y = b->v6 ? b->addr6 : (const uint8_t *)&b->addr;

	if (a->v6 != b->v6) {
		return false;
	}
	for (i = 0; i < len / 8; i++) {
		if (x[i] != y[i]) {
			return false;
		}
	}
	return len % 8 == 0 ||
	       !((x[len / 8] ^ y[len / 8]) & (uint8_t)(0xff << (8 - len % 8)));
}

const char *conf_prefix_str(const struct conf_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (p->v6) {
		inet_ntop(AF_INET6, p->addr6, a, sizeof(a));
	} else {
		inet_ntop(AF_INET, &p->addr, a, sizeof(a));
	}
	snprintf(buf, len, "%s/%u", a, p->len);
	return buf;
}

/* CPE i (just read, at setting at) against the ones before it: the session
 * id, the name, the key and every address must be its own. */
static int check_cpe(struct loader *l, const config_setting_t *at, unsigned i)
{
	const struct conf *c = &l->c;
	const struct conf_cpe *e = &c->cpe[i];
	char other[CONF_NAME_MAX + 24], pa[INET6_ADDRSTRLEN + 4],
		pb[INET6_ADDRSTRLEN + 4];
	unsigned j, a, b;

	for (j = 0; j < i; j++) {
		const struct conf_cpe *o = &c->cpe[j];

		cpe_label(c, j, other, sizeof(other));
		if (o->session_id == e->session_id) {
			return fail(l, at, "session_id %u: %s has it too",
				    e->session_id, other);
		}
		if (e->name[0] && !strcmp(o->name, e->name)) {
			return fail(l, at, "name \"%s\": %s has it too",
				    e->name, other);
		}
		/* one key per CPE: the key is what tells CPEs apart */
		if (auth_key_equal(&o->psk, &e->psk)) {
			return fail(l, at,
				    "key: %s has the same key; each CPE needs "
				    "its own (l3bondd --genkey)",
				    other);
		}
		for (a = 0; a < e->nprefixes; a++) {
			for (b = 0; b < o->nprefixes; b++) {
				if (!conf_prefix_overlap(&e->prefix[a],
							 &o->prefix[b])) {
					continue;
				}
				return fail(l, at,
					    "prefix %s overlaps %s of %s",
					    conf_prefix_str(&e->prefix[a], pa,
							    sizeof(pa)),
					    conf_prefix_str(&o->prefix[b], pb,
							    sizeof(pb)),
					    other);
			}
		}
	}
	return 0;
}

/* Reads one CPE group into the next entry. */
static int read_cpe(struct loader *l, const config_setting_t *g,
		    const char *prefix, const char *default_name)
{
	struct conf *c = &l->c;
	struct conf_cpe *e;
	char key[48];
	int ret;

	if (c->ncpes >= CONF_CPE_MAX) {
		set_key(l, prefix, "");
		return fail(l, g, "more than %d CPEs", CONF_CPE_MAX);
	}
	e = &c->cpe[c->ncpes];
	memset(e, 0, sizeof(*e));
	e->encrypt = c->encrypt;
	if (default_name) {
		snprintf(e->name, sizeof(e->name), "%s", default_name);
	}
	snprintf(key, sizeof(key), "%s", prefix);
	ret = walk(l, g, key, cpe_keys + (default_name ? 1 : 0),
		   ARRAY_SIZE(cpe_keys) - (default_name ? 1 : 0), e);
	if (!ret) {
		/* "cpes[2]", or for a file of cpe_dir "cpe" */
		snprintf(l->key, sizeof(l->key), "%.*s",
			 prefix[0] ? (int)strlen(prefix) - 1 : 3,
			 prefix[0] ? prefix : "cpe");
		ret = check_cpe(l, g, c->ncpes);
	}
	if (ret) {
		auth_key_wipe(&e->psk);
		return ret;
	}
	c->ncpes++;
	return 0;
}

static int parse_cpes(struct loader *l, const config_setting_t *s, void *obj)
{
	struct conf *c = obj;
	const config_setting_t *e;
	char prefix[24];
	unsigned i, n;
	int ret;

	if (c->role != ROLE_CONCENTRATOR) {
		return bad(l, s, "only allowed with role \"concentrator\"");
	}
	top_first(c);
	if (!config_setting_is_list(s)) {
		return bad(l, s,
			   "expected a list of CPE groups "
			   "( { name = ...; ... }, ... )");
	}
	n = (unsigned)config_setting_length(s);
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, i);
		snprintf(prefix, sizeof(prefix), "cpes[%u]", i);
		if (!config_setting_is_group(e)) {
			set_key(l, prefix, "");
			return bad(l, e, "expected a CPE group { ... }");
		}
		strcat(prefix, ".");
		ret = read_cpe(l, e, prefix, NULL);
		if (ret) {
			return ret;
		}
	}
	return 0;
}

static void wipe_keys_in(config_setting_t *s);

/* One file of cpe_dir: the keys of a cpes entry; name defaults to the
 * file's name without ".conf". */
static int read_cpe_file(struct loader *l, const char *path, const char *name)
{
	const char *file = l->file;
	struct wide wd = {0};
	config_t cfg;
	int ret;

	ret = prescan(path, probe_wrap(), &wd);
	if (ret) {
		snprintf(l->err, l->errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (wd.line) {
		snprintf(l->err, l->errlen,
			 "%s:%u: %s: bad value '%s': too large for this "
			 "libconfig, which would wrap it to 32 bits; write "
			 "'%sL'",
			 path, wd.line, wd.key, wd.text, wd.text);
		return -EINVAL;
	}
	config_init(&cfg);
	if (!config_read_file(&cfg, path)) {
		snprintf(l->err, l->errlen, "%s:%d: parse error: %s", path,
			 config_error_line(&cfg), config_error_text(&cfg));
		ret = config_error_type(&cfg) == CONFIG_ERR_FILE_IO ? -EIO
								    : -EINVAL;
	} else {
		l->file = path;
		ret = read_cpe(l, config_root_setting(&cfg), "", name);
		l->file = file;
	}
	wipe_keys_in(config_root_setting(&cfg));
	config_destroy(&cfg);
	return ret;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int parse_cpe_dir(struct loader *l, const config_setting_t *s, void *obj)
{
	struct conf *c = obj;
	char **names = NULL, path[PATH_MAX], name[CONF_NAME_MAX];
	size_t n = 0, cap = 0, i, len;
	const char *dir;
	struct dirent *d;
	DIR *dp;
	int ret = 0;

	if (c->role != ROLE_CONCENTRATOR) {
		return bad(l, s, "only allowed with role \"concentrator\"");
	}
	ret = get_string(l, s, PATH_MAX - 64, &dir);
	if (ret) {
		return ret;
	}
	top_first(c);
	dp = opendir(dir);
	if (!dp) {
		return bad(l, s, "%s", strerror(errno));
	}
	/* in name order, so that the CPEs keep their order from one reload
	 * to the next */
	while ((d = readdir(dp))) {
		len = strlen(d->d_name);
		if (d->d_name[0] == '.' || len <= 5 ||
		    strcmp(d->d_name + len - 5, ".conf")) {
			continue;
		}
		if (n == cap) {
			char **nn;

			cap = cap ? cap * 2 : 64;
			nn = realloc(names, cap * sizeof(*names));
			if (!nn) {
				ret = -ENOMEM;
				break;
			}
			names = nn;
		}
		names[n] = strdup(d->d_name);
		if (!names[n]) {
			ret = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(dp);
	if (ret) {
		snprintf(l->err, l->errlen, "%s: %s", dir, strerror(-ret));
		goto out;
	}
	if (n > 1) {
		qsort(names, n, sizeof(*names), by_name);
	}
	for (i = 0; i < n && !ret; i++) {
		len = strlen(names[i]) - 5;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (len >= sizeof(name) ||
		    strspn(names[i], "abcdefghijklmnopqrstuvwxyz0123456789_-") <
			    len) {
			ret = bad(l, s,
				  "file %s: its name is the CPE's: 1 to %d of "
				  "a-z, 0-9, '_' and '-', then .conf",
				  names[i], CONF_NAME_MAX - 1);
			break;
		}
		memcpy(name, names[i], len);
		name[len] = '\0';
		ret = read_cpe_file(l, path, name);
	}
out:
	for (i = 0; i < n; i++) {
		free(names[i]);
	}
	free(names);
	return ret;
}

/* session_id and key: the CPE's own; on a concentrator those of the plain
 * top-level CPE, which cpes or cpe_dir make optional (a concentrator may
 * start with no CPE yet: an empty cpe_dir filled before a reload). */
static int check_top(struct loader *l, const config_setting_t *root)
{
	struct conf *c = &l->c;
	bool others = config_setting_get_member(root, "cpes") ||
		      config_setting_get_member(root, "cpe_dir");
	unsigned i;

	if (c->role == ROLE_CONCENTRATOR && others && !c->session_id &&
	    !conf_has_key(c) && !c->nprefixes) {
		return 0;
	}
	if (!c->session_id) {
		set_key(l, "", "session_id");
		return fail(l, root, "missing");
	}
	if (!conf_has_key(c)) {
		set_key(l, "", "key");
		return fail(l, root, "missing%s", missing_hint("key"));
	}
	top_first(c);
	/* every CPE must have a key: nothing without one reaches the
	 * daemon (cannot fail: each key is required and never all zero) */
	for (i = 0; i < c->ncpes; i++) {
		uint8_t any = 0;
		size_t b;

		for (b = 0; b < AUTH_KEY_LEN; b++) {
			any |= c->cpe[i].psk.b[b];
		}
		if (!any) {
			set_key(l, "", "key");
			return fail(l, root, "missing");
		}
	}
	return 0;
}

void conf_defaults(struct conf *c)
{
	memset(c, 0, sizeof(*c));
	c->role = ROLE_CPE;
	c->session_id = 0;
	c->port = DEF_PORT;
	/* psk all zero (memset): no key; conf_load requires one */
	c->encrypt = false;
	c->sched.k = DEF_K;
	c->sched.t_dwd_ms = DEF_T_DWD_MS;
	c->sched.t_report_ms = DEF_T_REPORT_MS;
	c->sched.w_fixed = DEF_W_FIXED;
	c->sched.w_mobile_max = DEF_W_MOBILE_MAX;
	c->reseq.t_lto_us = DEF_T_LTO_MS * 1000;
	c->reseq.early_release = true;
	c->sched.dwd_hold_us = DEF_DWD_HOLD_MS * 1000;
	c->reseq.capacity = DEF_CAPACITY;
	c->npaths = 0;
	c->ingress_queue = DEF_INGRESS_QUEUE;
	c->egress_queue = DEF_EGRESS_QUEUE;
	c->bond_output = false;
	c->release_mark = 0;
	c->log_level = CONF_LOG_INFO;
	c->probe_interval_ms = DEF_PROBE_INTERVAL_MS;
	c->dead_after_ms = DEF_DEAD_AFTER_MS;
	strcpy(c->control_socket, DEF_CONTROL_SOCKET);
	strcpy(c->control_group, DEF_CONTROL_GROUP);
}

bool conf_has_key(const struct conf *c)
{
	uint8_t any = 0;
	size_t i;

	for (i = 0; i < sizeof(c->psk.b); i++) {
		any |= c->psk.b[i];
	}
	return any != 0;
}

void conf_wipe(struct conf *c)
{
	unsigned i;

	auth_key_wipe(&c->psk);
	for (i = 0; i < c->ncpes && i < CONF_CPE_MAX; i++) {
		auth_key_wipe(&c->cpe[i].psk);
	}
}

/* The keys' text in libconfig's tree is freed, not cleared, by
 * config_destroy(): clear it first, wherever a "key" is (top level, cpes
 * entries).  The string is libconfig's own heap copy (strdup), so writing
 * to it is sound.  What the parser and stdio buffered on the way is out of
 * reach; this is the long-lived copy. */
static void wipe_keys_in(config_setting_t *s)
{
	config_setting_t *e;
	const char *v;
	int i, n;

	if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		if (config_setting_name(s) &&
		    !strcmp(config_setting_name(s), "key")) {
			v = config_setting_get_string(s);
			if (v) {
				explicit_bzero((char *)v, strlen(v));
			}
		}
		return;
	}
	if (!config_setting_is_aggregate(s)) {
		return;
	}
	n = config_setting_length(s);
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, (unsigned)i);
		if (e) {
			wipe_keys_in(e);
		}
	}
}

static void wipe_key_text(config_t *cfg)
{
	wipe_keys_in(config_root_setting(cfg));
}

int conf_load(struct conf *c, const char *file, char *err, size_t errlen)
{
	struct loader l = {.file = file, .err = err, .errlen = errlen};
	struct wide wd = {0};
	const config_setting_t *root;
	config_t cfg;
	int ret;

	if (err && errlen) {
		err[0] = '\0';
	}
	ret = prescan(file, probe_wrap(), &wd);
	if (ret) {
		if (err && errlen) {
			snprintf(err, errlen, "%s: %s", file, strerror(-ret));
			one_line(err);
		}
		return ret;
	}

	conf_defaults(&l.c);
	config_init(&cfg);
	if (!config_read_file(&cfg, file)) {
		if (config_error_type(&cfg) == CONFIG_ERR_FILE_IO) {
			/* it was readable a moment ago */
			ret = -EIO;
			if (err && errlen) {
				snprintf(err, errlen, "%s: %s", file,
					 config_error_text(&cfg));
			}
		} else {
			ret = -EINVAL;
			if (err && errlen) {
				snprintf(err, errlen, "%s:%d: parse error: %s",
					 config_error_file(&cfg)
						 ? config_error_file(&cfg)
						 : file,
					 config_error_line(&cfg),
					 config_error_text(&cfg));
			}
		}
		goto out_destroy;
	}
	if (wd.line) {
		snprintf(l.key, sizeof(l.key), "%s", wd.key);
		ret = -EINVAL;
		if (err && errlen) {
			snprintf(err, errlen,
				 "%s:%u: %s: bad value '%s': "
				 "too large for this libconfig, which would "
				 "wrap it to 32 bits; write '%sL'",
				 file, wd.line, wd.key, wd.text, wd.text);
		}
		goto out_destroy;
	}

	root = config_root_setting(&cfg);
	ret = walk(&l, root, "", top_keys, ARRAY_SIZE(top_keys), &l.c);
	if (!ret) {
		ret = check_dwd(&l, root);
	}
	if (!ret) {
		ret = check_liveness(&l, root);
	}
	if (!ret) {
		ret = check_queues(&l, root);
	}
	if (!ret) {
		ret = check_top(&l, root);
	}
	if (!ret) {
		*c = l.c;
	}
out_destroy:
	if (ret && err && errlen) {
		one_line(err); /* the file name, libconfig's text */
	}
	wipe_key_text(&cfg);
	conf_wipe(&l.c);
	config_destroy(&cfg);
	return ret;
}

/* A value as typed: a number, true/false or a bare word (quoted here, so
 * that "debug" reads as the string it means).  Nothing that libconfig
 * would read as more than one scalar: no ';', '@', quotes or spaces. */
static int set_text(const char *key, const char *value, char *buf, size_t n)
{
	bool word = isalpha((unsigned char)value[0]);
	size_t i;

	if (!*value) {
		return -EINVAL;
	}
	for (i = 0; value[i]; i++) {
		if (!isalnum((unsigned char)value[i]) &&
		    !strchr("._+-", value[i])) {
			return -EINVAL;
		}
	}
	if (word && strcmp(value, "true") && strcmp(value, "false")) {
		i = (size_t)snprintf(buf, n, "%s = \"%s\";", key, value);
	} else {
		i = (size_t)snprintf(buf, n, "%s = %s;", key, value);
	}
	return i < n ? 0 : -EINVAL;
}

/* A typed value gets the prescan's check of a literal in the file: this
 * libconfig would wrap "t_dwd_ms 4294967496" to 200 just the same (found
 * by tests/fuzz/fuzz_conf_set). */
static int scan_value(const char *value, struct wide *wd)
{
	FILE *f;
	int ch;

	f = fmemopen((void *)value, strlen(value), "r");
	if (!f) {
		return -errno;
	}
	ch = getc(f);
	if (isdigit(ch) || ch == '.' || ch == '-' || ch == '+') {
		scan_number(f, ch, 1, "", probe_wrap(), wd);
	}
	fclose(f);
	return 0;
}

/* A key of the file: top level, or of a path as "mtu" or "paths[1].mtu". */
static bool is_file_key(const char *key)
{
	const struct key *k;
	size_t n;

	for (k = top_keys; k < top_keys + ARRAY_SIZE(top_keys); k++) {
		if (!strcmp(k->name, key)) {
			return true;
		}
	}
	if (!strncmp(key, "paths[", 6)) {
		n = strspn(key + 6, "0123456789");
		if (n && !strncmp(key + 6 + n, "].", 2)) {
			key += 6 + n + 2;
		}
	}
	for (k = path_keys; k < path_keys + ARRAY_SIZE(path_keys); k++) {
		if (!strcmp(k->name, key)) {
			return true;
		}
	}
	return false;
}

int conf_set(struct conf *c, const char *key, const char *value, char *err,
	     size_t errlen)
{
	struct loader l = {.file = NULL, .err = err, .errlen = errlen};
	struct wide wd = {0};
	const config_setting_t *s;
	const struct key *k;
	char text[128];
	config_t cfg;
	size_t i;
	int ret;

	if (err && errlen) {
		err[0] = '\0';
	}
	set_key(&l, "", key);
	if (!strcmp(key, "keepalive_ms")) {
		return fail(&l, NULL,
			    "replaced by probe_interval_ms and dead_after_ms");
	}
	for (i = 0; i < ARRAY_SIZE(runtime_keys); i++) {
		if (!strcmp(key, runtime_keys[i])) {
			break;
		}
	}
	if (i == ARRAY_SIZE(runtime_keys)) {
		if (is_file_key(key)) {
			return fail(&l, NULL,
				    "not a runtime setting: change it "
				    "in the file and restart");
		}
		return fail(&l, NULL, "unknown key");
	}
	for (k = top_keys; strcmp(k->name, key); k++) {
	}
	if (set_text(key, value, text, sizeof(text))) {
		snprintf(l.key, sizeof(l.key), "%s", key);
		return bad_at(&l, NULL, value, "not a single value");
	}
	ret = scan_value(value, &wd);
	if (ret) {
		return fail(&l, NULL, "%s", strerror(-ret));
	}
	if (wd.line) {
		return bad_at(&l, NULL, value,
			      "too large for this libconfig, which would wrap "
			      "it to 32 bits; write '%sL'",
			      value);
	}
	l.c = *c;
	config_init(&cfg);
	if (!config_read_string(&cfg, text)) {
		ret = bad_at(&l, NULL, value, "%s", config_error_text(&cfg));
		goto out;
	}
	s = config_setting_get_member(config_root_setting(&cfg), key);
	ret = k->parse ? k->parse(&l, s, &l.c) : parse_int(&l, s, &l.c, k);
	if (!ret && l.c.sched.t_dwd_ms % l.c.sched.t_report_ms) {
		ret = bad_at(&l, NULL, value,
			     "t_dwd_ms (%u) would not be a multiple of "
			     "t_report_ms (%u)",
			     l.c.sched.t_dwd_ms, l.c.sched.t_report_ms);
	}
	if (!ret && l.c.dead_after_ms < 2 * l.c.probe_interval_ms) {
		ret = bad_at(&l, NULL, value,
			     "dead_after_ms (%u) would be less than 2 x "
			     "probe_interval_ms (%u)",
			     l.c.dead_after_ms, l.c.probe_interval_ms);
	}
	if (!ret) {
		*c = l.c;
	}
out:
	conf_wipe(&l.c); /* the copy of c's key on this stack */
	config_destroy(&cfg);
	return ret;
}

const char *conf_role_name(enum conf_role r)
{
	if ((unsigned)r >= ARRAY_SIZE(role_names)) {
		return "?";
	}
	return role_names[r];
}

const char *conf_class_name(enum path_class cls)
{
	if ((unsigned)cls >= ARRAY_SIZE(class_names)) {
		return "?";
	}
	return class_names[cls];
}

const char *conf_log_level_name(enum conf_log_level lv)
{
	if ((unsigned)lv >= ARRAY_SIZE(log_level_names)) {
		return "?";
	}
	return log_level_names[lv];
}
