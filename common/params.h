/* SPDX-License-Identifier: BSD-2-Clause */
/* The parameters of the ingress scheduler, the traffic classes' matches
 * and the egress resequencer: plain values, no behaviour.
 *
 * They are defined here, below common/conf.h, ingress/sched.h,
 * ingress/classify.h and egress/reseq.h, because the config and the
 * modules hold them: the config reads them
 * (common/conf_keys.c), the scheduler and the resequencer run with them.
 * common/ must not include ingress/ or egress/.  Their meaning and their
 * invariants are those of the modules that use them (ingress/sched.h,
 * egress/reseq.h); their ranges are the config's key table.
 */
#ifndef L3BOND_PARAMS_H
#define L3BOND_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

/* A path's class (its config key `class`; names in common/conf_keys.c):
 * fixed lines carry a constant weight, mobile ones the adaptive weight
 * (ingress/sched.h), backup ones carry only while no fixed or mobile path
 * is up (suspect counts as down), evenly, and never get the adaptive
 * weight; the daemon spares them its periodic traffic meanwhile
 * (gateway/link.c, gw_link_idle; gateway/egress.c, send_report). */
enum path_class {
	PATH_FIXED = 0,
	PATH_MOBILE = 1,
	PATH_BACKUP = 2,
	PATH_NCLASS,
};

/* ingress/sched.h */
struct ing_sched_params {
	double k;	   /* AWI steepness */
	uint32_t t_dwd_ms; /* quiet time before DWD; multiple of t_report_ms */
	uint32_t t_report_ms;
	double w_fixed;	      /* constant weight of each fixed path */
	double w_mobile_max;  /* clamp of w_mobile */
	uint32_t queue_target_us; /* a fixed path's standing queue over this
				   * is congestion (ingress/sched.h); 0:
				   * loss only, the paper's algorithm */
	bool rate_auto; /* learn a fixed path's rate from its standing queue
			 * and pace it (ingress/sched.h) */
	uint32_t mobile_aqm_us; /* bulk overflow to a mobile path whose
				 * standing queue over its floor exceeds
				 * this is dropped on CoDel's law
				 * (ingress/sched.h); 0: never */
};

/* ingress/classify.h: a traffic class's match (its meaning there) */
enum {
	CLS_MAX = 16,	  /* classes */
	CLS_LIST_MAX = 8, /* entries of one list of a match */
	CLS_EXT_MAX = 8,  /* IPv6 extension headers walked */
};

struct cls_range {
	uint16_t lo, hi; /* ports, inclusive */
};

struct cls_prefix {
	uint8_t family; /* 4 or 6 */
	uint8_t len;	/* 0..32 or 0..128 */
	uint8_t addr[16];
};

struct cls_match {
	uint8_t family; /* 0: any, 4, 6 */
	uint64_t dscp;	/* bit d: DSCP d matches; 0: any */
	uint8_t nproto, proto[CLS_LIST_MAX]; /* 0 entries: any */
	uint8_t nsport, ndport;
	struct cls_range sport[CLS_LIST_MAX], dport[CLS_LIST_MAX];
	uint8_t nsrc, ndst;
	struct cls_prefix src[CLS_LIST_MAX], dst[CLS_LIST_MAX];
};

/* egress/reseq.h */
struct egr_reseq_params {
	uint32_t t_lto_us;
	bool early_release;
	uint32_t repair_queue_us; /* a path's loss under this much queue is
				   * its line's errors: copies are asked for
				   * (egress/egress.h); 0: never */
	uint32_t capacity; /* power of two, >= 2 */
};

#endif
