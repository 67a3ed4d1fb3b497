/* SPDX-License-Identifier: BSD-2-Clause */
/* The configuration: one libconfig file read into a validated struct.
 *
 * This is the only module that touches libconfig (common/conf*.c; the
 * keys and what is derived from them: the table of conf_keys.c, whose
 * header says how to add a key).  Every error names the file, the line,
 * the key and the bad value.  Unknown keys are errors.
 * Everything the rest of the code reads from the config is already checked
 * here, so no other module validates config values again.
 */
#ifndef L3BOND_CONF_H
#define L3BOND_CONF_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/auth.h"
#include "common/budget.h"
#include "common/params.h"
#include "common/wire.h"

enum conf_role {
	ROLE_CPE = 0,
	ROLE_CONCENTRATOR = 1,
};

enum conf_limits {
	CONF_NAME_MAX = 16, /* path name, with NUL */
	CONF_ADDR_MAX = 64, /* textual address, with NUL */
	CONF_ERR_MAX = 512,
	CONF_LAN_MAX = 8,     /* lan_interfaces */
	CONF_PREFIX_MAX = 32, /* prefixes */
	CONF_PATH_MAX = 108,  /* control_socket, with NUL (sun_path) */
	CONF_GROUP_MAX = 33,  /* control_group, with NUL */
	CONF_CPE_MAX = 65536, /* CPEs of one concentrator (a checked limit) */
	CONF_PEERS_MAX = 4,   /* peers: a CPE's concentrators, in order */
	CONF_WORKERS_MAX = 64, /* worker processes of a concentrator */
};

/* log_level: messages of this level and more severe are logged */
enum conf_log_level {
	CONF_LOG_ERROR = 0,
	CONF_LOG_WARNING = 1,
	CONF_LOG_INFO = 2,
	CONF_LOG_DEBUG = 3,
};

/* An IPv4 or IPv6 prefix of the CPE's LAN (concentrator: traffic to
 * bond).  A zeroed one is IPv4 0.0.0.0/0. */
struct conf_prefix {
	bool v6; /* addr6 (len 0..128), else addr (len 0..32) */
	uint8_t len;
	uint32_t addr;	   /* IPv4: network byte order, host bits zero */
	uint8_t addr6[16]; /* IPv6: host bits zero */
};

/* a (length len) contains b's network or b a's: they overlap (same family
 * only) */
bool conf_prefix_overlap(const struct conf_prefix *a,
			 const struct conf_prefix *b);
/* "a.b.c.d/len" or "x:y::/len" into buf */
const char *conf_prefix_str(const struct conf_prefix *p, char *buf, size_t len);

/* A CPE as the sessions see it.  On a CPE: itself (no prefixes).  On a
 * concentrator: one per CPE it serves, the plain top-level one (session_id,
 * key, prefixes at the top, name "") first if there is one. */
struct conf_cpe {
	char name[CONF_NAME_MAX];
	uint32_t session_id;
	struct auth_key psk;
	bool encrypt;
	unsigned nprefixes; /* concentrator: the CPE's routed prefixes */
	struct conf_prefix prefix[CONF_PREFIX_MAX];
};

/* What a traffic class's packets get (issue 13): today's per-packet
 * bonding, one path per flow, a named path, the path of least delay,
 * every path, or no tunnel at all. */
enum conf_class_mode {
	CLASS_BOND = 0,
	CLASS_FLOW = 1,
	CLASS_PIN = 2,
	CLASS_LOWEST_DELAY = 3,
	CLASS_REDUNDANT = 4,
	CLASS_BYPASS = 5,
	CLASS_NMODES = 6,
};

/* A traffic class (traffic_classes): the first whose match a packet meets
 * (cls_classify) is the packet's; none, the default class (bond). */
struct conf_class {
	char name[CONF_NAME_MAX];
	struct cls_match m;
	enum conf_class_mode mode;
	int path;      /* pin: the index of the path, -1 none */
	bool fallback; /* pin: the other paths while it is down */
};

struct conf_path {
	char name[CONF_NAME_MAX];
	enum path_class cls;
	char ifname[IF_NAMESIZE];
	uint32_t fwmark;
	/* CPE: the concentrators' addresses on this path (peers; peer is
	 * the one-entry form), the first preferred; entry i of every path
	 * is concentrator i, all of one family.  npeers 0: none (a
	 * concentrator's paths) */
	unsigned npeers;
	char peers[CONF_PEERS_MAX][CONF_ADDR_MAX];
	uint16_t peer_port; /* 0: the top-level port */
	uint32_t mtu; /* of the path's interface; 0: read it at start */
	uint32_t rate_kbps; /* the line's rate, to pace it (0: unknown) */
	/* the CPE's data budget of the path (common/budget.h): MB (10^6
	 * bytes) a period, 0: none; the period, its reset day, and what was
	 * used at start when no state file says */
	uint32_t budget_mb;
	enum budget_period budget_period;
	uint32_t budget_reset_day;
	uint32_t budget_used_mb;
};

