/* SPDX-License-Identifier: BSD-2-Clause */
/* The configuration read and applied while the daemon runs (reload.c):
 * SIGHUP, l3bondctl set and reload. */
#ifndef L3BOND_GW_RELOAD_H
#define L3BOND_GW_RELOAD_H

#include <stddef.h>

#include "common/conf.h"

struct gw;

/* reads file into c, with what the daemon needs of it checked; 0 or
 * -errno with err */
int gw_conf_load(struct conf *c, const char *file, char *err, size_t len);
/* apply c's tunables to the running daemon.  0, or -EINVAL with why in
 * err when c changes what needs a restart (role, session, paths, queues,
 * ...); nothing applied then. */
int gw_apply_conf(struct gw *gw, const struct conf *c, char *err, size_t len);
/* read the config file again and apply it; 0 or -errno with err */
int gw_reload(struct gw *gw, char *err, size_t len);

#endif
