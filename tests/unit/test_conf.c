/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests of common/conf*.c: the two sample configs, defaults, and a
 * numbered table of bad files, each with the exact error it must give
 * (file:line, key, value) and the check that the caller's struct conf is
 * untouched; the key table and what comes from it (set, the reload's
 * comparison, the CPE array), and the documents that must list every key
 * of the table with its range and default (test_docs_*: the man page, the
 * sample configs, the OpenWrt translator).  Runs with tests/unit as the
 * working directory.
 */
#define _GNU_SOURCE /* strcasestr, memmem, strndup */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <libconfig.h>
#include <sodium.h>

#include "common/conf.h"
#include "ingress/classify.h"

/* ---- helpers --------------------------------------------------------- */

/* Writes text to a new temporary file; its name goes to path. */
static void write_temp(char *path, size_t n, const char *text)
{
	size_t len = strlen(text);
	int fd;

	snprintf(path, n, "/tmp/test_conf.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

/* A struct conf whose every byte is known, to prove conf_load left it. */
static void poison(struct conf *c)
{
	memset(c, 0x5a, sizeof(*c));
}

static void assert_untouched(const struct conf *c)
{
	struct conf ref;

	poison(&ref);
	assert_memory_equal(c, &ref, sizeof(ref));
}

/* Every CPE array a load gave, freed after the last test: the tests load
 * into the same struct conf again and read what it held. */
static struct conf_cpe *held[64];
static size_t nheld;

static int load(struct conf *c, const char *file, char *err, size_t errlen)
{
	int ret = conf_load(c, file, err, errlen);

	if (!ret && c->cpe) {
		assert_true(nheld < sizeof(held) / sizeof(held[0]));
		held[nheld++] = c->cpe;
	}
	return ret;
}

static int free_held(void **state)
{
	(void)state;
	while (nheld) {
		free(held[--nheld]);
	}
	return 0;
}

static int load_text(const char *text, struct conf *c, char *err, size_t errlen,
		     char *path, size_t pathlen)
{
	int ret;

	write_temp(path, pathlen, text);
	ret = load(c, path, err, errlen);
	unlink(path);
	return ret;
}

/* The key TKEY stands for: bytes 1..32. */
static void assert_key_1_32(const struct conf *c)
{
	uint8_t want[32];
	unsigned i;

	for (i = 0; i < sizeof(want); i++) {
		want[i] = (uint8_t)(i + 1);
	}
	assert_int_equal(sizeof(c->psk.b), sizeof(want));
	assert_memory_equal(c->psk.b, want, sizeof(want));
	assert_true(conf_has_key(c));
}

/* An error about a key must not hold it: not the whole text, not even its
 * first 5 characters.  The text is what follows 'key = "' in file. */
static void assert_secret_kept(const char *file, const char *err)
{
	const char *v = strstr(file, "key = \"");
	char head[6];
	size_t len;

	if (!v) {
		return;
	}
	v += strlen("key = \"");
	len = strcspn(v, "\"");
	if (len < sizeof(head) - 1) {
		return;
	}
	memcpy(head, v, sizeof(head) - 1);
	head[sizeof(head) - 1] = '\0';
	if (strstr(err, head)) {
		print_error("key text '%s...' in the error: %s\n", head, err);
		fail();
	}
}

/* The samples' placeholder key, "REPLACE+THIS+EXAMPLE+KEY+l3bondctl+genkey+A=":
 * valid base64 of 32 bytes, so that the samples load as they are. */
static void assert_placeholder_key(const struct conf *c)
{
	static const uint8_t want[32] = {
		0x44, 0x43, 0xcb, 0x00, 0x21, 0x3e, 0x4c, 0x72,
		0x12, 0xf8, 0x45, 0xc0, 0x30, 0xf2, 0xc4, 0xf8,
		0xa1, 0x18, 0xfa, 0x5d, 0xdb, 0xa2, 0x77, 0x5c,
		0xb6, 0x5f, 0xa0, 0x7a, 0x79, 0x1e, 0xcb, 0xe0,
	};

	assert_memory_equal(c->psk.b, want, sizeof(want));
}

static void assert_defaults_except_paths(const struct conf *c)
{
	struct conf d;

	conf_defaults(&d);
	assert_int_equal(c->port, d.port);
	assert_true(c->sched.k == d.sched.k);
	assert_int_equal(c->sched.t_dwd_ms, d.sched.t_dwd_ms);
	assert_int_equal(c->sched.t_report_ms, d.sched.t_report_ms);
	assert_true(c->sched.w_fixed == d.sched.w_fixed);
	assert_true(c->sched.w_mobile_max == d.sched.w_mobile_max);
	assert_int_equal(c->reseq.t_lto_us, d.reseq.t_lto_us);
	assert_int_equal(c->reseq.early_release, d.reseq.early_release);
	assert_int_equal(c->reseq.capacity, d.reseq.capacity);
	assert_int_equal(c->sched.queue_target_us, d.sched.queue_target_us);
}

/* ---- the building blocks of the bad files ---------------------------- */

/* The test key: bytes 1..32 (key_1_32()), base64. */
#define TKEY "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="
#define KEYL " key = \"" TKEY "\";"
/* another: bytes 2..33 */
#define TKEY2	 "AgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4fICE="
#define HEAD	 "role = \"cpe\";\nsession_id = 1;" KEYL "\n" /* lines 1-2 */
#define DSL_KEYS "name = \"dsl\"; class = \"fixed\"; interface = \"wan-dsl\"; "
#define LTE_KEYS "name = \"lte\"; class = \"mobile\"; interface = \"wan-lte\"; "
#define PEER	 "peer = \"192.0.2.1\"; "
#define DSL	 "{ " DSL_KEYS PEER "}"
#define PATHS	 "paths = (\n" DSL ",\n{ " LTE_KEYS PEER "}\n);\n"
/* one line of top-level keys: line 3 */
#define TOP(line) HEAD line "\n" PATHS
/* the second path, on line 5, with the given keys */
#define PATH2(keys) HEAD "paths = (\n" DSL ",\n{ " keys " }\n);\n"
/* a concentrator whose second path, on line 5, has the given keys */
#define CONC2(keys)                                                            \
	"role = \"concentrator\";\nsession_id = 1;" KEYL "\n"                  \
	"paths = (\n{ " DSL_KEYS "},\n{ " keys " }\n);\n"
#define E4 "{}, {}, {}, {}, "
/* a concentrator with one line of top-level keys: line 3 */
#define CTOP(line)                                                             \
	"role = \"concentrator\";\nsession_id = 1;" KEYL "\n" line "\n"        \
	"paths = (\n{ " DSL_KEYS "},\n{ " LTE_KEYS "}\n);\n"

/* a CPE with traffic classes on line 3 */
#define CLS(groups) TOP("traffic_classes = ( " groups " );")
#define C_A "{ name = \"a\"; match = {}; }"
#define C_M(keys) "{ name = \"a\"; match = { " keys " }; }"
#define C_17                                                                   \
	C_A "," C_A "," C_A "," C_A "," C_A "," C_A "," C_A "," C_A "," C_A   \
	    "," C_A "," C_A "," C_A "," C_A "," C_A "," C_A "," C_A "," C_A

struct bad_case {
	const char *text;
	const char *want; /* the error starts with the file name, then this */
};

static const struct bad_case bad_cases[] = {
	/* 0: role */
	{"role = \"router\";\nsession_id = 1;" KEYL "\n" PATHS,
	 ":1: role: bad value 'router': expected \"cpe\" or \"concentrator\""},
	{"role = 1;\nsession_id = 1;" KEYL "\n" PATHS,
	 ":1: role: bad value '1': expected a string"},
	{"role = \"\";\nsession_id = 1;" KEYL "\n" PATHS,
	 ":1: role: bad value '': expected \"cpe\" or \"concentrator\""},
	{"role = \"CPE\";\nsession_id = 1;" KEYL "\n" PATHS,
	 ":1: role: bad value 'CPE': expected \"cpe\" or \"concentrator\""},
	{"session_id = 1;" KEYL "\n" PATHS, ":0: role: missing"},
	/* 5: session_id */
	{"role = \"cpe\";\nsession_id = 0;" KEYL "\n" PATHS,
	 ":2: session_id: bad value '0': out of range 1..4294967295"},
	{"role = \"cpe\";\nsession_id = 4294967296L;" KEYL "\n" PATHS,
	 ":2: session_id: bad value '4294967296': out of range 1..4294967295"},
	{"role = \"cpe\";\nsession_id = -1;" KEYL "\n" PATHS,
	 ":2: session_id: bad value '-1': out of range"},
	{"role = \"cpe\";\nsession_id = \"1\";" KEYL "\n" PATHS,
	 ":2: session_id: bad value '1': expected an integer"},
	{"role = \"cpe\";\n" PATHS, ":0: session_id: missing"},
	/* 10: port */
	{TOP("port = 0;"), ":3: port: bad value '0': out of range 1..65535"},
	{TOP("port = 65536;"), ":3: port: bad value '65536': out of range"},
	{TOP("port = 0x10000;"), ":3: port: bad value '0x10000': out of range"},
	{TOP("port = \"7040\";"),
	 ":3: port: bad value '7040': expected an integer"},
	{TOP("port = 7040.5;"),
	 ":3: port: bad value '7040.5': expected an integer"},
	/* 15: k */
	{TOP("k = -0.1;"), ":3: k: bad value '-0.1': out of range 0..10"},
	{TOP("k = 10.5;"), ":3: k: bad value '10.5': out of range 0..10"},
	{TOP("k = 11;"), ":3: k: bad value '11': out of range 0..10"},
	{TOP("k = 1e999;"), ":3: k: bad value 'inf': not a finite number"},
	{TOP("k = \"0.5\";"), ":3: k: bad value '0.5': expected a number"},
	{TOP("k = true;"), ":3: k: bad value 'true': expected a number"},
	/* 21: t_dwd_ms, t_report_ms */
	{TOP("t_dwd_ms = -50;"),
	 ":3: t_dwd_ms: bad value '-50': out of range 0..60000"},
	{TOP("t_dwd_ms = 60050;"),
	 ":3: t_dwd_ms: bad value '60050': out of range 0..60000"},
	{TOP("t_dwd_ms = \"250\";"),
	 ":3: t_dwd_ms: bad value '250': expected an integer"},
	{TOP("t_dwd_ms = 260;"),
	 ":3: t_dwd_ms: bad value '260': not a multiple of t_report_ms (50)"},
	{HEAD "t_report_ms = 100;\nt_dwd_ms = 250;\n" PATHS,
	 ":4: t_dwd_ms: bad value '250': not a multiple of t_report_ms (100)"},
	{TOP("t_report_ms = 100;"),
	 ":3: t_dwd_ms: bad value '250': the default is not a multiple of "
	 "t_report_ms (100)"},
	{TOP("t_report_ms = 9;"),
	 ":3: t_report_ms: bad value '9': out of range 10..10000"},
	{TOP("t_report_ms = 10001;"),
	 ":3: t_report_ms: bad value '10001': out of range 10..10000"},
	{TOP("t_report_ms = 50.0;"),
	 ":3: t_report_ms: bad value '50': expected an integer"},
	/* 30: weights */
	{TOP("w_fixed = 0;"),
	 ":3: w_fixed: bad value '0': out of range 1..1000"},
	{TOP("w_fixed = 1001;"),
	 ":3: w_fixed: bad value '1001': out of range 1..1000"},
	{TOP("w_fixed = 50.5;"),
	 ":3: w_fixed: bad value '50.5': expected an integer"},
	{TOP("w_mobile_max = -1;"),
	 ":3: w_mobile_max: bad value '-1': out of range 0..1000"},
	{TOP("w_mobile_max = 1001;"),
	 ":3: w_mobile_max: bad value '1001': out of range 0..1000"},
	{TOP("w_mobile_max = \"45\";"),
	 ":3: w_mobile_max: bad value '45': expected an integer"},
	/* 36: queue_target_ms, and its former name dwd_hold_ms (errors name
	 * the key as written; both in one file is refused) */
	{TOP("queue_target_ms = -1;"),
	 ":3: queue_target_ms: bad value '-1': out of range 0..1000"},
	{TOP("queue_target_ms = 7.5;"),
	 ":3: queue_target_ms: bad value '7.5': expected an integer"},
	{TOP("queue_target_ms = 5; dwd_hold_ms = 3;"),
	 ":3: dwd_hold_ms: the former name of queue_target_ms, "
	 "which is given too"},
	{TOP("dwd_hold_ms = -1;"),
	 ":3: dwd_hold_ms: bad value '-1': out of range 0..1000"},
	{TOP("dwd_hold_ms = 1001;"),
	 ":3: dwd_hold_ms: bad value '1001': out of range 0..1000"},
	{TOP("dwd_hold_ms = 2.5;"),
	 ":3: dwd_hold_ms: bad value '2.5': expected an integer"},
	/* 39: resequencer */
	{TOP("t_lto_ms = 0;"),
	 ":3: t_lto_ms: bad value '0': out of range 1..10000"},
	{TOP("t_lto_ms = 10001;"),
	 ":3: t_lto_ms: bad value '10001': out of range 1..10000"},
	{TOP("t_lto_ms = true;"),
	 ":3: t_lto_ms: bad value 'true': expected an integer"},
	{TOP("early_release = 1;"),
	 ":3: early_release: bad value '1': expected true or false"},
	{TOP("early_release = \"yes\";"),
	 ":3: early_release: bad value 'yes': expected true or false"},
	{TOP("reorder_capacity = 3000;"),
	 ":3: reorder_capacity: bad value '3000': not a power of two"},
	{TOP("reorder_capacity = 8;"),
	 ":3: reorder_capacity: bad value '8': out of range 16..1048576"},
	{TOP("reorder_capacity = 2097152;"),
	 ":3: reorder_capacity: bad value '2097152': out of range 16..1048576"},
	{TOP("reorder_capacity = 4096.0;"),
	 ":3: reorder_capacity: bad value '4096': expected an integer"},
	/* 48: unknown keys */
	{TOP("bogus = 1;"), ":3: bogus: unknown key"},
	{"rol = \"cpe\";\nsession_id = 1;" KEYL "\n" PATHS,
	 ":1: rol: unknown key"},
	{PATH2(LTE_KEYS PEER "weight = 1;"),
	 ":5: paths[1].weight: unknown key"},
	/* 51: the paths list */
	{HEAD, ":0: paths: missing"},
	{HEAD "paths = (\n" DSL "\n);\n",
	 ":3: paths: bad value '(1 entry)': need 2 to 16 paths"},
	{HEAD "paths = (" E4 E4 E4 E4 "{});\n",
	 ":3: paths: bad value '(17 entries)': need 2 to 16 paths"},
	{HEAD "paths = { a = 1; };\n",
	 ":3: paths: bad value '{...}': expected a list of path groups"},
	{HEAD "paths = (\n" DSL ",\n5\n);\n",
	 ":5: paths[1]: bad value '5': expected a path group"},
	{HEAD "paths = (\n{ " LTE_KEYS PEER "},\n"
	      "{ name = \"lte2\"; class = \"mobile\"; interface = "
	      "\"wan-lte2\"; " PEER "}\n);\n",
	 ":3: paths: bad value '(2 entries)': no path of class \"fixed\""},
	/* 57: path name */
	{PATH2("name = \"dsl\"; class = \"mobile\"; interface = "
	       "\"wan-lte\"; " PEER),
	 ":5: paths[1].name: bad value 'dsl': paths[0] has the same name"},
	{PATH2("name = \"LTE\"; class = \"mobile\"; interface = "
	       "\"wan-lte\"; " PEER),
	 ":5: paths[1].name: bad value 'LTE': only a-z, 0-9, '_' and '-'"},
	{PATH2("name = \"l.te\"; class = \"mobile\"; interface = "
	       "\"wan-lte\"; " PEER),
	 ":5: paths[1].name: bad value 'l.te': only a-z"},
	{PATH2("name = \"\"; class = \"mobile\"; interface = "
	       "\"wan-lte\"; " PEER),
	 ":5: paths[1].name: bad value '': must be 1 to 15 characters"},
	{PATH2("name = \"abcdefghijklmnop\"; class = \"mobile\"; "
	       "interface = \"wan-lte\"; " PEER),
	 ":5: paths[1].name: bad value 'abcdefghijklmnop': must be 1 to 15"},
	{PATH2("name = 1; class = \"mobile\"; interface = \"wan-lte\"; " PEER),
	 ":5: paths[1].name: bad value '1': expected a string"},
	{PATH2("class = \"mobile\"; interface = \"wan-lte\"; " PEER),
	 ":5: paths[1].name: missing"},
	/* 64: class */
	{PATH2("name = \"lte\"; class = \"wireless\"; interface = "
	       "\"wan-lte\"; " PEER),
	 ":5: paths[1].class: bad value 'wireless': expected \"fixed\", "
	 "\"mobile\" or \"backup\""},
	{PATH2("name = \"lte\"; interface = \"wan-lte\"; " PEER),
	 ":5: paths[1].class: missing"},
	/* 66: interface */
	{PATH2("name = \"lte\"; class = \"mobile\"; interface = "
	       "\"wan/lte\"; " PEER),
	 ":5: paths[1].interface: bad value 'wan/lte': only letters, digits "
	 "and _ . - @ are allowed"},
	{PATH2("name = \"lte\"; class = \"mobile\"; interface = "
	       "\"wan\\\"x\"; " PEER),
	 ":5: paths[1].interface: bad value 'wan\"x': only letters"},
	{PATH2("name = \"lte\"; class = \"mobile\"; interface = "
	       "\"wan+\"; " PEER),
	 ":5: paths[1].interface: bad value 'wan+': only letters"},
	{PATH2("name = \"lte\"; class = \"mobile\"; interface = \"wan "
	       "lte\"; " PEER),
	 ":5: paths[1].interface: bad value 'wan lte': only letters"},
	{PATH2("name = \"lte\"; class = \"mobile\"; interface = "
	       "\"wan\\tlte\"; " PEER),
	 ":5: paths[1].interface: bad value 'wan?lte': only letters"},
	{PATH2("name = \"lte\"; class = \"mobile\"; interface = "
	       "\"wan:1\"; " PEER),
	 ":5: paths[1].interface: bad value 'wan:1': only letters"},
	{PATH2("name = \"lte\"; class = \"mobile\"; interface = \"..\"; " PEER),
	 ":5: paths[1].interface: bad value '..': not a valid interface name"},
	{PATH2("name = \"lte\"; class = \"mobile\"; interface = \"\"; " PEER),
	 ":5: paths[1].interface: bad value '': must be 1 to 15 characters"},
	{PATH2("name = \"lte\"; class = \"mobile\"; "
	       "interface = \"wan-lte-0123456789\"; " PEER),
	 ":5: paths[1].interface: bad value 'wan-lte-0123456789': must be 1 "
	 "to 15"},
	{PATH2("name = \"lte\"; class = \"mobile\"; interface = 3; " PEER),
	 ":5: paths[1].interface: bad value '3': expected a string"},
	{PATH2("name = \"lte\"; class = \"mobile\"; " PEER),
	 ":5: paths[1].interface: missing"},
	/* 75: fwmark */
	{PATH2(LTE_KEYS PEER "fwmark = -1;"),
	 ":5: paths[1].fwmark: bad value '-1': out of range 0..4294967295"},
	{PATH2(LTE_KEYS PEER "fwmark = 0x100000000L;"),
	 ":5: paths[1].fwmark: bad value '0x100000000': out of range"},
	{PATH2(LTE_KEYS PEER "fwmark = \"0x10\";"),
	 ":5: paths[1].fwmark: bad value '0x10': expected an integer"},
	/* 78: peer */
	{PATH2(LTE_KEYS "peer = \"192.0.2.256\";"),
	 ":5: paths[1].peer: bad value '192.0.2.256': not an IPv4 or IPv6 "
	 "address"},
	{PATH2(LTE_KEYS "peer = \"concentrator.example.net\";"),
	 ":5: paths[1].peer: bad value 'concentrator.example.net': not an"},
	{PATH2(LTE_KEYS "peer = \"2001:db8::1::2\";"),
	 ":5: paths[1].peer: bad value '2001:db8::1::2': not an"},
	{PATH2(LTE_KEYS "peer = \"\";"),
	 ":5: paths[1].peer: bad value '': must be 1 to 63 characters"},
	{PATH2(LTE_KEYS "peer = 3;"),
	 ":5: paths[1].peer: bad value '3': expected an address \"...\" or a "
	 "list of them"},
	{PATH2(LTE_KEYS), ":5: paths[1].peers: missing: required with role "
			  "\"cpe\" (here or at the top level)"},
	{CONC2(LTE_KEYS "peer = \"192.0.2.1\";"),
	 ":5: paths[1].peer: bad value '192.0.2.1': not allowed with role "
	 "\"concentrator\": the concentrator learns its peers from the "
	 "packets"},
	/* 85: peer_port */
	{PATH2(LTE_KEYS PEER "peer_port = 0;"),
	 ":5: paths[1].peer_port: bad value '0': out of range 1..65535"},
	{PATH2(LTE_KEYS PEER "peer_port = 65536;"),
	 ":5: paths[1].peer_port: bad value '65536': out of range 1..65535"},
	{PATH2(LTE_KEYS PEER "peer_port = \"7040\";"),
	 ":5: paths[1].peer_port: bad value '7040': expected an integer"},
	/* 88: parse errors: libconfig's text, with the line */
	{"role = \"cpe\";\nsession_id = ;\n" PATHS,
	 ":2: parse error: syntax error"},
	{HEAD "session_id = 2;\n" PATHS,
	 ":3: parse error: duplicate setting name"},
	{PATH2(LTE_KEYS PEER "name = \"x\";"),
	 ":5: parse error: duplicate setting name"},
	{HEAD "paths = (\n" DSL ",\n{ " LTE_KEYS PEER "}\n",
	 ":6: parse error: syntax error"},
	/* 92: a multi-line group: missing keys point at its line */
	{HEAD "paths = (\n" DSL ",\n{\n" LTE_KEYS "\n}\n);\n",
	 ":5: paths[1].peers: missing"},
	/* 93: the daemon's queues */
	{TOP("ingress_queue = 65536;"),
	 ":3: ingress_queue: bad value '65536': out of range 0..65535"},
	{TOP("ingress_queue = -1;"),
	 ":3: ingress_queue: bad value '-1': out of range 0..65535"},
	{TOP("egress_queue = \"1\";"),
	 ":3: egress_queue: bad value '1': expected an integer"},
	{TOP("egress_queue = 0;"),
	 ":3: egress_queue: bad value '0': the same queue as ingress_queue"},
	{TOP("ingress_queue = 1;"),
	 ":3: ingress_queue: bad value '1': the same queue as the default "
	 "egress_queue (1)"},
	{HEAD "ingress_queue = 7;\negress_queue = 7;\n" PATHS,
	 ":4: egress_queue: bad value '7': the same queue as ingress_queue"},
	/* 93b: workers (a concentrator's) */
	{TOP("workers = 2;"),
	 ":3: workers: bad value '2': only with role \"concentrator\" (a CPE "
	 "has one worker)"},
	{CTOP("workers = 65;"),
	 ":3: workers: bad value '65': out of range 0..64"},
	{CTOP("workers = 2;\negress_queue = 65535;"),
	 ":3: workers: bad value '2': 2 workers' queues go beyond 65535 "
	 "(worker k takes ingress_queue and egress_queue + k x 65536)"},
	{CTOP("workers = 2;\ncontrol_socket = \"\";"),
	 ":3: workers: bad value '2': 2 workers need a control socket"},
	{CTOP("workers = 2;\ntraffic_classes = ( { name = \"v\"; match = "
	      "{ dscp = [46]; }; mode = \"bypass\"; } );"),
	 ":3: workers: bad value '2': 2 workers and a class in mode bypass "
	 "(\"v\") cannot go together yet"},
	/* 99: lan_interfaces */
	{TOP("lan_interfaces = \"lan0\";"),
	 ":3: lan_interfaces: bad value 'lan0': expected a list of interfaces"},
	{TOP("lan_interfaces = [];"),
	 ":3: lan_interfaces: bad value '[...]': need 1 to 8 interfaces"},
	{TOP("lan_interfaces = [\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\","
	     "\"h\",\"i\"];"),
	 ":3: lan_interfaces: bad value '[...]': need 1 to 8 interfaces"},
	{TOP("lan_interfaces = [\"lan/0\"];"),
	 ":3: lan_interfaces[0]: bad value 'lan/0': only letters, digits and "
	 "_ . - @ are allowed"},
	{TOP("lan_interfaces = (\"lan0\", \"..\");"),
	 ":3: lan_interfaces[1]: bad value '..': not a valid interface name"},
	{TOP("lan_interfaces = [\"lan0\", \"lan1\", \"lan0\"];"),
	 ":3: lan_interfaces[2]: bad value 'lan0': lan_interfaces[0] is the "
	 "same"},
	{TOP("lan_interfaces = [\"lan0\", \"wan-lte\"];"),
	 ":3: lan_interfaces[1]: bad value 'wan-lte': the interface of "
	 "paths[1]"},
	{TOP("lan_interfaces = [\"\"];"),
	 ":3: lan_interfaces[0]: bad value '': must be 1 to 15 characters"},
	{TOP("lan_interfaces = [1];"),
	 ":3: lan_interfaces[0]: bad value '1': expected a string"},
	{CTOP("lan_interfaces = [\"lan0\"];"),
	 ":3: lan_interfaces: bad value '[...]': only allowed with role "
	 "\"cpe\""},
	/* 109: bond_output */
	{TOP("bond_output = 1;"),
	 ":3: bond_output: bad value '1': expected true or false"},
	{CTOP("bond_output = true;"),
	 ":3: bond_output: bad value 'true': only allowed with role \"cpe\""},
	/* 111: prefixes */
	{TOP("prefixes = [\"10.1.0.0/24\"];"),
	 ":3: prefixes: bad value '[...]': only allowed with role "
	 "\"concentrator\""},
	{CTOP("prefixes = [];"),
	 ":3: prefixes: bad value '[...]': need 1 to 32 prefixes"},
	{CTOP("prefixes = \"10.1.0.0/24\";"),
	 ":3: prefixes: bad value '10.1.0.0/24': expected a list of prefixes"},
	{CTOP("prefixes = [\"10.1.0.0\"];"),
	 ":3: prefixes[0]: bad value '10.1.0.0': expected a prefix "
	 "a.b.c.d/len or x:y::/len"},
	{CTOP("prefixes = [\"10.1.0.0/33\"];"),
	 ":3: prefixes[0]: bad value '10.1.0.0/33': prefix length must be "
	 "0..32"},
	{CTOP("prefixes = [\"10.1.0.0/\"];"),
	 ":3: prefixes[0]: bad value '10.1.0.0/': prefix length must be"},
	{CTOP("prefixes = [\"10.1.0.0/-1\"];"),
	 ":3: prefixes[0]: bad value '10.1.0.0/-1': prefix length must be"},
	{CTOP("prefixes = [\"10.1.0.0/24x\"];"),
	 ":3: prefixes[0]: bad value '10.1.0.0/24x': prefix length must be"},
	{CTOP("prefixes = [\"10.1.0.1/24\"];"),
	 ":3: prefixes[0]: bad value '10.1.0.1/24': host bits set"},
	{CTOP("prefixes = [\"0.0.0.1/0\"];"),
	 ":3: prefixes[0]: bad value '0.0.0.1/0': host bits set"},
	{CTOP("prefixes = [\"10.1.0.256/24\"];"),
	 ":3: prefixes[0]: bad value '10.1.0.256/24': expected an IPv4"},
	{CTOP("prefixes = [\"2001:db8::/129\"];"),
	 ":3: prefixes[0]: bad value '2001:db8::/129': prefix length must be "
	 "0..128"},
	{CTOP("prefixes = [\"2001:db8::1/64\"];"),
	 ":3: prefixes[0]: bad value '2001:db8::1/64': host bits set"},
	{CTOP("prefixes = [\"2001:db8:0:1::/63\"];"),
	 ":3: prefixes[0]: bad value '2001:db8:0:1::/63': host bits set"},
	{CTOP("prefixes = [\"::1/0\"];"),
	 ":3: prefixes[0]: bad value '::1/0': host bits set"},
	{CTOP("prefixes = [\"2001:db8:::/48\"];"),
	 ":3: prefixes[0]: bad value '2001:db8:::/48': expected an IPv6 prefix "
	 "x:y::/len"},
	{CTOP("prefixes = [\"2001:db8::\"];"),
	 ":3: prefixes[0]: bad value '2001:db8::': expected a prefix"},
	{CTOP("prefixes = [\"2001:db8::/48\", \"2001:0db8:0::/48\"];"),
	 ":3: prefixes[1]: bad value '2001:0db8:0::/48': prefixes[0] is the "
	 "same"},
	{CTOP("prefixes = [\"10.1.0.0/24\", \"10.2.0.0/16\", "
	      "\"10.1.0.0/24\"];"),
	 ":3: prefixes[2]: bad value '10.1.0.0/24': prefixes[0] is the same"},
	{CTOP("prefixes = [5];"),
	 ":3: prefixes[0]: bad value '5': expected a string"},
	/* 125: release_mark, log_level, keepalive_ms (deprecated) */
	{TOP("release_mark = -1;"),
	 ":3: release_mark: bad value '-1': out of range 0..4294967295"},
	{TOP("release_mark = \"0x10\";"),
	 ":3: release_mark: bad value '0x10': expected an integer"},
	{TOP("log_level = \"verbose\";"),
	 ":3: log_level: bad value 'verbose': expected \"error\", "
	 "\"warning\", \"info\" or \"debug\""},
	{TOP("log_level = 3;"),
	 ":3: log_level: bad value '3': expected a string"},
	{TOP("keepalive_ms = 99;"),
	 ":3: keepalive_ms: bad value '99': out of range 100..1000"},
	{TOP("keepalive_ms = 1001;"),
	 ":3: keepalive_ms: bad value '1001': out of range 100..1000"},
	{TOP("keepalive_ms = 1e3;"),
	 ":3: keepalive_ms: bad value '1000': expected an integer"},
	/* path liveness: probe_interval_ms, dead_after_ms */
	{TOP("probe_interval_ms = 19;"),
	 ":3: probe_interval_ms: bad value '19': out of range 20..1000"},
	{TOP("probe_interval_ms = 1001; dead_after_ms = 5000;"),
	 ":3: probe_interval_ms: bad value '1001': out of range 20..1000"},
	{TOP("probe_interval_ms = 0.5;"),
	 ":3: probe_interval_ms: bad value '0.5': expected an integer"},
	{TOP("dead_after_ms = 99;"),
	 ":3: dead_after_ms: bad value '99': out of range 100..10000"},
	{TOP("idle_probe_ms = 999;"),
	 ":3: idle_probe_ms: bad value '999': out of range 1000..300000"},
	{TOP("idle_probe_ms = 300001;"),
	 ":3: idle_probe_ms: bad value '300001': out of range 1000..300000"},
	{TOP("dead_after_ms = 10001;"),
	 ":3: dead_after_ms: bad value '10001': out of range 100..10000"},
	{TOP("dead_after_ms = 399;"),
	 ":3: dead_after_ms: bad value '399': less than 2 x "
	 "probe_interval_ms (200): one lost probe would take a path down"},
	{TOP("probe_interval_ms = 300; dead_after_ms = 500;"),
	 ":3: dead_after_ms: bad value '500': less than 2 x "
	 "probe_interval_ms (300)"},
	{TOP("probe_interval_ms = 600;"),
	 ":3: probe_interval_ms: bad value '600': more than half of "
	 "dead_after_ms (1000, the default): set dead_after_ms too"},
	/* the deprecated keepalive_ms does not override dead_after_ms */
	{TOP("keepalive_ms = 1000; dead_after_ms = 300;"),
	 ":3: dead_after_ms: bad value '300': less than 2 x "
	 "probe_interval_ms (200)"},
	/* operations: control socket; the metrics keys gone */
	{TOP("control_socket = \"run/x.sock\";"),
	 ":3: control_socket: bad value 'run/x.sock': expected an absolute "
	 "path, or \"\" for none"},
	{TOP("control_socket = \"/"
	     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	     "a"
	     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\";"),
	 ":3: control_socket: bad value '/aaaa"},
	{TOP("control_socket = 1;"),
	 ":3: control_socket: bad value '1': expected a string"},
	{TOP("control_group = \"\";"),
	 ":3: control_group: bad value '': must be 1 to 32 characters long"},
	{TOP("control_group = \"9net\";"),
	 ":3: control_group: bad value '9net': expected a group name"},
	{TOP("control_group = \"Wheel\";"),
	 ":3: control_group: bad value 'Wheel': expected a group name"},
	/* the HTTP listener moved out of the daemon: its keys are refused,
	 * naming where they went, whatever their value */
	{TOP("metrics_port = 9477;"),
	 ":3: metrics_port: moved to l3bond-exporter (its --listen and "
	 "--port): l3bondd serves no HTTP"},
	{TOP("metrics_port = 0;"), ":3: metrics_port: moved to l3bond-exporter"},
	{TOP("metrics_address = \"127.0.0.1\";"),
	 ":3: metrics_address: moved to l3bond-exporter (its --listen and "
	 "--port): l3bondd serves no HTTP"},
	/* authentication: key (a secret, never quoted whole), encrypt */
	{"role = \"cpe\";\nsession_id = 1;\n" PATHS,
	 ":0: key: missing: generate one with l3bondd --genkey"},
	{"role = \"concentrator\";\nsession_id = 1;\n"
	 "paths = (\n{ " DSL_KEYS "},\n{ " LTE_KEYS "}\n);\n",
	 ":0: key: missing: generate one with l3bondd --genkey"},
	/* 43 characters: the padding cut off */
	{"role = \"cpe\";\nsession_id = 1;\n"
	 "key = \"AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA\";\n" PATHS,
	 ":3: key: bad value 'AQID...' (43 chars): not base64 (bad length or "
	 "padding)"},
	/* base64 of 31 bytes, of 36 bytes */
	{"role = \"cpe\";\nsession_id = 1;\n"
	 "key = \"AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHw==\";\n" PATHS,
	 ":3: key: bad value 'AQID...' (44 chars): not 32 bytes of base64"},
	{"role = \"cpe\";\nsession_id = 1;\n"
	 "key = \"AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMk\";\n" PATHS,
	 ":3: key: bad value 'AQID...' (48 chars): not 32 bytes of base64"},
	{"role = \"cpe\";\nsession_id = 1;\n"
	 "key = \"AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=AQIDBAUGBwgJCg"
	 "sMDQ4PEBESExQVFhcYGRobHB0eHyA=AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcY\";"
	 "\n" PATHS,
	 ":3: key: bad value 'AQID...' (120 chars): not 32 bytes of base64"},
	{"role = \"cpe\";\nsession_id = 1;\n"
	 "key = \"AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHy!=\";\n" PATHS,
	 ":3: key: bad value 'AQID...' (44 chars): not base64 (a character "
	 "outside A-Z a-z 0-9 + / =)"},
	{"role = \"cpe\";\nsession_id = 1;\n"
	 "key = \"AQIDBAUGBwgJCgsMDQ4PEBES ExQVFhcYGRobHB0eHyA=\";\n" PATHS,
	 ":3: key: bad value 'AQID...' (45 chars): contains whitespace"},
	{"role = \"cpe\";\nsession_id = 1;\n"
	 "key = \"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\";\n" PATHS,
	 ":3: key: bad value 'AAAA...' (44 chars): an all-zero key"},
	/* short texts: not even 4 characters are shown */
	{"role = \"cpe\";\nsession_id = 1;\nkey = \"\";\n" PATHS,
	 ":3: key: bad value '' (0 chars): empty"},
	{"role = \"cpe\";\nsession_id = 1;\nkey = \"AQIDBAUG\";\n" PATHS,
	 ":3: key: bad value '...' (8 chars): not 32 bytes of base64"},
	{"role = \"cpe\";\nsession_id = 1;\nkey = 5;\n" PATHS,
	 ":3: key: bad value '5': expected a string: base64 of 32 bytes, as "
	 "l3bondd --genkey prints"},
	{"role = \"cpe\";\nsession_id = 1;\nkey = [\"" TKEY "\"];\n" PATHS,
	 ":3: key: bad value '[...]': expected a string"},
	{TOP("encrypt = 1;"),
	 ":3: encrypt: bad value '1': expected true or false"},
	{TOP("encrypt = \"true\";"),
	 ":3: encrypt: bad value 'true': expected true or false"},
	/* per-path mtu */
	{PATH2(LTE_KEYS PEER "mtu = 575;"),
	 ":5: paths[1].mtu: bad value '575': out of range 576..65535"},
	{PATH2(LTE_KEYS PEER "mtu = 65536;"),
	 ":5: paths[1].mtu: bad value '65536': out of range 576..65535"},
	{PATH2(LTE_KEYS PEER "mtu = 0;"),
	 ":5: paths[1].mtu: bad value '0': out of range 576..65535"},
	{PATH2(LTE_KEYS PEER "mtu = \"1500\";"),
	 ":5: paths[1].mtu: bad value '1500': expected an integer"},
	{PATH2(LTE_KEYS PEER "mtu = 1500.0;"),
	 ":5: paths[1].mtu: bad value '1500': expected an integer"},
	/* a backup path is no fixed one */
	{HEAD "paths = (\n{ " LTE_KEYS PEER "},\n"
	      "{ name = \"lte2\"; class = \"backup\"; interface = "
	      "\"wan-lte2\"; " PEER "}\n);\n",
	 ":3: paths: bad value '(2 entries)': no path of class \"fixed\""},
	/* the data budget's keys */
	{PATH2(LTE_KEYS PEER "budget_mb = -1;"),
	 ":5: paths[1].budget_mb: bad value '-1': out of range 0..100000000"},
	{PATH2(LTE_KEYS PEER "budget_period = \"year\";"),
	 ":5: paths[1].budget_period: bad value 'year': expected \"month\", "
	 "\"week\" or \"day\""},
	{PATH2(LTE_KEYS PEER "budget_reset_day = 32;"),
	 ":5: paths[1].budget_reset_day: bad value '32': out of range 1..31"},
	{PATH2(LTE_KEYS PEER "budget_period = \"week\"; budget_reset_day = 8;"),
	 ":5: paths[1].budget_reset_day: bad value '8': out of range 1..7 with "
	 "budget_period \"week\" (1: Monday)"},
	{CONC2(LTE_KEYS "budget_mb = 100;"),
	 ":5: paths[1].budget_mb: bad value '100': only allowed with role "
	 "\"cpe\""},
	{CTOP("budget_state_file = \"/tmp/b\";"),
	 ":3: budget_state_file: bad value '/tmp/b': only allowed with role "
	 "\"cpe\""},
	{CTOP("budget_save_min = 5;"),
	 ":3: budget_save_min: bad value '5': only allowed with role \"cpe\""},
	{TOP("budget_state_file = \"budget.state\";"),
	 ":3: budget_state_file: bad value 'budget.state': expected an absolute "
	 "path, or \"\" for none"},
	{TOP("budget_save_min = 0;"),
	 ":3: budget_save_min: bad value '0': out of range 1..1440"},
	/* 193: the traffic classes */
	{TOP("traffic_classes = 3;"),
	 ":3: traffic_classes: bad value '3': expected a list of class groups"},
	{CLS("3"), ":3: traffic_classes[0]: bad value '3': expected a class "
		   "group { ... }"},
	{CLS(C_17), ":3: traffic_classes: bad value '(17 entries)': need 0 to "
		    "16 classes"},
	{CLS("{ match = {}; }"), ":3: traffic_classes[0].name: missing"},
	{CLS("{ name = \"a\"; }"), ":3: traffic_classes[0].match: missing"},
	{CLS("{ name = \"VoIP\"; match = {}; }"),
	 ":3: traffic_classes[0].name: bad value 'VoIP': only a-z"},
	{CLS(C_A ", " C_A),
	 ":3: traffic_classes[1].name: bad value 'a': traffic_classes[0] has "
	 "the same name"},
	{CLS("{ name = \"a\"; match = {}; prio = 1; }"),
	 ":3: traffic_classes[0].prio: unknown key"},
	{CLS(C_M("port = [ 1 ];")),
	 ":3: traffic_classes[0].match.port: unknown key"},
	{CLS("{ name = \"a\"; match = [ 1 ]; }"),
	 ":3: traffic_classes[0].match: bad value '[...]': expected a "
	 "group"},
	{CLS("{ name = \"a\"; match = {}; mode = \"fast\"; }"),
	 ":3: traffic_classes[0].mode: bad value 'fast': expected \"bond\", "
	 "\"flow\", \"pin\", \"lowest_delay\", \"redundant\" or \"bypass\""},
	{CLS("{ name = \"a\"; match = {}; mode = \"pin\"; }"),
	 ":3: traffic_classes[0].path: missing: required with mode \"pin\""},
	{CLS("{ name = \"a\"; match = {}; mode = \"pin\"; path = "
	     "\"cable\"; }"),
	 ":3: traffic_classes[0].path: bad value 'cable': no path of that "
	 "name"},
	{CLS("{ name = \"a\"; match = {}; mode = \"bypass\"; path = "
	     "\"dsl\"; }"),
	 ":3: traffic_classes[0].path: bad value 'dsl': only allowed with mode "
	 "\"pin\", not \"bypass\""},
	{CLS("{ name = \"a\"; match = {}; fallback = true; }"),
	 ":3: traffic_classes[0].fallback: bad value 'true': only allowed with "
	 "mode \"pin\", not \"bond\""},
	{CLS(C_M("family = 5;")),
	 ":3: traffic_classes[0].match.family: bad value '5': expected 4 or 6"},
	{CLS(C_M("family = \"4\";")),
	 ":3: traffic_classes[0].match.family: bad value '4': expected an "
	 "integer"},
	{CLS(C_M("dscp = [ 46, 64 ];")),
	 ":3: traffic_classes[0].match.dscp[1]: bad value '64': out of range "
	 "0..63"},
	{CLS(C_M("dscp = [ 46, 46 ];")),
	 ":3: traffic_classes[0].match.dscp[1]: bad value '46': given twice"},
	{CLS(C_M("dscp = 46;")),
	 ":3: traffic_classes[0].match.dscp: bad value '46': expected a list"},
	{CLS(C_M("dscp = [ 0, 1, 2, 3, 4, 5, 6, 7, 8 ];")),
	 ":3: traffic_classes[0].match.dscp: bad value '[...]': need 1 "
	 "to 8"},
	{CLS(C_M("proto = [ 256 ];")),
	 ":3: traffic_classes[0].match.proto[0]: bad value '256': out of range "
	 "0..255"},
	{CLS(C_M("proto = [ \"tcp\", \"quic\" ];")),
	 ":3: traffic_classes[0].match.proto[1]: bad value 'quic': expected a "
	 "protocol number 0..255 or one of tcp, udp"},
	{CLS(C_M("proto = ( \"udp\", 17 );")),
	 ":3: traffic_classes[0].match.proto[1]: bad value '17': protocol 17 "
	 "given twice"},
	{CLS(C_M("sport = [ 65536 ];")),
	 ":3: traffic_classes[0].match.sport[0]: bad value '65536': out of "
	 "range 0..65535"},
	{CLS(C_M("dport = ( 80, \"1-2\", \"x\" );")),
	 ":3: traffic_classes[0].match.dport[2]: bad value 'x': expected a port "
	 "or a range \"lo-hi\" of ports"},
	{CLS(C_M("dport = [ \"20000-10000\" ];")),
	 ":3: traffic_classes[0].match.dport[0]: bad value '20000-10000': the "
	 "range's start is after its end"},
	{CLS(C_M("dport = [ \"1-70000\" ];")),
	 ":3: traffic_classes[0].match.dport[0]: bad value '1-70000': out of "
	 "range 0..65535"},
	{CLS(C_M("dport = [ \"80-\" ];")),
	 ":3: traffic_classes[0].match.dport[0]: bad value '80-': expected a "
	 "port or a range"},
	{CLS(C_M("dport = [ \"1-9\", \"1-9\" ];")),
	 ":3: traffic_classes[0].match.dport[1]: bad value '1-9': dport[0] is "
	 "the same"},
	{CLS(C_M("src = [ \"10.0.0.1/8\" ];")),
	 ":3: traffic_classes[0].match.src[0]: bad value '10.0.0.1/8': "},
	{CLS(C_M("family = 4; src = [ \"2001:db8::/32\" ];")),
	 ":3: traffic_classes[0].match.src[0]: bad value '2001:db8::/32': an "
	 "IPv6 prefix in a match of family 4"},
	{CLS(C_M("family = 6; dst = [ \"::/0\", \"0.0.0.0/0\" ];")),
	 ":3: traffic_classes[0].match.dst[1]: bad value '0.0.0.0/0': an IPv4 "
	 "prefix in a match of family 6"},
	{CLS(C_M("dst = [ \"10.0.0.0/8\", \"10.0.0.0/8\" ];")),
	 ":3: traffic_classes[0].match.dst[1]: bad value '10.0.0.0/8': dst[0] "
	 "is the same"},
	{CLS(C_A ", { name = \"b\"; match = { dst = [ \"1.0.0.0/8\", "
	     "\"2.0.0.0/8\", \"3.0.0.0/8\", \"4.0.0.0/8\", \"5.0.0.0/8\", "
	     "\"6.0.0.0/8\", \"7.0.0.0/8\", \"8.0.0.0/8\", \"9.0.0.0/8\" ]; "
	     "}; }"),
	 ":3: traffic_classes[1].match.dst: bad value '[...]': need 1 to "
	 "8"},
	/* peers: a path's list, the top-level one, peer its one-entry
	 * form */
	{PATH2(LTE_KEYS "peers = [ \"192.0.2.1\", \"192.0.2.300\" ];"),
	 ":5: paths[1].peers[1]: bad value '192.0.2.300': not an IPv4 or "
	 "IPv6 address"},
	{PATH2(LTE_KEYS "peers = [ \"192.0.2.1\", \"2001:db8::1\" ];"),
	 ":5: paths[1].peers[1]: bad value '2001:db8::1': not of the family "
	 "of the first: one path, one outer family"},
	{PATH2(LTE_KEYS "peers = [ \"192.0.2.1\", \"192.0.2.1\" ];"),
	 ":5: paths[1].peers[1]: bad value '192.0.2.1': the same as entry 0"},
	{PATH2(LTE_KEYS "peers = [ ];"),
	 ":5: paths[1].peers: bad value '[...]': need 1 to 4 addresses"},
	{PATH2(LTE_KEYS "peers = [ \"192.0.2.1\", \"192.0.2.2\", "
	       "\"192.0.2.3\", \"192.0.2.4\", \"192.0.2.5\" ];"),
	 ":5: paths[1].peers: bad value '[...]': need 1 to 4 addresses"},
	{PATH2(LTE_KEYS "peers = [ 1 ];"),
	 ":5: paths[1].peers[0]: bad value '1': expected a string"},
	{PATH2(LTE_KEYS "peers = { a = 1; };"),
	 ":5: paths[1].peers: bad value '{...}': expected an address"},
	{PATH2(LTE_KEYS PEER "peers = [ \"192.0.2.1\" ];"),
	 ":5: paths[1].peer: the former name of peers, which is given too"},
	/* entry j of every path is concentrator j */
	{PATH2(LTE_KEYS "peers = [ \"192.0.2.1\", \"192.0.2.2\" ];"),
	 ":5: paths[1].peers: bad value '192.0.2.1': 2 addresses where "
	 "paths[0] has 1: entry j of every path is concentrator j"},
	{HEAD "peers = [ \"192.0.2.1\", \"192.0.2.2\" ];\npaths = (\n" DSL
	      ",\n{ " LTE_KEYS "}\n);\n",
	 ":6: paths[1].peers: bad value '192.0.2.1': 2 addresses where "
	 "paths[0] has 1"},
	{HEAD "peers = \"192.0.2.x\";\n" PATHS,
	 ":3: peers: bad value '192.0.2.x': not an IPv4 or IPv6 address"},
	{"role = \"concentrator\";\nsession_id = 1;" KEYL
	 "\npeers = [ \"192.0.2.1\" ];\n",
	 ":3: peers: bad value '[...]': not allowed with role "
	 "\"concentrator\""},
};

static void test_bad_files(void **state)
{
	char path[64], want[256], err[CONF_ERR_MAX];
	struct conf c;
	unsigned i;
	int ret;

	(void)state;
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		poison(&c);
		err[0] = '\0';
		ret = load_text(bad_cases[i].text, &c, err, sizeof(err), path,
				sizeof(path));
		snprintf(want, sizeof(want), "%s%s", path, bad_cases[i].want);
		if (ret != -EINVAL || strncmp(err, want, strlen(want)) ||
		    strchr(err, '\n')) {
			print_error(
				"case %u: ret %d\n  got:  %s\n  want: %s...\n",
				i, ret, err, want);
			fail();
		}
		/* past the file name: mkstemp's letters are random */
		assert_secret_kept(bad_cases[i].text, err + strlen(path));
		assert_untouched(&c);
	}
}

/* ---- good files ------------------------------------------------------ */

static void test_defaults(void **state)
{
	struct conf c;

	(void)state;
	poison(&c);
	conf_defaults(&c);
	assert_int_equal(c.role, ROLE_CPE);
	assert_int_equal(c.session_id, 0);
	assert_int_equal(c.port, 7040);
	assert_true(c.sched.k == 0.5);
	assert_int_equal(c.sched.t_dwd_ms, 250);
	assert_int_equal(c.sched.t_report_ms, 50);
	assert_true(c.sched.w_fixed == 50.0);
	assert_true(c.sched.w_mobile_max == 45.0);
	assert_int_equal(c.reseq.t_lto_us, 100000);
	assert_true(c.reseq.early_release);
	assert_int_equal(c.reseq.capacity, 4096);
	assert_int_equal(c.sched.queue_target_us, 5000);
	assert_int_equal(c.npaths, 0);
	assert_int_equal(c.path[0].name[0], '\0');
	assert_int_equal(c.ingress_queue, 0);
	assert_int_equal(c.egress_queue, 1);
	assert_int_equal(c.nlan, 0);
	assert_false(c.bond_output);
	assert_int_equal(c.nprefixes, 0);
	assert_int_equal(c.release_mark, 0);
	assert_int_equal(c.log_level, CONF_LOG_INFO);
	assert_int_equal(c.probe_interval_ms, 200);
	assert_int_equal(c.dead_after_ms, 1000);
	assert_int_equal(c.idle_probe_ms, 20000);
	assert_string_equal(c.control_socket, "/run/l3bond/l3bondd.sock");
	assert_string_equal(c.control_group, "l3bond");
	/* no key until a file gives one */
	assert_false(conf_has_key(&c));
	assert_false(c.encrypt);
	assert_int_equal(c.path[0].mtu, 0);
	assert_int_equal(c.path[WIRE_MAX_PATHS - 1].mtu, 0);
}

/* key, encrypt and mtu read right; conf_wipe clears the key and only it. */
static void test_auth_keys(void **state)
{
	char path[64], err[CONF_ERR_MAX];
	struct conf_cpe cpe;
	struct conf c, ref;
	int ret;

	(void)state;
	poison(&c);
	ret = load_text(PATH2(LTE_KEYS PEER "mtu = 1400;"), &c, err,
			sizeof(err), path, sizeof(path));
	if (ret) {
		print_error("%s\n", err);
	}
	assert_int_equal(ret, 0);
	assert_key_1_32(&c);
	assert_false(c.encrypt);
	assert_int_equal(c.path[0].mtu, 0); /* not given: the interface's */
	assert_int_equal(c.path[1].mtu, 1400);

	ret = load_text(TOP("encrypt = false;"), &c, err, sizeof(err), path,
			sizeof(path));
	assert_int_equal(ret, 0);
	assert_false(c.encrypt);
	ret = load_text(CTOP("encrypt = true;"), &c, err, sizeof(err), path,
			sizeof(path));
	assert_int_equal(ret, 0);
	assert_true(c.encrypt);
	assert_key_1_32(&c);

	/* another key, read bit for bit (base64 of 0xff x 31, 0x01) */
	ret = load_text(
		"role = \"cpe\";\nsession_id = 1;\n"
		"key = \"/////////////////////////////////////////wE=\";"
		"\n" PATHS,
		&c, err, sizeof(err), path, sizeof(path));
	if (ret) {
		print_error("%s\n", err);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(c.psk.b[0], 0xff);
	assert_int_equal(c.psk.b[30], 0xff);
	assert_int_equal(c.psk.b[31], 0x01);

	ref = c;
	assert_int_equal(c.ncpes, 1); /* the top-level CPE, with the key */
	cpe = c.cpe[0];
	conf_wipe(&c);
	assert_false(conf_has_key(&c));
	memset(&ref.psk, 0, sizeof(ref.psk));
	assert_memory_equal(&c, &ref, sizeof(c)); /* the same CPE array */
	assert_int_equal(cpe.psk.b[31], 0x01);
	memset(&cpe.psk, 0, sizeof(cpe.psk));
	assert_memory_equal(&c.cpe[0], &cpe, sizeof(cpe));
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(conf_role_name(ROLE_CPE), "cpe");
	assert_string_equal(conf_role_name(ROLE_CONCENTRATOR), "concentrator");
	assert_string_equal(conf_role_name((enum conf_role)7), "?");
	assert_string_equal(conf_class_name(PATH_FIXED), "fixed");
	assert_string_equal(conf_class_name(PATH_MOBILE), "mobile");
	assert_string_equal(conf_class_name(PATH_BACKUP), "backup");
	assert_string_equal(conf_class_name((enum path_class) - 1), "?");
	assert_string_equal(conf_log_level_name(CONF_LOG_ERROR), "error");
	assert_string_equal(conf_log_level_name(CONF_LOG_WARNING), "warning");
	assert_string_equal(conf_log_level_name(CONF_LOG_INFO), "info");
	assert_string_equal(conf_log_level_name(CONF_LOG_DEBUG), "debug");
	assert_string_equal(conf_log_level_name((enum conf_log_level)4), "?");
}

static void test_sample_cpe(void **state)
{
	char err[CONF_ERR_MAX];
	struct conf c;
	int ret;

	(void)state;
	poison(&c);
	ret = load(&c, "../../conf/cpe.conf", err, sizeof(err));
	if (ret) {
		print_error("%s\n", err);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(c.role, ROLE_CPE);
	assert_int_equal(c.session_id, 42);
	assert_placeholder_key(&c);
	assert_false(c.encrypt);
	assert_int_equal(c.port, 7040);
	assert_true(c.sched.k == 0.5);
	assert_int_equal(c.sched.t_dwd_ms, 250);
	assert_int_equal(c.sched.t_report_ms, 50);
	assert_true(c.sched.w_fixed == 50.0);
	assert_true(c.sched.w_mobile_max == 45.0);
	assert_int_equal(c.reseq.t_lto_us, 100000);
	assert_true(c.reseq.early_release);
	assert_int_equal(c.reseq.capacity, 4096);
	assert_int_equal(c.npaths, 2);
	assert_string_equal(c.path[0].name, "dsl");
	assert_int_equal(c.path[0].cls, PATH_FIXED);
	assert_string_equal(c.path[0].ifname, "wan-dsl");
	assert_int_equal(c.path[0].fwmark, 0x10);
	assert_string_equal(c.path[0].peers[0], "198.51.100.10");
	assert_int_equal(c.path[0].peer_port, 0);
	assert_string_equal(c.path[1].name, "lte");
	assert_int_equal(c.path[1].cls, PATH_MOBILE);
	assert_string_equal(c.path[1].ifname, "wan-lte");
	assert_int_equal(c.path[1].fwmark, 0x20);
	assert_string_equal(c.path[1].peers[0], "198.51.100.10");
	assert_int_equal(c.path[1].peer_port, 7040);
	assert_int_equal(c.path[0].mtu, 0);
	assert_int_equal(c.path[1].mtu, 1500);
	assert_int_equal(c.ingress_queue, 0);
	assert_int_equal(c.egress_queue, 1);
	assert_int_equal(c.nlan, 1);
	assert_string_equal(c.lan[0], "br-lan");
	assert_false(c.bond_output);
	assert_int_equal(c.nprefixes, 0);
	assert_int_equal(c.release_mark, 0x100);
	assert_int_equal(c.log_level, CONF_LOG_INFO);
	assert_int_equal(c.probe_interval_ms, 200);
	assert_int_equal(c.dead_after_ms, 1000);
}

static void test_sample_concentrator(void **state)
{
	char err[CONF_ERR_MAX];
	struct conf c;
	int ret;

	(void)state;
	poison(&c);
	ret = load(&c, "../../conf/concentrator.conf", err, sizeof(err));
	if (ret) {
		print_error("%s\n", err);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(c.role, ROLE_CONCENTRATOR);
	assert_int_equal(c.session_id, 42);
	assert_placeholder_key(&c);
	assert_false(c.encrypt);
	assert_int_equal(c.port, 7040);
	assert_true(c.sched.k == 0.5);
	assert_int_equal(c.sched.t_dwd_ms, 250);
	assert_int_equal(c.sched.t_report_ms, 50);
	assert_true(c.sched.w_fixed == 50.0);
	assert_true(c.sched.w_mobile_max == 45.0);
	assert_int_equal(c.reseq.t_lto_us, 100000);
	assert_true(c.reseq.early_release);
	assert_int_equal(c.reseq.capacity, 4096);
	assert_int_equal(c.npaths, 2);
	assert_string_equal(c.path[0].name, "dsl");
	assert_int_equal(c.path[0].cls, PATH_FIXED);
	assert_string_equal(c.path[0].ifname, "eth-dsl");
	assert_string_equal(c.path[0].peers[0], "");
	assert_string_equal(c.path[1].name, "lte");
	assert_int_equal(c.path[1].cls, PATH_MOBILE);
	assert_string_equal(c.path[1].ifname, "eth-lte");
	assert_string_equal(c.path[1].peers[0], "");
	assert_int_equal(c.path[1].fwmark, 0);
	assert_int_equal(c.path[1].peer_port, 0);
	assert_int_equal(c.ingress_queue, 0);
	assert_int_equal(c.egress_queue, 1);
	assert_int_equal(c.nlan, 0);
	assert_int_equal(c.nprefixes, 1);
	assert_int_equal(c.prefix[0].addr, htonl(0xcb007100)); /* 203.0.113.0 */
	assert_int_equal(c.prefix[0].len, 24);
	assert_int_equal(c.release_mark, 0);
	assert_int_equal(c.probe_interval_ms, 200);
	assert_int_equal(c.dead_after_ms, 1000);
}

static void test_minimal(void **state)
{
	char err[CONF_ERR_MAX];
	struct conf c;

	(void)state;
	poison(&c);
	assert_int_equal(load(&c, "conf/minimal.conf", err, sizeof(err)), 0);
	assert_int_equal(c.role, ROLE_CPE);
	assert_int_equal(c.session_id, 1);
	assert_key_1_32(&c);
	assert_false(c.encrypt);
	assert_defaults_except_paths(&c);
	assert_int_equal(c.npaths, 2);
	assert_string_equal(c.path[0].name, "dsl");
	assert_int_equal(c.path[0].cls, PATH_FIXED);
	assert_string_equal(c.path[0].ifname, "wan-dsl");
	assert_int_equal(c.path[0].fwmark, 0);
	assert_string_equal(c.path[0].peers[0], "192.0.2.1");
	assert_int_equal(c.path[0].peer_port, 0);
	assert_string_equal(c.path[1].peers[0], "2001:db8::1");
	assert_int_equal(c.path[1].cls, PATH_MOBILE);
}

/* Every key at the edge of its range, int for k, hex, the L suffix, three
 * kinds of comments with huge numbers that must not be taken for values. */
static void test_edges(void **state)
{
	static const char text[] =
		"# 99999999999 in a comment\n"
		"// 0x1234567890 too\n"
		"/* 88888888888\n   77777777777 */\n"
		"role = \"concentrator\";\n"
		"session_id = 4294967295L;\n"
		"key = \"" TKEY "\"; encrypt = true;\n"
		"port = 65535;\n"
		"k = 10;\n"
		"t_dwd_ms = 0;\n"
		"t_report_ms = 10000;\n"
		"w_fixed = 1000;\n"
		"w_mobile_max = 0;\n"
		"t_lto_ms = 10000;\n"
		"early_release = false;\n"
		"reorder_capacity = 1048576;\n"
		"paths = (\n"
		"{ name = \"a-b_0123456789a\"; class = \"mobile\"; "
		"interface = \"abcdefghijklmno\"; fwmark = 0xffffffff; "
		"peer_port = 1; mtu = 576; },\n"
		"{ name = \"z\"; class = \"fixed\"; interface = \"x\"; "
		"fwmark = 4294967295L; mtu = 65535; }\n"
		");\n";
	char path[64], err[CONF_ERR_MAX];
	struct conf c;
	int ret;

	(void)state;
	ret = load_text(text, &c, err, sizeof(err), path, sizeof(path));
	if (ret) {
		print_error("%s\n", err);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(c.role, ROLE_CONCENTRATOR);
	assert_int_equal(c.session_id, UINT32_MAX);
	assert_int_equal(c.port, 65535);
	assert_true(c.sched.k == 10.0);
	assert_int_equal(c.sched.t_dwd_ms, 0);
	assert_int_equal(c.sched.t_report_ms, 10000);
	assert_true(c.sched.w_fixed == 1000.0);
	assert_true(c.sched.w_mobile_max == 0.0);
	assert_int_equal(c.reseq.t_lto_us, 10000000);
	assert_false(c.reseq.early_release);
	assert_int_equal(c.reseq.capacity, 1048576);
	assert_int_equal(c.npaths, 2);
	assert_string_equal(c.path[0].name, "a-b_0123456789a");
	assert_int_equal(c.path[0].cls, PATH_MOBILE);
	assert_string_equal(c.path[0].ifname, "abcdefghijklmno");
	assert_int_equal(c.path[0].fwmark, UINT32_MAX);
	assert_int_equal(c.path[0].peer_port, 1);
	assert_int_equal(c.path[0].mtu, 576);
	assert_string_equal(c.path[1].name, "z");
	assert_int_equal(c.path[1].fwmark, UINT32_MAX);
	assert_int_equal(c.path[1].mtu, 65535);
	assert_true(c.encrypt);
	assert_key_1_32(&c);

	/* the other ends, and a float k */
	ret = load_text("role = \"cpe\";\nsession_id = 1;" KEYL "\nk = 0;\n"
			"t_report_ms = 10;\nt_dwd_ms = 60000;\nw_fixed = 1;\n"
			"w_mobile_max = 1000;\nt_lto_ms = 1;\n"
			"reorder_capacity = 16;\nport = 1;\n" PATHS,
			&c, err, sizeof(err), path, sizeof(path));
	assert_int_equal(ret, 0);
	assert_int_equal(c.session_id, 1);
	assert_true(c.sched.k == 0.0);
	assert_int_equal(c.sched.t_dwd_ms, 60000);
	assert_int_equal(c.sched.t_report_ms, 10);
	assert_int_equal(c.reseq.t_lto_us, 1000);
	assert_int_equal(c.reseq.capacity, 16);
	assert_int_equal(c.port, 1);

	ret = load_text(TOP("k = 0.1;"), &c, err, sizeof(err), path,
			sizeof(path));
	assert_int_equal(ret, 0);
	assert_true(c.sched.k == 0.1);

	/* a backup path beside the fixed one */
	ret = load_text(PATH2("name = \"lte\"; class = \"backup\"; "
			      "interface = \"wan-lte\"; " PEER),
			&c, err, sizeof(err), path, sizeof(path));
	if (ret) {
		print_error("%s\n", err);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(c.path[1].cls, PATH_BACKUP);
	/* no budget by default: the month from the 1st; a week's budget */
	assert_int_equal(c.path[1].budget_mb, 0);
	assert_int_equal(c.path[1].budget_period, BUDGET_MONTH);
	assert_int_equal(c.path[1].budget_reset_day, 1);
	ret = load_text(PATH2(LTE_KEYS PEER "budget_mb = 15000; "
			      "budget_period = \"week\"; "
			      "budget_reset_day = 7; budget_used_mb = 12;"),
			&c, err, sizeof(err), path, sizeof(path));
	assert_int_equal(ret, 0);
	assert_int_equal(c.path[1].budget_mb, 15000);
	assert_int_equal(c.path[1].budget_period, BUDGET_WEEK);
	assert_int_equal(c.path[1].budget_reset_day, 7);
	assert_int_equal(c.path[1].budget_used_mb, 12);
	assert_int_equal(c.path[0].budget_reset_day, 1);
	assert_string_equal(c.budget_state_file,
			    "/var/lib/l3bond/budget.state");
	assert_int_equal(c.budget_save_min, 15);
}

/* Traffic classes: every key read into the matcher's struct, the
 * defaults, all six modes, the limits exactly, a catch-all, both roles,
 * and a loaded match classifying a packet as it says. */
static void test_classes(void **state)
{
	static const uint8_t v6[16] = {0x20, 0x01, 0x0d, 0xb8};
	char err[CONF_ERR_MAX], path[256], text[8192];
	const struct cls_match *m;
	uint8_t pkt[28] = {0x45, 46 << 2, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0,
			   10, 1, 2, 3, 192, 0, 2, 9, 0x13, 0xc4, 0x27, 0x10};
	struct conf c, d;
	const char *key;
	size_t len = 0;
	unsigned i;
	int ret;

	(void)state;
	ret = load_text(CLS("{ name = \"voip\"; match = { family = 4; dscp = "
			    "[ 46, 34 ]; proto = ( \"udp\", 6 ); sport = ( "
			    "5060, \"10000-20000\" ); dport = [ \"5061\", "
			    "\"0-1\" ]; src = [ \"10.0.0.0/8\" ]; dst = [ "
			    "\"192.0.2.0/24\", \"0.0.0.0/0\" ]; }; mode = "
			    "\"pin\"; path = \"lte\"; fallback = true; },\n"
			    "{ name = \"backup-v6\"; match = { src = [ "
			    "\"2001:db8::/32\", \"10.9.0.0/16\" ]; proto = "
			    "[ \"sctp\", \"132\" ]; }; mode = \"bypass\"; },\n"
			    "{ name = \"all\"; match = {}; }"),
			&c, err, sizeof(err), path, sizeof(path));
	assert_int_equal(ret, -EINVAL); /* sctp and "132" are one */
	assert_non_null(strstr(err, "traffic_classes[1].match.proto[1]: bad "
				    "value '132': protocol 132 given twice"));
	ret = load_text(CLS("{ name = \"voip\"; match = { family = 4; dscp = "
			    "[ 46, 34 ]; proto = ( \"udp\", 6 ); sport = ( "
			    "5060, \"10000-20000\" ); dport = [ \"5061\", "
			    "\"0-1\" ]; src = [ \"10.0.0.0/8\" ]; dst = [ "
			    "\"192.0.2.0/24\", \"0.0.0.0/0\" ]; }; mode = "
			    "\"pin\"; path = \"lte\"; fallback = true; },\n"
			    "{ name = \"backup-v6\"; match = { src = [ "
			    "\"2001:db8::/32\", \"10.9.0.0/16\" ]; proto = "
			    "[ \"sctp\", \"0\" ]; }; mode = \"bypass\"; },\n"
			    "{ name = \"all\"; match = {}; }"),
			&c, err, sizeof(err), path, sizeof(path));
	if (ret) {
		print_error("%s\n", err);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(c.nclasses, 3);
	assert_string_equal(c.class[0].name, "voip");
	assert_int_equal(c.class[0].mode, CLASS_PIN);
	assert_int_equal(c.class[0].path, 1);
	assert_true(c.class[0].fallback);
	m = &c.class[0].m;
	assert_int_equal(m->family, 4);
	assert_true(m->dscp == (1ull << 46 | 1ull << 34));
	assert_int_equal(m->nproto, 2);
	assert_int_equal(m->proto[0], 17);
	assert_int_equal(m->proto[1], 6);
	assert_int_equal(m->nsport, 2);
	assert_int_equal(m->sport[0].lo, 5060);
	assert_int_equal(m->sport[0].hi, 5060);
	assert_int_equal(m->sport[1].lo, 10000);
	assert_int_equal(m->sport[1].hi, 20000);
	assert_int_equal(m->ndport, 2);
	assert_int_equal(m->dport[0].lo, 5061);
	assert_int_equal(m->dport[0].hi, 5061);
	assert_int_equal(m->dport[1].lo, 0);
	assert_int_equal(m->dport[1].hi, 1);
	assert_int_equal(m->nsrc, 1);
	assert_int_equal(m->src[0].family, 4);
	assert_int_equal(m->src[0].len, 8);
	assert_int_equal(m->src[0].addr[0], 10);
	assert_int_equal(m->ndst, 2);
	assert_int_equal(m->dst[0].addr[2], 2);
	assert_int_equal(m->dst[1].len, 0);
	/* defaults: any family, no path, no fallback */
	assert_string_equal(c.class[1].name, "backup-v6");
	assert_int_equal(c.class[1].mode, CLASS_BYPASS);
	assert_int_equal(c.class[1].path, -1);
	assert_false(c.class[1].fallback);
	m = &c.class[1].m;
	assert_int_equal(m->family, 0);
	assert_true(m->dscp == 0);
	assert_int_equal(m->nproto, 2);
	assert_int_equal(m->proto[0], 132);
	assert_int_equal(m->proto[1], 0);
	assert_int_equal(m->nsrc, 2);
	assert_int_equal(m->src[0].family, 6);
	assert_int_equal(m->src[0].len, 32);
	assert_memory_equal(m->src[0].addr, v6, 16);
	assert_int_equal(m->src[1].family, 4);
	assert_int_equal(c.class[2].mode, CLASS_BOND);
	m = &c.class[2].m;
	assert_true(m->family == 0 && m->dscp == 0 && !m->nproto &&
		    !m->nsport && !m->ndport && !m->nsrc && !m->ndst);
	/* 10.1.2.3:5060 -> 192.0.2.9:10000 UDP, EF: voip misses on its
	 * dport, the catch-all takes it; with dport 5061, voip */
	assert_int_equal(cls_classify(&c.class[0].m, c.nclasses, pkt,
				      sizeof(pkt)),
			 2);
	pkt[22] = 0x13;
	pkt[23] = 0xc5;
	assert_int_equal(cls_classify(&c.class[0].m, c.nclasses, pkt,
				      sizeof(pkt)),
			 0);
	/* a reload applies them: no structure */
	d = c;
	d.nclasses = 1;
	d.class[0].mode = CLASS_FLOW;
	assert_true(conf_same_structure(&c, &d, &key));
	assert_int_equal(conf_key_find(CONF_TOP, "traffic_classes")->apply,
			 CONF_RELOAD);

	/* every mode by its name, on a concentrator too */
	for (i = 0; i < CLASS_NMODES; i++) {

		snprintf(text, sizeof(text),
			 CTOP("traffic_classes = ( { name = \"x\"; match = "
			      "{}; mode = \"%s\"; %s} );"),
			 conf_class_mode_name((enum conf_class_mode)i),
			 i == CLASS_PIN ? "path = \"dsl\"; " : "");
		ret = load_text(text, &c, err, sizeof(err), path,
				sizeof(path));
		if (ret) {
			print_error("%s\n", err);
		}
		assert_int_equal(ret, 0);
		assert_int_equal(c.class[0].mode, i);
		assert_int_equal(c.class[0].path, i == CLASS_PIN ? 0 : -1);
	}
	assert_string_equal(conf_class_mode_name(CLASS_LOWEST_DELAY),
			    "lowest_delay");
	assert_string_equal(conf_class_mode_name(CLASS_NMODES), "?");

	/* none at all, and exactly the limits: 16 classes, 8 per list */
	ret = load_text(TOP("traffic_classes = ();"), &c, err, sizeof(err),
			path, sizeof(path));
	assert_int_equal(ret, 0);
	assert_int_equal(c.nclasses, 0);
	len += (size_t)snprintf(text + len, sizeof(text) - len,
				HEAD "traffic_classes = (");
	for (i = 0; i < CLS_MAX; i++) {
		len += (size_t)snprintf(
			text + len, sizeof(text) - len,
			"%s{ name = \"c%u\"; match = { dscp = [ 0, 1, 2, 3, "
			"4, 5, 6, %u ]; sport = [ 1, 2, 3, 4, 5, 6, 7, 8 ]; "
			"dst = [ \"::/0\", \"1::/16\", \"2::/16\", "
			"\"3::/16\", \"4::/16\", \"5::/16\", \"6::/16\", "
			"\"7::/16\" ]; }; }\n",
			i ? "," : "", i, 7 + i);
	}
	len += (size_t)snprintf(text + len, sizeof(text) - len, ");\n" PATHS);
	assert_true(len < sizeof(text));
	ret = load_text(text, &c, err, sizeof(err), path, sizeof(path));
	if (ret) {
		print_error("%s\n", err);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(c.nclasses, CLS_MAX);
	assert_string_equal(c.class[CLS_MAX - 1].name, "c15");
	assert_int_equal(c.class[CLS_MAX - 1].m.ndst, CLS_LIST_MAX);
	assert_true(c.class[CLS_MAX - 1].m.dscp == (0x7full | 1ull << 22));
}

/* The daemon's keys at the edges of their ranges. */
/* IPv6 prefixes beside IPv4 ones, the same network in both families is
 * no duplicate, and the overlap test both ways. */
static void test_prefixes6(void **state)
{
	static const uint8_t want[3][16] = {
		{0x20, 0x01, 0x0d, 0xb8, 0, 0x01},
		{0},
		{0x20, 0x01, 0x0d, 0xb8, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		 0x80},
	};
	struct conf c;
	struct conf_prefix a, b;
	char err[CONF_ERR_MAX], path[256], buf[64];
	int ret;

	(void)state;
	ret = load_text(CTOP("prefixes = [\"2001:db8:1::/48\", \"::/0\", "
			     "\"2001:db8:1::80/121\", \"0.0.0.0/0\"];"),
			&c, err, sizeof(err), path, sizeof(path));
	if (ret) {
		print_error("%s\n", err);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(c.nprefixes, 4);
	assert_true(c.prefix[0].v6);
	assert_int_equal(c.prefix[0].len, 48);
	assert_memory_equal(c.prefix[0].addr6, want[0], 16);
	assert_true(c.prefix[1].v6);
	assert_int_equal(c.prefix[1].len, 0);
	assert_memory_equal(c.prefix[1].addr6, want[1], 16);
	assert_true(c.prefix[2].v6);
	assert_int_equal(c.prefix[2].len, 121);
	assert_memory_equal(c.prefix[2].addr6, want[2], 16);
	assert_false(c.prefix[3].v6);
	assert_int_equal(c.prefix[3].addr, 0);
	assert_string_equal(conf_prefix_str(&c.prefix[2], buf, sizeof(buf)),
			    "2001:db8:1::80/121");
	assert_string_equal(conf_prefix_str(&c.prefix[3], buf, sizeof(buf)),
			    "0.0.0.0/0");
	/* overlap: the shorter prefix's bits decide, families never mix */
	assert_true(conf_prefix_overlap(&c.prefix[0], &c.prefix[2]));
	assert_true(conf_prefix_overlap(&c.prefix[2], &c.prefix[0]));
	assert_true(conf_prefix_overlap(&c.prefix[1], &c.prefix[0]));
	assert_false(conf_prefix_overlap(&c.prefix[1], &c.prefix[3]));
	assert_false(conf_prefix_overlap(&c.prefix[3], &c.prefix[1]));
	a = c.prefix[2];
	b = c.prefix[2];
	b.addr6[15] = 0x00; /* 2001:db8:1::/121: next to a, not in it */
	assert_false(conf_prefix_overlap(&a, &b));
	b.len = 120; /* contains a */
	assert_true(conf_prefix_overlap(&a, &b));
	b.len = 121;
	b.addr6[15] = 0x80;
	b.addr6[14] = 0x01; /* differs in a whole byte before the last */
	assert_false(conf_prefix_overlap(&a, &b));

	/* two CPEs whose IPv6 prefixes overlap are refused */
	ret = load_text(
		"role = \"concentrator\";\nport = 7000;\n"
		"paths = (\n{ " DSL_KEYS "},\n{ " LTE_KEYS "}\n);\n"
		"cpes = (\n{ name = \"a\"; session_id = 1; key = \"" TKEY
		"\"; prefixes = [\"2001:db8:1::/48\"]; },\n"
		"{ name = \"b\"; session_id = 2; key = \"" TKEY2
		"\"; prefixes = [\"10.0.0.0/8\", "
		"\"2001:db8:1:2::/64\"]; }\n);\n",
		&c, err, sizeof(err), path, sizeof(path));
	assert_int_equal(ret, -EINVAL);
	if (!strstr(err, "overlaps")) {
		print_error("%s\n", err);
	}
	assert_non_null(strstr(err, "prefix 2001:db8:1:2::/64 overlaps "
				    "2001:db8:1::/48 of CPE \"a\""));
}

static void test_daemon_keys(void **state)
{
	char path[64], err[CONF_ERR_MAX];
	struct conf c;
	int ret;

	(void)state;
	ret = load_text(TOP("ingress_queue = 65535; egress_queue = 0; "
			    "lan_interfaces = (\"lan0\", \"a\", \"b\", \"c\", "
			    "\"d\", \"e\", \"f\", \"abcdefghijklmno\"); "
			    "bond_output = true; release_mark = 0xffffffff; "
			    "log_level = \"debug\"; keepalive_ms = 100;"),
			&c, err, sizeof(err), path, sizeof(path));
	if (ret) {
		print_error("%s\n", err);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(c.ingress_queue, 65535);
	assert_int_equal(c.egress_queue, 0);
	assert_int_equal(c.nlan, 8);
	assert_string_equal(c.lan[0], "lan0");
	assert_string_equal(c.lan[7], "abcdefghijklmno");
	assert_true(c.bond_output);
	assert_int_equal(c.release_mark, UINT32_MAX);
	assert_int_equal(c.log_level, CONF_LOG_DEBUG);
	/* the deprecated key: 3 x 100 ms, raised to 2 probe intervals */
	assert_int_equal(c.probe_interval_ms, 200);
	assert_int_equal(c.dead_after_ms, 400);

	ret = load_text(CTOP("prefixes = [\"0.0.0.0/0\", \"10.0.0.0/8\", "
			     "\"192.0.2.7/32\", \"10.0.0.0/9\"]; "
			     "keepalive_ms = 1000; log_level = \"error\";"),
			&c, err, sizeof(err), path, sizeof(path));
	if (ret) {
		print_error("%s\n", err);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(c.nprefixes, 4);
	assert_int_equal(c.prefix[0].addr, 0);
	assert_int_equal(c.prefix[0].len, 0);
	assert_int_equal(c.prefix[1].addr, htonl(0x0a000000));
	assert_int_equal(c.prefix[1].len, 8);
	assert_int_equal(c.prefix[2].addr, htonl(0xc0000207));
	assert_int_equal(c.prefix[2].len, 32);
	assert_int_equal(c.prefix[3].len, 9);
	for (int i = 0; i < 4; i++) {
		assert_false(c.prefix[i].v6);
	}
	assert_int_equal(c.dead_after_ms, 3000); /* 3 x keepalive_ms */
	assert_int_equal(c.log_level, CONF_LOG_ERROR);
	assert_false(c.bond_output);
	assert_int_equal(c.nlan, 0);

	/* probe_interval_ms and dead_after_ms at their bounds; given, the
	 * deprecated keepalive_ms changes nothing */
	ret = load_text(TOP("probe_interval_ms = 20; dead_after_ms = 100; "
			    "keepalive_ms = 1000;"),
			&c, err, sizeof(err), path, sizeof(path));
	if (ret) {
		print_error("%s\n", err);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(c.probe_interval_ms, 20);
	assert_int_equal(c.dead_after_ms, 100);
	ret = load_text(TOP("probe_interval_ms = 1000; dead_after_ms = 10000;"),
			&c, err, sizeof(err), path, sizeof(path));
	assert_int_equal(ret, 0);
	assert_int_equal(c.probe_interval_ms, 1000);
	assert_int_equal(c.dead_after_ms, 10000);
	ret = load_text(TOP("probe_interval_ms = 500;"), &c, err, sizeof(err),
			path, sizeof(path));
	assert_int_equal(ret, 0);
	assert_int_equal(c.probe_interval_ms, 500);
	assert_int_equal(c.dead_after_ms, 1000);
}

static void test_ops_keys(void **state)
{
	char path[64], err[CONF_ERR_MAX];
	struct conf c;
	int ret;

	(void)state;
	ret = load_text(TOP("control_socket = \"\"; control_group = "
			    "\"_l3-b0nd\";"),
			&c, err, sizeof(err), path, sizeof(path));
	if (ret) {
		print_error("%s\n", err);
	}
	assert_int_equal(ret, 0);
	assert_string_equal(c.control_socket, "");
	assert_string_equal(c.control_group, "_l3-b0nd");
	ret = load_text(TOP("control_socket = \"/var/run/l3bond/a.sock\";"), &c,
			err, sizeof(err), path, sizeof(path));
	assert_int_equal(ret, 0);
	assert_string_equal(c.control_socket, "/var/run/l3bond/a.sock");
}

/* l3bondctl set: the file's checks, on one value, without a file. */
static void test_set(void **state)
{
	static const struct {
		const char *key, *value, *want;
	} bad[] = {
		{"k", "-1", "k: bad value '-1': out of range 0..10"},
		{"k", "abc", "k: bad value 'abc': expected a number"},
		{"k", "", "k: bad value '': not a single value"},
		{"k", "1;role=1",
		 "k: bad value '1;role=1': not a single value"},
		{"k", "1 2", "k: bad value '1 2': not a single value"},
		{"k", "\"1\"", "k: bad value '\"1\"': not a single value"},
		{"t_dwd_ms", "275",
		 "t_dwd_ms: bad value '275': t_dwd_ms (275) would not be a "
		 "multiple of t_report_ms (50)"},
		{"t_report_ms", "40",
		 "t_report_ms: bad value '40': t_dwd_ms (250) would not be a "
		 "multiple of t_report_ms (40)"},
		{"t_lto_ms", "0",
		 "t_lto_ms: bad value '0': out of range "
		 "1..10000"},
		{"early_release", "1",
		 "early_release: bad value '1': expected true or false"},
		{"log_level", "loud",
		 "log_level: bad value 'loud': expected \"error\""},
		{"port", "1", "port: not a runtime setting"},
		{"paths", "1", "paths: not a runtime setting"},
		{"nosuch", "1", "nosuch: unknown key"},
		{"keepalive_ms", "200",
		 "keepalive_ms: replaced by probe_interval_ms and "
		 "dead_after_ms"},
		{"probe_interval_ms", "19",
		 "probe_interval_ms: bad value '19': out of range 20..1000"},
		{"probe_interval_ms", "501",
		 "probe_interval_ms: bad value '501': dead_after_ms (1000) "
		 "would be less than 2 x probe_interval_ms (501)"},
		{"dead_after_ms", "399",
		 "dead_after_ms: bad value '399': dead_after_ms (399) would "
		 "be less than 2 x probe_interval_ms (200)"},
		{"dead_after_ms", "10001",
		 "dead_after_ms: bad value '10001': out of range 100..10000"},
		/* libconfig 1.5 would wrap these to 200 and 5 */
		{"t_dwd_ms", "4294967496",
		 "t_dwd_ms: bad value '4294967496': too large for this "
		 "libconfig"},
		{"k", "4294967301", "k: bad value '4294967301': too large"},
		{"k\n", "1", "k?: unknown key"},
		/* restart-only, and a secret: never echoed */
		{"key", TKEY, "key: not a runtime setting"},
		{"encrypt", "true", "encrypt: not a runtime setting"},
		{"mtu", "1400", "mtu: not a runtime setting"},
		{"paths[1].mtu", "1400", "paths[1].mtu: not a runtime setting"},
		{"paths[0].peer", "192.0.2.9",
		 "paths[0].peer: not a runtime setting"},
		{"paths[].mtu", "1400", "paths[].mtu: unknown key"},
		{"paths[0].bogus", "1", "paths[0].bogus: unknown key"},
	};
	char err[CONF_ERR_MAX];
	struct conf c, ref;
	unsigned i;

	(void)state;
	conf_defaults(&c);
	ref = c;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (conf_set(&c, bad[i].key, bad[i].value, err, sizeof(err)) !=
			    -EINVAL ||
		    strncmp(err, bad[i].want, strlen(bad[i].want))) {
			print_error("case %u: got '%s', want '%s...'\n", i, err,
				    bad[i].want);
			fail();
		}
		assert_null(strstr(err, TKEY));
		assert_memory_equal(&c, &ref, sizeof(c));
	}
	assert_int_equal(conf_set(&c, "k", "0.7", err, sizeof(err)), 0);
	assert_true(c.sched.k == 0.7);
	assert_int_equal(conf_set(&c, "k", "1", err, sizeof(err)), 0);
	assert_true(c.sched.k == 1.0);
	assert_int_equal(conf_set(&c, "t_dwd_ms", "500", err, sizeof(err)), 0);
	assert_int_equal(c.sched.t_dwd_ms, 500);
	assert_int_equal(conf_set(&c, "t_lto_ms", "80", err, sizeof(err)), 0);
	assert_int_equal(c.reseq.t_lto_us, 80000);
	assert_int_equal(conf_set(&c, "queue_target_ms", "7", err, sizeof(err)),
			 0);
	assert_int_equal(c.sched.queue_target_us, 7000);
	/* the former name sets the same */
	assert_int_equal(conf_set(&c, "dwd_hold_ms", "0", err, sizeof(err)), 0);
	assert_int_equal(c.sched.queue_target_us, 0);
	assert_int_equal(
		conf_set(&c, "early_release", "false", err, sizeof(err)), 0);
	assert_false(c.reseq.early_release);
	assert_int_equal(conf_set(&c, "log_level", "debug", err, sizeof(err)),
			 0);
	assert_int_equal(c.log_level, CONF_LOG_DEBUG);
	assert_int_equal(conf_set(&c, "w_mobile_max", "0x20", err, sizeof(err)),
			 0);
	assert_true(c.sched.w_mobile_max == 32.0);
	assert_int_equal(
		conf_set(&c, "probe_interval_ms", "50", err, sizeof(err)), 0);
	assert_int_equal(c.probe_interval_ms, 50);
	assert_int_equal(conf_set(&c, "dead_after_ms", "100", err, sizeof(err)),
			 0);
	assert_int_equal(c.dead_after_ms, 100);
	/* now 2 x 60 > 100: refused, both kept */
	assert_int_equal(
		conf_set(&c, "probe_interval_ms", "60", err, sizeof(err)),
		-EINVAL);
	assert_int_equal(c.probe_interval_ms, 50);
}

static long long lib_reads(const char *text)
{
	long long v = 0;
	config_t cfg;

	config_init(&cfg);
	assert_true(config_read_string(&cfg, text));
	assert_true(config_lookup_int64(&cfg, "v", &v));
	config_destroy(&cfg);
	return v;
}

/* libconfig 1.5 silently wraps integer literals that do not fit in 32
 * bits; conf_load must refuse them there, and take them where the library
 * reads them right. */
static void test_wide_literals(void **state)
{
	char path[64], want[256], err[CONF_ERR_MAX];
	bool wraps_dec = lib_reads("v = 4294967297;") != 4294967297LL;
	bool wraps_hex = lib_reads("v = 0x100000001;") != 4294967297LL;
	struct conf c;
	int ret;

	(void)state;
	poison(&c);
	ret = load_text("role = \"cpe\";\nsession_id = 4294967297;" KEYL
			"\n" PATHS,
			&c, err, sizeof(err), path, sizeof(path));
	if (wraps_dec) {
		assert_int_equal(ret, -EINVAL);
		snprintf(want, sizeof(want),
			 "%s:2: session_id: bad value "
			 "'4294967297': too large for this libconfig",
			 path);
		assert_memory_equal(err, want, strlen(want));
		assert_non_null(strstr(err, "write '4294967297L'"));
		assert_untouched(&c);
	} else {
		/* read right, then refused for its range */
		assert_int_equal(ret, -EINVAL);
		assert_non_null(strstr(err, ":2: session_id: bad value "
					    "'4294967297': out of range"));
	}

	poison(&c);
	ret = load_text("role = \"cpe\";\nsession_id = 3000000000;" KEYL
			"\n" PATHS,
			&c, err, sizeof(err), path, sizeof(path));
	if (wraps_dec) {
		assert_int_equal(ret, -EINVAL);
		assert_non_null(strstr(err, ":2: session_id: bad value "
					    "'3000000000': too large"));
	} else {
		assert_int_equal(ret, 0);
		assert_int_equal(c.session_id, 3000000000u);
	}

	poison(&c);
	ret = load_text(PATH2(LTE_KEYS PEER "fwmark = 0x100000001;"), &c, err,
			sizeof(err), path, sizeof(path));
	assert_int_equal(ret, -EINVAL);
	if (wraps_hex) {
		assert_non_null(strstr(err, ":5: fwmark: bad value "
					    "'0x100000001': too large"));
	} else {
		assert_non_null(strstr(err, ":5: paths[1].fwmark: bad value "
					    "'0x100000001': out of range"));
	}

	/* negative numbers and floats are not mistaken for wide ints */
	ret = load_text(TOP("k = 2.5e-1; # -99999999999"), &c, err, sizeof(err),
			path, sizeof(path));
	assert_int_equal(ret, 0);
	assert_true(c.sched.k == 0.25);
	ret = load_text(TOP("port = -99999999999;"), &c, err, sizeof(err), path,
			sizeof(path));
	assert_int_equal(ret, -EINVAL);
	assert_non_null(strstr(err, ":3: port: bad value '-99999999999'"));
}

static void test_io_errors(void **state)
{
	char err[CONF_ERR_MAX];
	struct conf c;

	(void)state;
	poison(&c);
	assert_int_equal(load(&c, "conf/nonexistent.conf", err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "conf/nonexistent.conf: No such file or "
				 "directory");
	assert_untouched(&c);

	assert_int_equal(load(&c, "conf", err, sizeof(err)), -EISDIR);
	assert_string_equal(err, "conf: Is a directory");
	assert_untouched(&c);
}

/* A short or absent error buffer still gets a terminated prefix. */
static void test_err_buffer(void **state)
{
	char path[64], err[10];
	struct conf c;

	(void)state;
	poison(&c);
	memset(err, 'x', sizeof(err));
	assert_int_equal(load_text(TOP("port = 0;"), &c, err, sizeof(err), path,
				   sizeof(path)),
			 -EINVAL);
	assert_int_equal(strlen(err), sizeof(err) - 1);
	assert_memory_equal(err, path, sizeof(err) - 1);
	assert_int_equal(
		load_text(TOP("port = 0;"), &c, NULL, 0, path, sizeof(path)),
		-EINVAL);
	assert_int_equal(load(&c, "conf/nonexistent.conf", NULL, 0), -ENOENT);
	assert_untouched(&c);
}

/* A good load replaces the whole struct, paths included. */
/* workers: without the key, one per core, but one (and no error) where
 * workers cannot run; workers = 1 one; a CPE one whatever */
static void test_workers_default(void **state)
{
	static const struct {
		const char *text;
		bool per_core;
	} cases[] = {
		{CTOP(""), true},
		{CTOP("control_socket = \"\";"), false},
		{CTOP("egress_queue = 65535;"), false},
		{CTOP("traffic_classes = ( { name = \"v\"; match = "
		      "{ dscp = [46]; }; mode = \"bypass\"; } );"),
		 false},
		{CTOP("workers = 1;"), false},
		{TOP(""), false},
	};
	char err[CONF_ERR_MAX], path[64], why[CONF_ERR_MAX];
	struct conf c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		write_temp(path, sizeof(path), cases[i].text);
		ret = conf_load(&c, path, err, sizeof(err));
		unlink(path);
		if (ret) {
			print_error("%s\n", err);
		}
		assert_int_equal(ret, 0);
		assert_int_equal(conf_workers(&c),
				 cases[i].per_core ? conf_cores() : 1);
		/* and why, where the default stands for one per core */
		assert_true(c.role != ROLE_CONCENTRATOR || c.workers ||
			    !conf_workers_obstacle(&c, 2, why, sizeof(why)) ==
				    cases[i].per_core);
		conf_free(&c);
	}
}

static void test_reload_replaces(void **state)
{
	char err[CONF_ERR_MAX];
	struct conf c;

	(void)state;
	assert_int_equal(load(&c, "../../conf/cpe.conf", err, sizeof(err)), 0);
	assert_int_equal(load(&c, "conf/minimal.conf", err, sizeof(err)), 0);
	assert_int_equal(c.session_id, 1);
	assert_int_equal(c.path[0].fwmark, 0);
	assert_string_equal(c.path[0].peers[0], "192.0.2.1");
	assert_int_equal(c.path[1].peer_port, 0);
}

/* ---- the key table and what comes from it ----------------------------- */

/* Every entry is sound: one name per group, an alias names a key of its
 * group, and exactly the CONF_RUNTIME keys are settable. */
static void test_table(void **state)
{
	const struct conf_key_info *k, *o;
	char err[CONF_ERR_MAX];
	struct conf c;
	size_t i, j;
	int ret;

	(void)state;
	for (i = 0; (k = conf_key(i)); i++) {
		assert_non_null(k->name);
		assert_non_null(k->help);
		for (j = 0; j < i; j++) {
			o = conf_key(j);
			assert_false(o->group == k->group &&
				     !strcmp(o->name, k->name));
		}
		assert_ptr_equal(conf_key_find(k->group, k->name), k);
		if (k->alias_of) {
			o = conf_key_find(k->group, k->alias_of);
			assert_non_null(o);
			assert_null(o->alias_of);
		}
		if (k->group != CONF_TOP || k->alias_of) {
			continue;
		}
		/* every default went through the key's parser (conf_defaults
		 * aborts on one it refuses; test_defaults pins them) */
		conf_defaults(&c);
		/* set takes exactly the runtime keys (with their default) */
		ret = conf_set(&c, k->name,
			       k->def && k->def[0] != '"' ? k->def : "1", err,
			       sizeof(err));
		if (k->apply == CONF_RUNTIME) {
			assert_true(ret == 0 || strstr(err, "bad value"));
		} else {
			assert_int_equal(ret, -EINVAL);
			assert_null(strstr(err, "bad value"));
		}
	}
	assert_null(conf_key(i + 1));
	/* release_mark: a reload applied it, set refused it (issue 11) */
	conf_defaults(&c);
	assert_int_equal(
		conf_set(&c, "release_mark", "0x100", err, sizeof(err)), 0);
	assert_int_equal(c.release_mark, 0x100);
	assert_int_equal(conf_key_find(CONF_TOP, "release_mark")->apply,
			 CONF_RUNTIME);
	/* the ranges as the documents write them */
	assert_string_equal(
		conf_key_range(conf_key_find(CONF_TOP, "release_mark"), err,
			       sizeof(err)),
		"0..0xffffffff");
	assert_string_equal(
		conf_key_range(conf_key_find(CONF_TOP, "k"), err, sizeof(err)),
		"0..10");
	assert_string_equal(conf_key_range(conf_key_find(CONF_TOP, "role"), err,
					   sizeof(err)),
			    "");
	assert_null(conf_key_find(CONF_TOP, "bogus"));
	assert_non_null(conf_key_find(CONF_PATH, "mtu"));
	assert_null(conf_key_find(CONF_TOP, "mtu"));
}

/* The reload: a change of a CONF_RESTART key is named, the others pass;
 * what was opened is kept; the CPE array is copied and freed. */
static void test_structure(void **state)
{
	char err[CONF_ERR_MAX];
	struct conf a, b;
	const char *key;

	(void)state;
	assert_int_equal(
		conf_load(&a, "../../conf/concentrator.conf", err, sizeof(err)),
		0);
	assert_int_equal(conf_copy(&b, &a), 0);
	assert_true(b.cpe != a.cpe && b.ncpes == a.ncpes && a.ncpes == 1);
	assert_memory_equal(b.cpe, a.cpe, a.ncpes * sizeof(*a.cpe));
	assert_true(conf_same_structure(&a, &b, &key));
	assert_null(key);

	/* runtime and reload keys are no structure */
	assert_int_equal(conf_set(&b, "k", "0.9", err, sizeof(err)), 0);
	b.session_id = 77;
	b.nprefixes = 0;
	assert_true(conf_same_structure(&a, &b, &key));
	b.port++;
	assert_false(conf_same_structure(&a, &b, &key));
	assert_string_equal(key, "port");
	b.port--;
	/* a path's key, and a string's bytes past its end do not count */
	strcpy(b.path[1].ifname, "eth-x");
	assert_false(conf_same_structure(&a, &b, &key));
	assert_string_equal(key, "paths");
	strcpy(b.path[1].ifname, a.path[1].ifname);
	b.path[1].ifname[IF_NAMESIZE - 1] = 'x';
	assert_true(conf_same_structure(&a, &b, &key));
	b.reseq.capacity *= 2;
	assert_false(conf_same_structure(&a, &b, &key));
	assert_string_equal(key, "reorder_capacity");
	b.reseq.capacity = a.reseq.capacity;

	/* what a reload keeps as opened */
	strcpy(b.control_socket, "/tmp/other.sock");
	strcpy(b.control_group, "other");
	conf_keep_opened(&b, &a);
	assert_string_equal(b.control_socket, a.control_socket);
	assert_string_equal(b.control_group, a.control_group);

	conf_free(&b);
	assert_null(b.cpe);
	assert_int_equal(b.ncpes, 0);
	assert_false(conf_has_key(&b));
	conf_free(&b); /* twice: nothing */
	conf_free(&a);

	/* sized by hand (tests), kept entries survive */
	conf_defaults(&a);
	assert_int_equal(conf_cpes_alloc(&a, 2), 0);
	a.cpe[1].session_id = 5;
	assert_int_equal(conf_cpes_alloc(&a, 3), 0);
	assert_int_equal(a.cpe[1].session_id, 5);
	assert_int_equal(a.cpe[2].session_id, 0);
	assert_int_equal(conf_cpes_alloc(&a, CONF_CPE_MAX + 1), -EINVAL);
	assert_int_equal(conf_cpes_alloc(&a, 0), 0);
	assert_null(a.cpe);
}

/* ---- the documents list every key of the table ------------------------- */

/* The whole of file, with the man page escapes that hide a value read
 * as the characters they stand for (\(dq ", \(aq ', \- -, \& nothing). */
static char *slurp(const char *file)
{
	static const char *const esc[][2] = {
		{"\\(dq", "\""}, {"\\(aq", "'"}, {"\\-", "-"}, {"\\&", ""}};
	char *text, *p;
	size_t i, n;
	FILE *f;
	long len;

	f = fopen(file, "r");
	if (!f) {
		print_error("%s: cannot open it\n", file);
	}
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	for (i = 0; i < sizeof(esc) / sizeof(esc[0]); i++) {
		n = strlen(esc[i][0]);
		while ((p = strstr(text, esc[i][0]))) {
			memmove(p + strlen(esc[i][1]), p + n,
				strlen(p + n) + 1);
			memcpy(p, esc[i][1], strlen(esc[i][1]));
		}
	}
	return text;
}

static bool word_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

/* w in [from, to) as a whole word (not part of a longer name). */
static const char *find_word(const char *from, const char *to, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = from; p + n <= to; p++) {
		if (!strncmp(p, w, n) && (p == from || !word_char(p[-1])) &&
		    (p + n == to || !word_char(p[n]))) {
			return p;
		}
	}
	return NULL;
}

/* The text [from, to) gives key k's range and default, as the table has
 * them: "0..60000" and "Default 250" (or "250 ... (default)"); a string's
 * default without its quotes. */
static void says(const char *doc, const char *from, const char *to,
		 const struct conf_key_info *k)
{
	char range[48], def[64], *text = strndup(from, (size_t)(to - from));
	const char *d, *end;
	bool ok = false;

	assert_non_null(text);
	conf_key_range(k, range, sizeof(range));
	if (range[0] && !strstr(text, range)) {
		print_error("%s: %s: range %s not given\n", doc, k->name,
			    range);
		fail();
	}
	if (k->def) {
		snprintf(def, sizeof(def), "%s", k->def + (k->def[0] == '"'));
		def[strcspn(def, "\"")] = '\0';
		/* "Default X" in the same sentence, or "X" (default) */
		for (d = text; (d = strcasestr(d, "default")) && !ok; d++) {
			end = strstr(d, ". ");
			end = end && end < strstr(d, ".\n") ? end
							    : strstr(d, ".\n");
			if (!end) {
				end = text + strlen(text);
			}
			ok = find_word(d, end, def) != NULL;
		}
		d = find_word(text, text + strlen(text), def);
		ok = ok ||
		     (d && strstr(d, "(default)") &&
		      strstr(d, "(default)") - d < (ptrdiff_t)strlen(def) + 4);
		if (!ok) {
			print_error("%s: %s: default %s not given\n", doc,
				    k->name, def);
			fail();
		}
	}
	free(text);
}

/* l3bond.conf(5): every key, deprecated ones and aliases too, has an
 * entry (".TP" then a line naming it in bold) with its range and default. */
static void test_docs_man(void **state)
{
	const char *doc = "conf/l3bond.conf.5";
	const struct conf_key_info *k;
	char *text = slurp("../../conf/l3bond.conf.5");
	const char *p, *line = NULL, *end;
	size_t i;

	(void)state;
	for (i = 0; (k = conf_key(i)); i++) {
		/* the first entry that names it: a path's or a CPE's key
		 * of the same name as a top-level one shares its entry */
		for (p = text; (p = strstr(p, "\n.TP\n")); p++) {
			line = p + 5;
			end = strchr(line, '\n');
			if ((!strncmp(line, ".B ", 3) ||
			     !strncmp(line, ".BR ", 4)) &&
			    find_word(line, end, k->name)) {
				break;
			}
		}
		if (!p) {
			print_error("%s: no entry of %s\n", doc, k->name);
			fail();
		}
		end = line;
		while ((end = strchr(end + 1, '\n')) &&
		       strncmp(end, "\n.TP", 4) && strncmp(end, "\n.SH", 4) &&
		       strncmp(end, "\n.SS", 4)) {
		}
		says(doc, line, end ? end : line + strlen(line), k);
	}
	free(text);
}

/* The comment block of sample key name ("name = ..." or "#name = ..."
 * at the start of a line): the comment lines just above it. */
static bool block(const char *text, const char *name, const char **from,
		  const char **to)
{
	char pat[64];
	const char *p, *b;
	size_t n;

	for (p = text; p; p = strchr(p + 1, '\n')) {
		const char *l = p == text ? p : p + 1;

		l += *l == '#';
		n = (size_t)snprintf(pat, sizeof(pat), "%s = ", name);
		if (!strncmp(l, pat, n)) {
			break;
		}
	}
	if (!p) {
		return false;
	}
	/* back over the "# ..." lines above it (and the keys set with it:
	 * "ingress_queue = 0;" above "egress_queue = 1;") */
	for (b = p; b > text;) {
		const char *prev = b - 1;

		while (prev > text && prev[-1] != '\n') {
			prev--;
		}
		if (!strncmp(prev, "# ---", 5) ||
		    !(*prev == '#' || (islower((unsigned char)*prev) &&
				       strstr(prev, " = ") < b))) {
			break;
		}
		b = prev;
	}
	*from = b;
	*to = p + 1;
	return true;
}

/* A key of a path in a sample's "Keys of a path:" list ("#   name   ..."),
 * up to the next key of the list. */
static bool list_entry(const char *text, const char *name, const char **from,
		       const char **to)
{
	char pat[64];
	const char *p, *q;

	snprintf(pat, sizeof(pat), "\n#   %s ", name);
	p = strstr(text, pat);
	if (!p) {
		return false;
	}
	for (q = strchr(p + 1, '\n'); q && !strncmp(q, "\n#    ", 6);
	     q = strchr(q + 1, '\n')) {
	}
	*from = p;
	*to = q ? q : p + strlen(p);
	return true;
}

/* conf/cpe.conf and conf/concentrator.conf: every key of their role (not
 * the deprecated ones), with its range and default in the comment above
 * it; a path's keys in the list of the paths' comment; on the
 * concentrator the CPE group's keys named in the comment of cpes; a
 * traffic class's and its match's keys, with their ranges and defaults,
 * in the comment of traffic_classes. */
static void sample(const char *doc, const char *file, unsigned other_role)
{
	char *text = slurp(file);
	const struct conf_key_info *k;
	const char *from, *to;
	size_t i;

	for (i = 0; (k = conf_key(i)); i++) {
		if (k->flags & (other_role | CONF_KEY_DEPRECATED)) {
			continue;
		}
		if (k->group == CONF_CPES) {
			assert_true(block(text, "cpes", &from, &to));
			if (!find_word(from, to, k->name)) {
				print_error("%s: cpes: %s not named\n", doc,
					    k->name);
				fail();
			}
			continue;
		}
		/* a class's and a match's keys in the comment of
		 * traffic_classes, with their ranges and defaults */
		if (k->group == CONF_CLASS || k->group == CONF_MATCH) {
			assert_true(block(text, "traffic_classes", &from, &to));
			if (!find_word(from, to, k->name)) {
				print_error("%s: traffic_classes: %s not "
					    "named\n",
					    doc, k->name);
				fail();
			}
			says(doc, from, to, k);
			continue;
		}
		if (!(k->group == CONF_TOP
			      ? block(text, k->name, &from, &to)
			      : list_entry(text, k->name, &from, &to))) {
			print_error("%s: %s missing\n", doc, k->name);
			fail();
		}
		says(doc, from, to, k);
	}
	free(text);
}

static void test_docs_samples(void **state)
{
	(void)state;
	sample("conf/cpe.conf", "../../conf/cpe.conf", CONF_KEY_CONCENTRATOR);
	sample("conf/concentrator.conf", "../../conf/concentrator.conf",
	       CONF_KEY_CPE);
}

/* The OpenWrt translator: an option of each key of the UCI file (its type
 * list), written in the key table's order list; the types and the range
 * checks are l3bondd's (--check), so only the names are its own. */
static void test_docs_uci(void **state)
{
	const char *doc = "openwrt/net/l3bond/files/l3bond-uci2conf";
	char *text = slurp("../../openwrt/net/l3bond/files/l3bond-uci2conf");
	const char *types, *top, *pk, *ck, *mk, *line, *end;
	const char *path_types, *class_types;
	const struct conf_key_info *k;
	char opt[64];
	size_t i;

	(void)state;
	types = strstr(text, "n = split(\"enabled:b role:s");
	top = strstr(text, "ntop = split(\"");
	pk = strstr(text, "npk = split(\"");
	ck = strstr(text, "nck = split(\"");
	mk = strstr(text, "nmk = split(\"");
	assert_non_null(types);
	assert_non_null(top);
	assert_non_null(pk);
	assert_non_null(ck);
	assert_non_null(mk);
	/* the type lists: the top level's, a path's, a class's */
	path_types = strstr(types + 1, "n = split(\"enabled:b");
	assert_non_null(path_types);
	class_types = strstr(path_types + 1, "n = split(\"enabled:b");
	assert_non_null(class_types);
	for (i = 0; (k = conf_key(i)); i++) {
		if (k->flags & CONF_KEY_NO_UCI) {
			continue;
		}
		/* order: the list of the key's group */
		line = k->group == CONF_TOP	? top
		       : k->group == CONF_PATH	? pk
		       : k->group == CONF_CLASS ? ck
						: mk;
		end = strchr(line, '\n');
		if (!find_word(strchr(line, '"') + 1, end, k->name)) {
			print_error("%s: %s not in its key list\n", doc,
				    k->name);
			fail();
		}
		/* path and class sections, a class's match options: not an
		 * option of their own */
		if (!strcmp(k->name, "paths") ||
		    !strcmp(k->name, "traffic_classes") ||
		    (k->group == CONF_CLASS && !strcmp(k->name, "match"))) {
			continue;
		}
		/* type: "name:t" in the section's type list */
		snprintf(opt, sizeof(opt), " %s:", k->name);
		line = k->group == CONF_TOP    ? types
		       : k->group == CONF_PATH ? path_types
					       : class_types;
		assert_non_null(line);
		end = strchr(line, '\n');
		if (!memmem(line, (size_t)(end - line), opt, strlen(opt))) {
			print_error("%s: no option %s\n", doc, k->name);
			fail();
		}
	}
	free(text);
}

/* A man page's list of keys in bold, between the text start and the text
 * end, is exactly the top-level keys that take effect as apply says (but
 * the deprecated ones).  The lists the daemon and l3bondctl print come
 * from the table; these are the ones a reader finds in the man pages. */
static void man_list(const char *doc, const char *text, const char *start,
		     const char *end, enum conf_apply apply)
{
	const char *from = strstr(text, start), *to, *l;
	const struct conf_key_info *k;
	char word[64];
	size_t i, n;

	if (!from) {
		print_error("%s: no \"%s\"\n", doc, start);
	}
	assert_non_null(from);
	to = strstr(from, end);
	assert_non_null(to);
	for (l = from; l && l < to; l = strchr(l + 1, '\n')) {
		l += *l == '\n';
		if (strncmp(l, ".B", 2) || !strchr(" R", l[2])) {
			continue;
		}
		l += strcspn(l, " ") + 1;
		l += *l == '(';
		n = strspn(l, "abcdefghijklmnopqrstuvwxyz_");
		snprintf(word, sizeof(word), "%.*s", (int)n, l);
		k = conf_key_find(CONF_TOP, word);
		if (!k || k->apply != apply) {
			print_error("%s: %s is listed with the wrong keys\n",
				    doc, word);
			fail();
		}
	}
	for (i = 0; (k = conf_key(i)); i++) {
		if (k->group == CONF_TOP && k->apply == apply &&
		    !(k->flags & CONF_KEY_DEPRECATED) &&
		    !find_word(from, to, k->name)) {
			print_error(
				"%s: %s missing from the list after \"%s\"\n",
				doc, k->name, start);
			fail();
		}
	}
}

static void test_docs_lists(void **state)
{
	char *d = slurp("../../gateway/l3bondd.8");
	char *c = slurp("../../gateway/l3bondctl.8");

	(void)state;
	man_list("gateway/l3bondd.8", d, "The tunables\n", "\napply at once",
		 CONF_RUNTIME);
	man_list("gateway/l3bondd.8", d, "so do the CPEs\n", "\nsee\n",
		 CONF_RELOAD);
	man_list("gateway/l3bondd.8", d, "needs a restart\n", "\nis refused",
		 CONF_RESTART);
	man_list("gateway/l3bondctl.8", c, "with their ranges):\n",
		 "\n.B dead_after_ms\nmust", CONF_RUNTIME);
	free(d);
	free(c);
}

/* The CPE array: CONF_CPE_MAX CPEs of cpes fit, exactly that many are
 * allocated, one more is refused. */
static void test_cpe_limit(void **state)
{
	size_t cap = 200 * (CONF_CPE_MAX + 2), len = 0;
	char *text = malloc(cap), path[64], err[CONF_ERR_MAX];
	char b64[sodium_base64_ENCODED_LEN(32, sodium_base64_VARIANT_ORIGINAL)];
	unsigned char key[32] = {0};
	struct conf c;
	unsigned i;
	int ret;

	(void)state;
	assert_non_null(text);
	len += (size_t)snprintf(
		text + len, cap - len,
		"role = \"concentrator\";\npaths = (\n{ " DSL_KEYS
		"},\n{ " LTE_KEYS "}\n);\ncpes = (\n");
	for (i = 0; i <= CONF_CPE_MAX; i++) {
		key[0] = (unsigned char)(i >> 16);
		key[1] = (unsigned char)(i >> 8);
		key[2] = (unsigned char)i;
		key[3] = 1;
		sodium_bin2base64(b64, sizeof(b64), key, sizeof(key),
				  sodium_base64_VARIANT_ORIGINAL);
		len += (size_t)snprintf(
			text + len, cap - len,
			"%s{ name = \"c%u\"; session_id = %u; key = \"%s\"; "
			"prefixes = [\"10.%u.%u.%u/30\"]; }\n",
			i ? "," : "", i, i + 1, b64, i >> 14, (i >> 6) & 255,
			(i & 63) << 2);
		if (i + 1 == CONF_CPE_MAX) {
			/* the file so far, closed: CONF_CPE_MAX CPEs */
			memcpy(text + len, ");\n", 4);
			write_temp(path, sizeof(path), text);
			text[len] = '\0';
			ret = conf_load(&c, path, err, sizeof(err));
			unlink(path);
			if (ret) {
				print_error("%s\n", err);
			}
			assert_int_equal(ret, 0);
			assert_int_equal(c.ncpes, CONF_CPE_MAX);
			assert_int_equal(c.cpe[CONF_CPE_MAX - 1].session_id,
					 CONF_CPE_MAX);
			conf_free(&c);
		}
	}
	len += (size_t)snprintf(text + len, cap - len, ");\n");
	assert_true(len < cap);
	ret = load_text(text, &c, err, sizeof(err), path, sizeof(path));
	assert_int_equal(ret, -EINVAL);
	snprintf(path, sizeof(path), "more than %d CPEs", CONF_CPE_MAX);
	assert_non_null(strstr(err, path));
	free(text);
}

/* The CPEs' index against the naive check: random CPEs with random IPv4
 * and IPv6 prefixes (few bits of room, so that overlaps are frequent, of
 * every kind: equal, inside, around), loaded; refused exactly when some
 * pair of CPEs overlaps. */
static void test_cpe_overlap_random(void **state)
{
	enum { NCPE = 40, ROUNDS = 300 }; /* about 60 % refused */
	struct conf_prefix p[NCPE][3];
	unsigned np[NCPE], r, i, j, a, b, refused = 0;
	size_t cap = 200 * NCPE + 512, len;
	char *text = malloc(cap), err[CONF_ERR_MAX], path[64], pfx[64];
	char b64[sodium_base64_ENCODED_LEN(32, sodium_base64_VARIANT_ORIGINAL)];
	unsigned char key[32] = {1};
	struct conf c;
	bool overlap;
	int ret;

	(void)state;
	assert_non_null(text);
	srand(15);
	for (r = 0; r < ROUNDS; r++) {
		len = (size_t)snprintf(text, cap,
				       "role = \"concentrator\";\npaths = (\n{ " DSL_KEYS
				       "},\n{ " LTE_KEYS "}\n);\ncpes = (\n");
		overlap = false;
		for (i = 0; i < NCPE; i++) {
			np[i] = 1 + (unsigned)rand() % 3;
			for (a = 0; a < np[i]; a++) {
				struct conf_prefix *q = &p[i][a];

				memset(q, 0, sizeof(*q));
				q->v6 = rand() % 4 == 0;
				/* 9 to 24 of 24 random bits after a fixed
				 * 10/8 or 2001::/16 */
				q->len = (uint8_t)(9 + rand() % 16);
				if (q->v6) {
					q->addr6[0] = 0x20;
					q->addr6[1] = 0x01;
					q->addr6[2] = (uint8_t)rand();
					q->addr6[3] = (uint8_t)rand();
					q->addr6[4] = (uint8_t)rand();
					q->len = (uint8_t)(q->len + 16);
				} else {
					uint32_t v;

					q->len = (uint8_t)(q->len + 8);
					v = 10u << 24 |
						     ((uint32_t)rand() & 0xffffffu);

					v &= ~0u << (32 - q->len);
					q->addr = htonl(v);
				}
				/* host bits zero, as the config wants */
				if (q->v6) {
					unsigned bit;

					for (bit = q->len; bit < 128; bit++) {
						q->addr6[bit / 8] &= (uint8_t)~(
							0x80u >> (bit % 8));
					}
				}
			}
			for (j = 0; j < i; j++) {
				for (a = 0; a < np[i]; a++) {
					for (b = 0; b < np[j]; b++) {
						overlap |= conf_prefix_overlap(
							&p[i][a], &p[j][b]);
					}
				}
			}
			key[1] = (unsigned char)i;
			sodium_bin2base64(b64, sizeof(b64), key, sizeof(key),
					  sodium_base64_VARIANT_ORIGINAL);
			len += (size_t)snprintf(
				text + len, cap - len,
				"%s{ name = \"c%u\"; session_id = %u; key = "
				"\"%s\"; prefixes = [",
				i ? "," : "", i, i + 1, b64);
			for (a = 0; a < np[i]; a++) {
				/* the same prefix twice in one CPE: refused
				 * on its own, not what is tested here */
				for (b = 0; b < a && !conf_prefix_overlap(
							     &p[i][a], &p[i][b]);
				     b++) {
				}
				if (b < a) {
					np[i] = a;
					break;
				}
				len += (size_t)snprintf(
					text + len, cap - len, "%s\"%s\"",
					a ? ", " : "",
					conf_prefix_str(&p[i][a], pfx,
							sizeof(pfx)));
			}
			len += (size_t)snprintf(text + len, cap - len, "]; }\n");
		}
		len += (size_t)snprintf(text + len, cap - len, ");\n");
		assert_true(len < cap);
		write_temp(path, sizeof(path), text);
		ret = conf_load(&c, path, err, sizeof(err));
		unlink(path);
		if (!ret) {
			conf_free(&c);
		} else if (!strstr(err, "overlaps")) {
			print_error("round %u: %s\n", r, err);
		}
		assert_int_equal(ret, overlap ? -EINVAL : 0);
		assert_true(!ret || strstr(err, "overlaps"));
		refused += overlap;
	}
	/* both outcomes were met, many times */
	assert_true(refused > ROUNDS / 10 && refused < ROUNDS * 9 / 10);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_sample_cpe),
		cmocka_unit_test(test_sample_concentrator),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_daemon_keys),
		cmocka_unit_test(test_prefixes6),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_ops_keys),
		cmocka_unit_test(test_auth_keys),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_wide_literals),
		cmocka_unit_test(test_io_errors),
		cmocka_unit_test(test_err_buffer),
		cmocka_unit_test(test_workers_default),
		cmocka_unit_test(test_reload_replaces),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_cpe_limit),
		cmocka_unit_test(test_cpe_overlap_random),
		cmocka_unit_test(test_docs_man),
		cmocka_unit_test(test_docs_samples),
		cmocka_unit_test(test_docs_uci),
		cmocka_unit_test(test_docs_lists),
	};

	return cmocka_run_group_tests(tests, NULL, free_held);
}
