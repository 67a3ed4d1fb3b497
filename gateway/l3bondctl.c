/* l3bondctl: the operator's client of l3bondd's control socket (ctl.c).
 *
 *	l3bondctl [-s SOCKET] status [--json] | set KEY VALUE | reload | help
 *	l3bondctl genkey
 *
 * One request line, one reply: "ok" or "error: <why>", then the body,
 * which goes to stdout.  Plain libc, no event loop: it must run on a
 * router that has nothing else.  genkey talks to no daemon: it prints a
 * fresh pre-shared key for the config's key (l3bond.conf(5)).
 *
 * Exit codes: 0 ok; 1 the daemon refused the request (bad key or value,
 * reload refused); 2 usage; 3 the daemon cannot be reached or would not
 * talk to us (no socket, refused, permission, I/O, no reply within
 * TIMEOUT_MS).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_SOCKET "/run/l3bond/l3bondd.sock"

enum {
	EXIT_OK = 0,
	EXIT_REFUSED = 1,
	EXIT_USAGE = 2,
	EXIT_UNREACHABLE = 3,
	TIMEOUT_MS = 5000,
	REQ_MAX = 256, /* the daemon's request limit, newline in */
	REPLY_MAX = (1 << 20) + 4096, /* the daemon caps its replies at 1 MiB */
	KEY_LEN = 32,		      /* AUTH_KEY_LEN (common/auth.h) */
	KEY_B64_LEN = 44,	      /* its base64 text, without NUL */
};

