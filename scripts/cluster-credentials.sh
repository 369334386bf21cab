#!/usr/bin/env bash
# Makes the credentials of a Phobos cluster with openssl: a cluster CA, a
# certificate signed by it for every machine, and a shared secret.
#
# Usage: scripts/cluster-credentials.sh DIR [NAME...]
#
#   DIR/ca.pem, DIR/ca.key    the cluster CA (keep ca.key off the machines)
#   DIR/node.pem, node.key    a certificate every machine can use
#   DIR/NAME.pem, NAME.key    one per NAME given (a machine each), if any
#   DIR/secret                the shared secret (32 random bytes, base64)
#
# Every certificate names "phobos-cluster" (subjectAltName), the name the
# pods and the scheduler check whatever address they dial, and may serve
# and be a client (mutual TLS). Copy ca.pem, secret and one certificate
# with its key to each machine, as DIR/ca.pem, DIR/secret, DIR/node.pem and
# DIR/node.key, and start phobos-pod and phobos-sched with --credentials DIR
# (or PHOBOS_CLUSTER_CREDENTIALS=DIR). An existing CA in DIR is reused, so
# that machines can be added later.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 DIR [NAME...]" >&2
  exit 2
fi
dir=$1
shift
mkdir -p "$dir"
umask 077
days=825

if [ ! -f "$dir/ca.pem" ] || [ ! -f "$dir/ca.key" ]; then
  openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
    -nodes -keyout "$dir/ca.key" -out "$dir/ca.pem" -days 3650 \
    -subj "/CN=Phobos cluster CA" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
fi

extensions=$(mktemp)
trap 'rm -f "$extensions" "$dir"/*.csr' EXIT
cat >"$extensions" <<EXT
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=DNS:phobos-cluster
EXT

certificate() {
  local name=$1
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$dir/$name.key" -out "$dir/$name.csr" \
    -subj "/CN=phobos $name" 2>/dev/null
  openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
    -CAcreateserial -out "$dir/$name.pem" -days "$days" \
    -extfile "$extensions" 2>/dev/null
  rm -f "$dir/$name.csr"
}

certificate node
for name in "$@"; do
  certificate "$name"
done
if [ ! -f "$dir/secret" ]; then
  openssl rand -base64 32 >"$dir/secret"
fi
chmod 644 "$dir/ca.pem" "$dir"/*.pem
names=""
for name in "$@"; do names="$names, $name.pem"; done
echo "cluster credentials in $dir: ca.pem, node.pem, node.key$names, secret"
