# expect: l3bond-exporter: usr/sbin/l3bond-exporter links libmicrohttpd.so
# The exporter's package without libmicrohttpd.
s/ +libmicrohttpd-no-ssl$//
