/* SPDX-License-Identifier: BSD-2-Clause */
/* l3bondctl: the operator's client of l3bondd's control socket (ctl.c).
 *
 *	l3bondctl [-s SOCKET] status [--json] [--totals | --cpe NAME] |
 *	          metrics [--totals | --cpe NAME] | set KEY VALUE | reload |
 *	          help
 *	l3bondctl genkey
 *	l3bondctl --version
 *
 * One request line, one reply: "ok" or "error: <why>", then the body.
 * The daemon answers status as data (facts.h); this client presents it:
 * a table, JSON (json-c) or the Prometheus exposition (show.h).  Other
 * bodies go to stdout as they are.  No event loop: it must run on a
 * router that has nothing else but libc and json-c.  genkey talks to no
 * daemon: it prints a fresh pre-shared key for the config's key
 * (l3bond.conf(5)).
 *
 * Exit codes: 0 ok; 1 the daemon refused the request (bad key or value,
 * reload refused); 2 usage; 3 the daemon cannot be reached or would not
 * talk to us (no socket, refused, permission, I/O, no reply within
 * TIMEOUT_MS).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/un.h>
#include <unistd.h>

#include "gateway/ctl_client.h"
#include "gateway/facts.h"
#include "gateway/show.h"

#define DEFAULT_SOCKET "/run/l3bond/l3bondd.sock"

enum {
	EXIT_OK = 0,
	EXIT_REFUSED = 1,
	EXIT_USAGE = 2,
	EXIT_UNREACHABLE = 3,
	REQ_MAX = 256,	  /* the daemon's request limit, newline in */
	KEY_LEN = 32,	  /* AUTH_KEY_LEN (common/auth.h) */
	KEY_B64_LEN = 44, /* its base64 text, without NUL */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: l3bondctl [-s SOCKET] COMMAND\n"
		"commands:\n"
		"  status [--json]  counters and state (a table, or JSON)\n"
		"  metrics          the same in the Prometheus text format\n"
		"    --totals       ... without the CPEs' sessions "
		"(concentrator)\n"
		"    --cpe NAME     ... with only CPE NAME's session "
		"(concentrator)\n"
		"  set KEY VALUE    change a tunable now (the keys: "
		"l3bondctl help);\n"
		"                   runtime only: a reload or restart reads "
		"the file again\n"
		"  reload           read the configuration file again\n"
		"  budget PATH reset | budget PATH set MB\n"
		"                   what PATH used of its data budget this "
		"period (CPE)\n"
		"  help             the daemon's list of requests\n"
		"  genkey           print a fresh pre-shared key for the "
		"config's key\n"
		"                   (no daemon needed)\n"
		"options:\n"
		"  -s, --socket SOCKET  the daemon's control socket (default "
		"$L3BOND_SOCKET,\n"
		"                       else " DEFAULT_SOCKET ")\n"
		"  -h, --help           this text\n"
		"  -V, --version        print l3bondctl's version and exit "
		"(the daemon's:\n"
		"                       status)\n"
		"exit: 0 ok, 1 refused by the daemon, 2 usage, 3 daemon "
		"unreachable\n");
}

static int __attribute__((format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "l3bondctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	usage(stderr);
	return EXIT_USAGE;
}

/* Standard base64 with padding (RFC 4648 section 4), as auth_key_parse()
 * reads it; out holds 4 * ceil(len / 3) characters and a NUL. */
static void base64(char *out, const unsigned char *in, size_t len)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned long v;
	size_t i, n;

	for (i = 0; i < len; i += 3) {
		n = len - i < 3 ? len - i : 3;
		v = (unsigned long)in[i] << 16;
		v |= n > 1 ? (unsigned long)in[i + 1] << 8 : 0;
		v |= n > 2 ? in[i + 2] : 0;
		*out++ = abc[(v >> 18) & 63];
		*out++ = abc[(v >> 12) & 63];
		*out++ = n > 1 ? abc[(v >> 6) & 63] : '=';
		*out++ = n > 2 ? abc[v & 63] : '=';
	}
	*out = '\0';
}