struct conf {
	enum conf_role role;
	uint32_t session_id;
	uint16_t port;
	/* The pre-shared key (key): never all zero in a loaded config, all
	 * zero from conf_defaults (no key given).  A struct conf that held
	 * one is dropped with conf_wipe(). */
	struct auth_key psk;
	bool encrypt; /* AUTH_ENCRYPT, else AUTH_MAC */
	struct ing_sched_params sched;
	struct egr_reseq_params reseq;
	/* CPE: the top-level peers, for every path that gives none */
	unsigned npeers;
	char peers[CONF_PEERS_MAX][CONF_ADDR_MAX];
	unsigned npaths;
	struct conf_path path[WIRE_MAX_PATHS];
	/* the daemon (gateway/) */
	uint16_t ingress_queue; /* NFQUEUE of the traffic to bond */
	uint16_t egress_queue;	/* NFQUEUE of the tunnel's packets */
	/* concentrator: worker processes, 0 (the default): one per core
	 * (conf_workers);
	 * worker k drains ingress_queue and egress_queue + k * stride */
	unsigned workers;
	unsigned nlan;		/* cpe: devices whose forwarded traffic */
	char lan[CONF_LAN_MAX][IF_NAMESIZE]; /* is bonded */
	bool bond_output;		     /* cpe: bond local output too */
	unsigned nprefixes; /* concentrator: destinations to bond */
	struct conf_prefix prefix[CONF_PREFIX_MAX];
	/* the traffic classes of what this box sends, in their order */
	unsigned nclasses;
	struct conf_class class[CLS_MAX];
	uint32_t release_mark; /* mark of released packets, 0: none */
	enum conf_log_level log_level;
	uint32_t probe_interval_ms; /* PROBE on every path this often */
	uint32_t dead_after_ms;	    /* a path unanswered this long is down */
	uint32_t idle_probe_ms;	    /* the CPE's PROBE on an idle path */
	/* every CPE (see struct conf_cpe): ncpes entries on the heap, owned
	 * by this struct conf (conf_free, conf_copy); NULL when none */
	unsigned ncpes;
	struct conf_cpe *cpe;
	/* operations (l3bondctl) */
	char control_socket[CONF_PATH_MAX];  /* "": no control socket */
	char control_group[CONF_GROUP_MAX];  /* may use the socket too */
	/* the paths' data budgets, kept across restarts (common/budget.h);
	 * "": not kept */
	char budget_state_file[CONF_PATH_MAX];
	uint32_t budget_save_min; /* written at most this often, minutes */
};

/* How a key takes effect in a running l3bondd. */
enum conf_apply {
	CONF_RUNTIME, /* l3bondctl set, and a reload (SIGHUP) */
	CONF_RELOAD,  /* a reload applies it */
	CONF_RESTART, /* a reload that changes it is refused: restart */
	CONF_OPENED,  /* a reload keeps what the daemon opened: restart */
};

/* Where a key is written. */
enum conf_group {
	CONF_TOP,  /* the top level of the file */
	CONF_PATH, /* a group of paths */
	CONF_CPES, /* a group of cpes, or a file of cpe_dir */
	CONF_CLASS, /* a group of traffic_classes */
	CONF_MATCH, /* the match group of a traffic class */
};

enum conf_key_flags {
	CONF_KEY_REQUIRED = 1 << 0,	/* missing is an error */
	CONF_KEY_CPE = 1 << 1,		/* only with role "cpe" */
	CONF_KEY_CONCENTRATOR = 1 << 2, /* only with role "concentrator" */
	CONF_KEY_HEX = 1 << 3,		/* a bit pattern: range shown in hex */
	CONF_KEY_NUMBER = 1 << 4,	/* integer or floating point */
	CONF_KEY_DEPRECATED = 1 << 5,	/* still read; no sample sets it */
	CONF_KEY_NO_UCI = 1 << 6,	/* no option of the OpenWrt UCI file */
	CONF_KEY_SIM = 1 << 7,		/* also a flag of l3bond-sim */
};

/* A key as the config's table declares it (common/conf_keys.c), for what
 * is derived from the table: l3bondctl set, the reload, the help texts,
 * the simulator's flags, the OpenWrt init script and the docs' test. */
