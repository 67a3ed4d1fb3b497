# expect: l3bond: usr/sbin/l3bondd links libsodium.so
# The daemon's package without libsodium (as before issue 16: the daemon
# could not have started on the router).
s/ +libsodium / /
