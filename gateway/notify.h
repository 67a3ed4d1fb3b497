/* SPDX-License-Identifier: BSD-2-Clause */
/* Readiness notification to systemd (notify.c). */
#ifndef L3BOND_GW_NOTIFY_H
#define L3BOND_GW_NOTIFY_H

/* One sd_notify message ("READY=1", "RELOADING=1", ...) to
 * $NOTIFY_SOCKET; nothing without it.  0 or -errno. */
int gw_notify(const char *state);

#endif
