# SPDX-License-Identifier: BSD-2-Clause
# Stand-in for OpenWrt's rules.mk, for tests/openwrt/test_openwrt.sh: the
# variables openwrt/net/l3bond/Makefile uses, with OpenWrt's values.
INCLUDE_DIR:=$(TOPDIR)/include
BUILD_DIR:=$(TOPDIR)/build_dir
INSTALL_DIR:=install -d -m0755
INSTALL_BIN:=install -m0755
INSTALL_DATA:=install -m0644
INSTALL_CONF:=install -m0600
LN:=ln -sf
CP:=cp -fpR
