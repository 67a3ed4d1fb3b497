# SPDX-License-Identifier: BSD-2-Clause
# Stand-in for OpenWrt's package.mk, for tests/openwrt/test_openwrt.sh.
# The source is built once (prepare, configure, compile, install, in
# OpenWrt's order) for all the packages of the Makefile, then each
# BuildPackage's Package/NAME/install fills its package root, and its
# fields are written next to it (root-NAME.fields); nothing else of the
# real one (no ipk, no metadata, no dependencies built).  `make fields`
# writes the fields alone, without building: what the test needs of a
# Makefile changed to fail (its DEPENDS).
PKG_BUILD_DIR ?= $(BUILD_DIR)/$(PKG_NAME)-$(PKG_VERSION)
PKG_INSTALL_DIR ?= $(PKG_BUILD_DIR)/ipkg-install
PKG_ROOT = $(BUILD_DIR)/root-$(1)

.PHONY: all build fields

all:

build:
	$(Build/Prepare)
	$(Build/Configure)
	$(Build/Compile)
	$(Build/Install)

# Package/NAME sets SECTION, DEPENDS, ... for the package it defines: they
# are read at once into NAME's own variables, after clearing what the
# previous package set.
define BuildPackage
SECTION:=
CATEGORY:=
TITLE:=
DEPENDS:=
PKGARCH:=
$$(eval $$(Package/$(1)))
FIELDS_$(1):=SECTION=$$(SECTION)|CATEGORY=$$(CATEGORY)|TITLE=$$(TITLE)|DEPENDS=$$(strip $$(DEPENDS))|PKGARCH=$$(PKGARCH)
all: package-$(1)
fields: fields-$(1)
.PHONY: package-$(1) fields-$(1)
fields-$(1):
	mkdir -p $(BUILD_DIR)
	printf '%s\n' "PKG_NAME=$$(PKG_NAME)" "PKG_VERSION=$$(PKG_VERSION)" \
		"PKG_RELEASE=$$(PKG_RELEASE)" "PKG_LICENSE=$$(PKG_LICENSE)" \
		"PKG_LICENSE_FILES=$$(PKG_LICENSE_FILES)" \
		"$$(subst |," ",$$(FIELDS_$(1)))" \
		"CONFFILES=$$(strip $$(Package/$(1)/conffiles))" \
		> $(call PKG_ROOT,$(1)).fields
package-$(1): build fields-$(1)
	rm -rf $(call PKG_ROOT,$(1)) && mkdir -p $(call PKG_ROOT,$(1))
	$$(call Package/$(1)/install,$(call PKG_ROOT,$(1)))
endef
