# SPDX-License-Identifier: BSD-2-Clause
# Stand-in for OpenWrt's package.mk, for tests/openwrt/test_openwrt.sh.
# BuildPackage runs the package's steps in OpenWrt's order (prepare,
# configure, compile, install, Package/NAME/install into the package root)
# and writes the package's fields next to the root; nothing else of the
# real one (no ipk, no metadata, no dependencies built).
PKG_BUILD_DIR ?= $(BUILD_DIR)/$(PKG_NAME)-$(PKG_VERSION)
PKG_INSTALL_DIR ?= $(PKG_BUILD_DIR)/ipkg-install
PKG_ROOT = $(BUILD_DIR)/root-$(1)

define BuildPackage
$$(eval $$(Package/$(1)))
all:
	$$(Build/Prepare)
	$$(Build/Configure)
	$$(Build/Compile)
	$$(Build/Install)
	rm -rf $(call PKG_ROOT,$(1)) && mkdir -p $(call PKG_ROOT,$(1))
	$$(call Package/$(1)/install,$(call PKG_ROOT,$(1)))
	printf '%s\n' "PKG_NAME=$$(PKG_NAME)" "PKG_VERSION=$$(PKG_VERSION)" \
		"PKG_RELEASE=$$(PKG_RELEASE)" "PKG_LICENSE=$$(PKG_LICENSE)" \
		"SECTION=$$(SECTION)" "CATEGORY=$$(CATEGORY)" "TITLE=$$(TITLE)" \
		"DEPENDS=$$(strip $$(DEPENDS))" \
		"CONFFILES=$$(strip $$(Package/$(1)/conffiles))" \
		> $(call PKG_ROOT,$(1)).fields
endef
