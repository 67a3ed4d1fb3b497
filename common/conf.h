/* The configuration: one libconfig file read into a validated struct.
 *
 * This is the only module that touches libconfig.  Every error names the
 * file, the line, the key and the bad value.  Unknown keys are errors.
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
#include "common/wire.h"
#include "egress/reseq.h"
#include "ingress/sched.h"

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
	CONF_CPE_MAX = 1024,  /* CPEs of one concentrator */
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

struct conf_path {
	char name[CONF_NAME_MAX];
	enum path_class cls;
	char ifname[IF_NAMESIZE];
	uint32_t fwmark;
	char peer[CONF_ADDR_MAX]; /* peer address for this path; "" if none */
	uint16_t peer_port;	  /* 0: the top-level port */
	uint32_t mtu; /* of the path's interface; 0: read it at start */
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
	unsigned npaths;
	struct conf_path path[WIRE_MAX_PATHS];
	/* the daemon (gateway/) */
	uint16_t ingress_queue; /* NFQUEUE of the traffic to bond */
	uint16_t egress_queue;	/* NFQUEUE of the tunnel's packets */
	unsigned nlan;		/* cpe: devices whose forwarded traffic */
	char lan[CONF_LAN_MAX][IF_NAMESIZE]; /* is bonded */
	bool bond_output;		     /* cpe: bond local output too */
	unsigned nprefixes; /* concentrator: destinations to bond */
	struct conf_prefix prefix[CONF_PREFIX_MAX];
	uint32_t release_mark; /* mark of released packets, 0: none */
	enum conf_log_level log_level;
	uint32_t probe_interval_ms; /* PROBE on every path this often */
	uint32_t dead_after_ms;	    /* a path silent this long is down */
	/* every CPE (see struct conf_cpe) */
	unsigned ncpes;
	struct conf_cpe cpe[CONF_CPE_MAX];
	/* operations (l3bondctl) */
	char control_socket[CONF_PATH_MAX];  /* "": no control socket */
	char control_group[CONF_GROUP_MAX];  /* may use the socket too */
};

/* Fills c with the defaults of every key (no paths). */
void conf_defaults(struct conf *c);

/* True if c holds a pre-shared key (conf_load always gives one). */
bool conf_has_key(const struct conf *c);

/* Overwrites the key material of c (psk); the rest is left as it was. */
void conf_wipe(struct conf *c);

/* Reads and validates file into c.  On error returns -EINVAL (or -errno for
 * I/O) and writes one line "file:line: key: bad value 'v': why" into err;
 * c is then untouched.  A bad key is never quoted whole: at most its first
 * 4 characters, then "..." and its length. */
int conf_load(struct conf *c, const char *file, char *err, size_t errlen);

/* Sets one runtime tunable of c (k, t_dwd_ms, t_report_ms, w_fixed,
 * w_mobile_max, t_lto_ms, dwd_hold_ms, early_release, log_level,
 * probe_interval_ms, dead_after_ms) from its text as it would be written
 * in the file ("0.7", "true", "debug"), checked exactly as conf_load
 * checks it, together with the keys it depends on (t_dwd_ms against
 * t_report_ms, dead_after_ms against probe_interval_ms).
 * On error returns -EINVAL with "key: bad value 'v': why" (or "key: not a
 * runtime setting ...") in err; c is then untouched. */
int conf_set(struct conf *c, const char *key, const char *value, char *err,
	     size_t errlen);

const char *conf_role_name(enum conf_role r);
const char *conf_class_name(enum path_class c);
const char *conf_log_level_name(enum conf_log_level l);

#endif
