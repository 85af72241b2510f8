#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make-db.sh PGVERSION: run inside the LAVA root (kernel/lava-root.sh),
# offline in a network namespace of its own, once when the root is built:
# lava-server's configuration (the database password), its database and
# migrations, as the package's postinst does when PostgreSQL runs (it did
# not while apt installed it).
set -eu
v=$1

mkdir -p /run/postgresql
chown postgres:postgres /run/postgresql
pg_ctlcluster "$v" main start
python3 /usr/share/lava-server/postinst.py
pg_ctlcluster "$v" main stop