/* The daemon's errors about the connection, not the request (ctl.c). */
static const char *const conn_errors[] = {
	"permission denied",
	"too many connections, try again",
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: l3bondctl [-s SOCKET] COMMAND\n"
		"commands:\n"
		"  status [--json]  counters and state (a table, or JSON)\n"
		"  set KEY VALUE    change a tunable now (the keys: "
		"l3bondctl help);\n"
		"                   runtime only: a reload or restart reads "
		"the file again\n"
		"  reload           read the configuration file again\n"
		"  help             the daemon's list of requests\n"
		"  genkey           print a fresh pre-shared key for the "
		"config's key\n"
		"                   (no daemon needed)\n"
		"options:\n"
		"  -s, --socket SOCKET  the daemon's control socket (default "
		"$L3BOND_SOCKET,\n"
		"                       else " DEFAULT_SOCKET ")\n"
		"  -h, --help           this text\n"
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

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for events on fd until the deadline; 0, or -ETIMEDOUT, -errno. */
static int wait_fd(int fd, short events, long long deadline)
{
	struct pollfd pfd = {.fd = fd, .events = events};
	long long left;
	int n;

	for (;;) {
		left = deadline - now_ms();
		if (left <= 0) {
			return -ETIMEDOUT;
		}
		n = poll(&pfd, 1, (int)left);
		if (n > 0) {
			return 0;
		}
		if (n == 0) {
			return -ETIMEDOUT;
		}
		if (errno != EINTR) {
			return -errno;
		}
	}
}

static int unreachable(const char *path, const char *what, int err)
{
	fprintf(stderr, "l3bondctl: %s %s: %s\n", what, path, strerror(err));
	return EXIT_UNREACHABLE;
}

/* Sends req and reads the whole reply into *out (NUL-terminated).
 * Returns 0 or an exit code, with the message printed. */
static int exchange(const char *path, const char *req, char **out,
		    size_t *outlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	long long deadline = now_ms() + TIMEOUT_MS;
	size_t len = 0, cap = 8192, off = 0, rlen = strlen(req);
	char *buf;
	ssize_t n;
	int fd, err;

	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return unreachable(path, "socket for", errno);
	}
	/* A listener whose backlog is full says EAGAIN: it may drain soon. */
	while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno == EINTR) {
			continue;
		}
		if (errno != EAGAIN || now_ms() >= deadline) {
			err = errno == EAGAIN ? ETIMEDOUT : errno;
			close(fd);
			return unreachable(path, "cannot connect to", err);
		}
		usleep(10000);
	}
	/* The daemon may close at once (refused): a failed send is not the
	 * end, its reply may be waiting. */
	while (off < rlen) {
		n = send(fd, req + off, rlen - off, MSG_NOSIGNAL);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0 && errno == EAGAIN) {
			err = wait_fd(fd, POLLOUT, deadline);
			if (err) {
				close(fd);
				return unreachable(path, "no reply from", -err);
			}
			continue;
		}
		break;
	}
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		fprintf(stderr, "l3bondctl: out of memory\n");
		return EXIT_UNREACHABLE;
	}
	for (;;) {
		if (len + 1 == cap) {
			char *p;

			if (cap >= REPLY_MAX) {
				free(buf);
				close(fd);
				fprintf(stderr,
					"l3bondctl: %s: reply longer than %d "
					"bytes\n",
					path, REPLY_MAX);
				return EXIT_UNREACHABLE;
			}
			p = realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				close(fd);
				fprintf(stderr, "l3bondctl: out of memory\n");
				return EXIT_UNREACHABLE;
			}
			buf = p;
			cap *= 2;
		}
		n = recv(fd, buf + len, cap - 1 - len, 0);
		if (n > 0) {
			len += (size_t)n;
			continue;
		}
		if (n == 0) {
			break;
		}
		if (errno == EINTR) {
			continue;
		}
		if (errno == EAGAIN) {
			err = wait_fd(fd, POLLIN, deadline);
			if (err) {
				free(buf);
				close(fd);
				if (err == -ETIMEDOUT) {
					fprintf(stderr,
						"l3bondctl: no reply from %s "
						"within %d s\n",
						path, TIMEOUT_MS / 1000);
					return EXIT_UNREACHABLE;
				}
				return unreachable(path, "reading from", -err);
			}
			continue;
		}
		/* a daemon that closed with our request unread resets the
		 * connection after its reply: that reply still counts */
		if (errno == ECONNRESET && memchr(buf, '\n', len)) {
			break;
		}
		err = errno;
		free(buf);
		close(fd);
		return unreachable(path, "reading from", err);
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *path = getenv("L3BOND_SOCKET");
	char req[REQ_MAX + 1], *reply = NULL, *nl, *body;
	size_t len = 0, i;
	const char *cmd;
	int opt, ret;

	if (!path || !*path) {
		path = DEFAULT_SOCKET;
	}
	/* options stop at the command: "status --json" is the command's */
	while ((opt = getopt_long(argc, argv, "+s:h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			path = optarg;
			break;
		case 'h':
			usage(stdout);
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
	if (!strcmp(cmd, "status")) {
		if (argc == 0) {
			snprintf(req, sizeof(req), "status\n");
		} else if (argc == 1 && !strcmp(argv[0], "--json")) {
			snprintf(req, sizeof(req), "status json\n");
		} else {
			return usage_error("status: unexpected '%s'", argv[0]);
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
	} else if (!strcmp(cmd, "reload") || !strcmp(cmd, "help")) {
		if (argc) {
			return usage_error("unexpected '%s'", argv[0]);
		}
		snprintf(req, sizeof(req), "%s\n", cmd);
	} else {
		return usage_error("unknown command '%s'", cmd);
	}

	ret = exchange(path, req, &reply, &len);
	if (ret) {
		return ret;
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
	if (!strcmp(reply, "ok")) {
		size_t blen = len - (size_t)(body - reply);

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
		ret = EXIT_REFUSED;
		for (i = 0; i < sizeof(conn_errors) / sizeof(conn_errors[0]);
		     i++) {
			if (!strcmp(reply + 7, conn_errors[i])) {
				ret = EXIT_UNREACHABLE;
			}
		}
		if (ret == EXIT_UNREACHABLE) {
			fprintf(stderr, "l3bondctl: %s: %s\n", path, reply + 7);
		} else {
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