/* genkey: what auth_genkey() (common/auth.c) prints, 32 bytes from the
 * kernel's CSPRNG (what libsodium's randombytes_buf() reads on Linux) as
 * base64, made here so that l3bondctl stays plain libc.  getrandom()
 * without flags blocks until the pool is seeded, never returns weak
 * bytes.  The key is wiped once printed. */
static int genkey(void)
{
	unsigned char key[KEY_LEN];
	char text[KEY_B64_LEN + 1];
	size_t off = 0;
	ssize_t n;
	int ret = EXIT_OK;

	while (off < sizeof(key)) {
		n = getrandom(key + off, sizeof(key) - off, 0);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			fprintf(stderr, "l3bondctl: genkey: getrandom: %s\n",
				n < 0 ? strerror(errno) : "no bytes");
			explicit_bzero(key, sizeof(key));
			return EXIT_UNREACHABLE;
		}
		off += (size_t)n;
	}
	base64(text, key, sizeof(key));
	explicit_bzero(key, sizeof(key));
	if (printf("%s\n", text) < 0 || fflush(stdout)) {
		fprintf(stderr, "l3bondctl: genkey: writing the key: %s\n",
			strerror(errno));
		ret = EXIT_UNREACHABLE;
	}
	explicit_bzero(text, sizeof(text));
	return ret;
}

/* A word of a request: no blank, no control byte (one line, one word). */
static bool word_ok(const char *s)
{
	if (!*s) {
		return false;
	}
	for (; *s; s++) {
		if ((unsigned char)*s <= ' ' || *s == 0x7f) {
			return false;
		}
	}
	return true;
}

enum show { SHOW_RAW, SHOW_TABLE, SHOW_JSON, SHOW_METRICS };

