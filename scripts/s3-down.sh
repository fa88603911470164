#!/usr/bin/env bash
# Stops the daemons scripts/s3-up.sh started (by pid file) and removes DIR.
# Copied from the team's shared ceph-down.sh (credit: the gcdcat S3 test harness).
# Usage: scripts/s3-down.sh DIR
D=${1:?dir}
for n in client.rgw.sts client.rgw.a osd.0 mon.a; do
  f=$D/run/$n.pid; [ -f "$f" ] && kill "$(cat $f)" 2>/dev/null
done
sleep 2
for n in client.rgw.sts client.rgw.a osd.0 mon.a; do
  f=$D/run/$n.pid; [ -f "$f" ] && kill -0 "$(cat $f)" 2>/dev/null && kill -9 "$(cat $f)"
done
rm -rf "$D"