struct conf_key_info {
	const char *name;
	enum conf_group group;
	enum conf_apply apply;
	unsigned flags;	      /* enum conf_key_flags */
	long long min, max;   /* min > max: no range */
	const char *def;      /* as written in the file; NULL: none, or not a
			       * constant (the top-level port, ...) */
	const char *help;     /* one line */
	const char *alias_of; /* an old name of that key; NULL: none */
};

/* The i-th key of the table (top level, then paths, cpes, traffic
 * classes and their matches); NULL past the last. */
const struct conf_key_info *conf_key(size_t i);

/* The key name of group g (an alias gives its own entry); NULL: none. */
const struct conf_key_info *conf_key_find(enum conf_group g, const char *name);

/* Its range as the docs write it: "1..65535", "0..0xffffffff", "0..10";
 * "" without a range. */
const char *conf_key_range(const struct conf_key_info *k, char *buf, size_t n);

/* True if a and b differ in no key a reload must refuse (CONF_RESTART);
 * else false and *key names the first that differs. */
bool conf_same_structure(const struct conf *a, const struct conf *b,
			 const char **key);

/* Copies the keys a reload keeps (CONF_OPENED) from src into dst. */
void conf_keep_opened(struct conf *dst, const struct conf *src);

/* Fills c with the defaults of every key (no paths, no CPE). */
void conf_defaults(struct conf *c);

/* The cores online, at most CONF_WORKERS_MAX. */
unsigned conf_cores(void);
/* The worker processes c asks for: workers, or with 0 (the default) one
 * per core, but one when something keeps n > 1 from running
 * (conf_workers_obstacle); 1 on a CPE. */
unsigned conf_workers(const struct conf *c);
/* Why n workers cannot run with c's settings (a class in mode bypass,
 * queue numbers beyond 16 bits, no control socket, or one too long for
 * the workers' suffix), written into why (len bytes); NULL if nothing. */
const char *conf_workers_obstacle(const struct conf *c, unsigned n, char *why,
				  size_t len);
/* The queue number of worker k, from the configured one (base): the
 * workers' pairs are |egress_queue - ingress_queue| + 1 apart, so no two
 * numbers meet whatever the count. */
unsigned conf_worker_queue(const struct conf *c, unsigned base, unsigned k);

/* A deep copy of src into dst (dst is overwritten, not freed first).
 * Returns 0 or -ENOMEM (dst then holds no CPE). */
int conf_copy(struct conf *dst, const struct conf *src);

/* Wipes the keys of c and frees its CPEs; c keeps its other values and
 * holds no CPE (a second conf_free does nothing). */
void conf_free(struct conf *c);

/* Gives c n zeroed CPEs (n <= CONF_CPE_MAX), freeing those it had: for
 * callers that build a config by hand (tests).  Returns 0 or -errno. */
int conf_cpes_alloc(struct conf *c, unsigned n);

/* True if c holds a pre-shared key (conf_load always gives one). */
bool conf_has_key(const struct conf *c);

/* Overwrites the key material of c (psk, the CPEs'); the rest is left as
 * it was (conf_free also frees the CPEs). */
void conf_wipe(struct conf *c);

/* Reads and validates file into c.  On error returns -EINVAL (or -errno for
 * I/O) and writes one line "file:line: key: bad value 'v': why" into err;
 * c is then untouched.  On success c is overwritten (a loaded c is
 * conf_free()d first by the caller) and owns its CPEs.  A bad key is never
 * quoted whole: at most its first 4 characters, then "..." and its length. */
int conf_load(struct conf *c, const char *file, char *err, size_t errlen);

/* Sets one runtime key of c (CONF_RUNTIME in the table: l3bondd
 * --list-tunables prints them) from its text as it would be written in
 * the file ("0.7", "true", "debug"), checked exactly as conf_load checks
 * it, together with the keys it depends on (t_dwd_ms against t_report_ms,
 * dead_after_ms against probe_interval_ms).
 * On error returns -EINVAL with "key: bad value 'v': why" (or "key: not a
 * runtime setting ...") in err; c is then untouched. */
int conf_set(struct conf *c, const char *key, const char *value, char *err,
	     size_t errlen);

/* conf_set for any top-level key of one value, runtime or not, without
 * the checks across keys (t_dwd_ms against t_report_ms, ...): the caller
 * makes them once all keys are set (the simulator's flags). */
int conf_set_any(struct conf *c, const char *key, const char *value, char *err,
		 size_t errlen);

const char *conf_role_name(enum conf_role r);
const char *conf_class_name(enum path_class c);
const char *conf_log_level_name(enum conf_log_level l);
const char *conf_class_mode_name(enum conf_class_mode m);

#endif