/* The status data in body (taken over) presented on stdout. */
static int present(const char *path, enum show how, char *body, size_t len)
{
	struct facts s;
	struct expo *e;
	char err[160];
	int ret;

	ret = facts_parse(&s, body, len, err, sizeof(err));
	if (ret) {
		facts_free(&s);
		fprintf(stderr, "l3bondctl: %s: %s\n", path,
			ret == -ENOMEM ? strerror(ENOMEM) : err);
		return EXIT_UNREACHABLE;
	}
	if (how == SHOW_TABLE) {
		ret = show_table(stdout, &s);
	} else if (how == SHOW_JSON) {
		ret = show_json(stdout, &s);
	} else {
		e = expo_new();
		ret = -ENOMEM;
		if (e) {
			expo_facts(e, &s);
			ret = expo_write(e, stdout);
			expo_free(e);
		}
	}
	facts_free(&s);
	if (ret || fflush(stdout)) {
		fprintf(stderr, "l3bondctl: writing the reply: %s\n",
			strerror(ret ? -ret : errno));
		return EXIT_UNREACHABLE;
	}
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	const char *path = getenv("L3BOND_SOCKET");
	char req[REQ_MAX + 1], *reply = NULL, *nl, *body, err[256];
	enum show how = SHOW_RAW;
	size_t len = 0, blen;
	const char *cmd;
	int opt, ret;

	if (!path || !*path) {
		path = DEFAULT_SOCKET;
	}
	/* options stop at the command: "status --json" is the command's */
	while ((opt = getopt_long(argc, argv, "+s:hV", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			path = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("l3bondctl %s\n", L3BOND_VERSION);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind == argc) {
		return usage_error("no command");
	}
	/* before the socket's checks: genkey has nothing to do with it */
	if (!strcmp(argv[optind], "genkey")) {
		if (optind + 1 < argc) {
			return usage_error("genkey: unexpected '%s'",
					   argv[optind + 1]);
		}
		return genkey();
	}
	if (!*path) {
		return usage_error("empty socket path");
	}
	if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		return usage_error("socket path too long: %s", path);
	}
	cmd = argv[optind++];
	argc -= optind;
	argv += optind;
	if (!strcmp(cmd, "status") || !strcmp(cmd, "metrics")) {
		bool status = !strcmp(cmd, "status");
		const char *only = NULL; /* as the daemon's walk: "" none */
		int i;

		how = status ? SHOW_TABLE : SHOW_METRICS;
		for (i = 0; i < argc; i++) {
			if (status && !strcmp(argv[i], "--json")) {
				how = SHOW_JSON;
			} else if (!only && !strcmp(argv[i], "--totals")) {
				only = "";
			} else if (!only && !strcmp(argv[i], "--cpe") &&
				   i + 1 < argc && word_ok(argv[i + 1])) {
				only = argv[++i];
			} else {
				return usage_error("%s: unexpected '%s'", cmd,
						   argv[i]);
			}
		}
		if ((size_t)ctl_status_request(req, sizeof(req), only) >=
		    REQ_MAX) {
			return usage_error("%s: --cpe NAME longer than %d "
					   "bytes", cmd, REQ_MAX - 12);
		}
	} else if (!strcmp(cmd, "set")) {
		if (argc != 2) {
			return usage_error("set: want KEY VALUE");
		}
		if (!word_ok(argv[0]) || !word_ok(argv[1])) {
			return usage_error("set: KEY and VALUE are single "
					   "words, not '%s'",
					   word_ok(argv[0]) ? argv[1]
							    : argv[0]);
		}
		if ((size_t)snprintf(req, sizeof(req), "set %s %s\n", argv[0],
				     argv[1]) >= REQ_MAX) {
			return usage_error(
				"set: KEY VALUE longer than %d bytes",
				REQ_MAX - 6);
		}
	} else if (!strcmp(cmd, "budget")) {
		bool reset = argc == 2 && !strcmp(argv[1], "reset");
		bool set = argc == 3 && !strcmp(argv[1], "set");

		if ((!reset && !set) || !word_ok(argv[0]) ||
		    (set && !word_ok(argv[2]))) {
			return usage_error(
				"budget: want PATH reset, or PATH set MB");
		}
		if ((size_t)snprintf(req, sizeof(req), "budget %s %s%s%s\n",
				     argv[0], argv[1], set ? " " : "",
				     set ? argv[2] : "") >= REQ_MAX) {
			return usage_error("budget: PATH MB longer than %d "
					   "bytes",
					   REQ_MAX - 16);
		}
	} else if (!strcmp(cmd, "reload") || !strcmp(cmd, "help")) {
		if (argc) {
			return usage_error("unexpected '%s'", argv[0]);
		}
		snprintf(req, sizeof(req), "%s\n", cmd);
	} else {
		return usage_error("unknown command '%s'", cmd);
	}

	ret = ctl_exchange(path, req, &reply, &len, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "l3bondctl: %s\n", err);
		return EXIT_UNREACHABLE;
	}
	nl = memchr(reply, '\n', len);
	body = nl ? nl + 1 : reply + len;
	if (nl) {
		*nl = '\0';
	}
	if (!nl && !len) {
		free(reply);
		fprintf(stderr,
			"l3bondctl: %s: the daemon closed without a "
			"reply\n",
			path);
		return EXIT_UNREACHABLE;
	}
	blen = len - (size_t)(body - reply);
	if (!strcmp(reply, "ok") && how != SHOW_RAW) {
		/* the body alone, for the snapshot to own */
		char *data = malloc(blen + 1);

		if (!data) {
			free(reply);
			fprintf(stderr, "l3bondctl: %s\n", strerror(ENOMEM));
			return EXIT_UNREACHABLE;
		}
		memcpy(data, body, blen + 1);
		free(reply);
		return present(path, how, data, blen);
	}
	if (!strcmp(reply, "ok")) {
		if (fwrite(body, 1, blen, stdout) != blen || fflush(stdout)) {
			free(reply);
			fprintf(stderr, "l3bondctl: writing the reply: %s\n",
				strerror(errno));
			return EXIT_UNREACHABLE;
		}
		free(reply);
		return EXIT_OK;
	}
	if (!strncmp(reply, "error: ", 7)) {
		if (ctl_conn_error(reply + 7)) {
			ret = EXIT_UNREACHABLE;
			fprintf(stderr, "l3bondctl: %s: %s\n", path, reply + 7);
		} else {
			ret = EXIT_REFUSED;
			fprintf(stderr, "l3bondctl: %s\n", reply + 7);
		}
		/* a body after an error explains it */
		fputs(body, stderr);
		free(reply);
		return ret;
	}
	fprintf(stderr, "l3bondctl: %s: unexpected reply '%.80s'\n", path,
		reply);
	free(reply);
	return EXIT_UNREACHABLE;
}
