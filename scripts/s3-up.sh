#!/usr/bin/env bash
# One-node Ceph (mon + bluestore OSD on a sparse file) + radosgw (beast on 127.0.0.1) for the
# S3 tests, with the test key pair TESTACCESSKEY / TESTSECRETKEY0123456789. About 18 s.
# Copied from the team's shared ceph-up.sh (credit: the gcdcat S3 test harness).
# Usage: scripts/s3-up.sh DIR [RGW_PORT]   (env: MON_PORT, OBJECTSTORE=bluestore|memstore, STS_PORT)
# STS_PORT starts a second radosgw there with STS on, and a role GcdcatTest the test user may
# assume (S3CredentialLiveTests, with GCDCAT_S3_STS_ENDPOINT). Not on the main one: with STS on,
# RGW answers an unknown key with AccessDenied rather than InvalidAccessKeyId.
set -euo pipefail
D=${1:?dir}; PORT=${2:-7480}; MON_PORT=${MON_PORT:-6789}
MEMSTORE_BYTES=${MEMSTORE_BYTES:-$((6*1024*1024*1024))}
mkdir -p "$D"/{mon/ceph-a,osd/ceph-0,rgw,log,run}
D=$(cd "$D" && pwd)
FSID=$(cat /proc/sys/kernel/random/uuid)
OBJECTSTORE=${OBJECTSTORE:-bluestore}
if [ "$OBJECTSTORE" = bluestore ]; then
  OSD_STORE_CONF="osd objectstore = bluestore
bluestore block create = true
bluestore block size = ${BLUESTORE_BYTES:-$((20*1024*1024*1024))}
bluestore block db create = false
bluestore block wal create = false
osd memory target = 1073741824"
else
  OSD_STORE_CONF="osd objectstore = memstore
memstore device bytes = $MEMSTORE_BYTES"
fi
CONF=$D/ceph.conf
cat > "$CONF" <<EOF
[global]
fsid = $FSID
mon host = v1:127.0.0.1:$MON_PORT
public addr = 127.0.0.1
cluster addr = 127.0.0.1
public network = 127.0.0.0/8
cluster network = 127.0.0.0/8
ms bind ipv6 = false
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
run dir = $D/run
admin socket = $D/run/\$name.asok
log file = $D/log/\$name.log
pid file = $D/run/\$name.pid
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
mon data avail crit = 1
[client]
keyring = $D/\$cluster.\$name.keyring
[mon]
keyring = \$mon_data/keyring
mon data = $D/mon/\$cluster-\$id
[osd]
keyring = \$osd_data/keyring
osd data = $D/osd/\$cluster-\$id
$OSD_STORE_CONF
osd max object size = 1073741824
[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:$PORT
rgw data = $D/rgw
# Virtual-hosted-style requests (BUCKET.localhost:PORT, addressing_style = virtual): curl
# resolves every *.localhost name to the loopback itself, so no /etc/hosts entry is needed.
# localhost itself and 127.0.0.1 stay path-style; any other host name would be taken as a
# bucket's (RGW's CNAME rule).
rgw dns name = localhost
# SSE-C over plain http (loopback tests), and SSE-KMS with RGW's built-in test key store.
rgw crypt require ssl = false
rgw crypt s3 kms backend = testing
rgw crypt s3 kms encryption keys = gcdcat-test-key=Z2NkY2F0IHRlc3Qga2V5LCAzMiBieXRlcyBsb25nISE=
EOF
export CEPH_CONF=$CONF
C="--conf $CONF"
# keys
ceph-authtool --create-keyring $D/mon.keyring --gen-key -n mon. --cap mon 'allow *' >/dev/null
ceph-authtool --create-keyring $D/ceph.client.admin.keyring --gen-key -n client.admin \
  --cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *' >/dev/null
ceph-authtool $D/mon.keyring --import-keyring $D/ceph.client.admin.keyring >/dev/null
# mon
monmaptool --create --add a v1:127.0.0.1:$MON_PORT --fsid "$FSID" $D/monmap >/dev/null
ceph-mon $C --mkfs -i a --monmap $D/monmap --keyring $D/mon.keyring
ceph-mon $C -i a          # daemonizes
# osd
OSD_ID=$(ceph $C osd create)
ceph-osd $C -i "$OSD_ID" --mkfs --mkkey --no-mon-config --osd-uuid "$(cat /proc/sys/kernel/random/uuid)"
ceph $C auth add osd.$OSD_ID osd 'allow *' mon 'allow profile osd' mgr 'allow profile osd' \
  -i $D/osd/ceph-$OSD_ID/keyring
ceph $C osd crush add osd.$OSD_ID 1.0 host=localhost root=default >/dev/null 2>&1 || true
ceph-osd $C -i "$OSD_ID"  # daemonizes
# wait for osd up
for i in $(seq 1 60); do
  ceph $C osd stat 2>/dev/null | grep -q '1 up' && break; sleep 0.5
done
ceph $C osd stat | grep -q '1 up' || { echo "OSD did not come up"; tail -20 $D/log/osd.*.log; exit 1; }
# rgw
ceph $C auth get-or-create client.rgw.a mon 'allow rw' osd 'allow rwx' \
  -o $D/ceph.client.rgw.a.keyring
radosgw $C -n client.rgw.a   # daemonizes
for i in $(seq 1 120); do
  curl -s -o /dev/null http://127.0.0.1:$PORT/ && break; sleep 0.5
done
curl -s -o /dev/null http://127.0.0.1:$PORT/ || { echo "radosgw not answering"; tail -20 $D/log/client.rgw.a.log; exit 1; }
radosgw-admin $C user create --uid=test --display-name=test \
  --access-key=TESTACCESSKEY --secret-key=TESTSECRETKEY0123456789 >/dev/null
if [ -n "${STS_PORT:-}" ]; then
  mkdir -p "$D/rgw-sts"
  printf '[client.rgw.sts]\nrgw frontends = beast endpoint=127.0.0.1:%s\nrgw data = %s\n%s\n%s\n' "$STS_PORT" \
    "$D/rgw-sts" "rgw sts key = gcdcatstskey0001" "rgw s3 auth use sts = true" >> "$CONF"
  ceph $C auth get-or-create client.rgw.sts mon 'allow rw' osd 'allow rwx' -o $D/ceph.client.rgw.sts.keyring
  radosgw $C -n client.rgw.sts
  for i in $(seq 1 120); do curl -s -o /dev/null http://127.0.0.1:$STS_PORT/ && break; sleep 0.5; done
  radosgw-admin $C caps add --uid=test --caps="roles=*" >/dev/null
  radosgw-admin $C role create --role-name=GcdcatTest --path=/ --assume-role-policy-doc=\
'{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam:::user/test"]},"Action":["sts:AssumeRole"]}]}' >/dev/null
  radosgw-admin $C role-policy put --role-name=GcdcatTest --policy-name=AllS3 --policy-doc=\
'{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:*"],"Resource":"arn:aws:s3:::*"}]}' >/dev/null
  echo "rgw with STS on http://127.0.0.1:$STS_PORT, role arn:aws:iam:::role/GcdcatTest"
fi
echo "rgw up on http://127.0.0.1:$PORT  (CEPH_CONF=$CONF)"
