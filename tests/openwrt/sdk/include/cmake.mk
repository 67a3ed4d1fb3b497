# SPDX-License-Identifier: BSD-2-Clause
# Stand-in for OpenWrt's cmake.mk, for tests/openwrt/test_openwrt.sh: the
# host's cmake and compiler instead of the cross toolchain, with the flags
# OpenWrt gives (Release, CMAKE_C_FLAGS_RELEASE=-DNDEBUG, TARGET_CFLAGS as
# CMAKE_C_FLAGS: -Os and OpenWrt's hardening defaults).
TARGET_CFLAGS ?= -Os -pipe -fno-caller-saves -fstack-protector \
	-D_FORTIFY_SOURCE=1 -Wformat -Werror=format-security
PKG_INSTALL:=1
CMAKE_BINARY_DIR = $(PKG_BUILD_DIR)$(if $(CMAKE_BINARY_SUBDIR),/$(CMAKE_BINARY_SUBDIR))
CMAKE_SOURCE_DIR = $(PKG_BUILD_DIR)$(if $(CMAKE_SOURCE_SUBDIR),/$(CMAKE_SOURCE_SUBDIR))

define Build/Configure
	cmake -S $(CMAKE_SOURCE_DIR) -B $(CMAKE_BINARY_DIR) \
		-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE=-DNDEBUG \
		-DCMAKE_C_FLAGS="$(TARGET_CFLAGS)" -DCMAKE_INSTALL_PREFIX=/usr \
		$(CMAKE_OPTIONS) >$(PKG_BUILD_DIR)/configure.log
endef

define Build/Compile
	cmake --build $(CMAKE_BINARY_DIR) -j2 >$(PKG_BUILD_DIR)/compile.log 2>&1 || \
		{ cat $(PKG_BUILD_DIR)/compile.log; false; }
endef

define Build/Install
	DESTDIR=$(PKG_INSTALL_DIR) cmake --install $(CMAKE_BINARY_DIR) >$(PKG_BUILD_DIR)/install.log
endef
