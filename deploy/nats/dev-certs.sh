#!/bin/sh
# Certificates for NATS TLS on one Docker host (docker-compose.yml), or for a quick test:
#
#   sh deploy/nats/dev-certs.sh deploy/nats/tls
#
# writes <dir>/ca.crt (what clients trust: FLEX_NATS_TLS_CA), <dir>/tls.crt and <dir>/tls.key (the
# server's, valid for the names `nats` and `localhost` and the address 127.0.0.1), valid 825 days.
# The CA's key is deleted once it has signed: nothing else can be issued from it. Kubernetes gets
# its certificates from cert-manager instead (deploy/k8s/nats-tls.yaml). Needs openssl.
set -eu
dir="${1:?usage: dev-certs.sh <output dir>}"
mkdir -p "$dir"
umask 077
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -days 825 -subj "/CN=flex-nats-dev-ca" \
  -keyout "$tmp/ca.key" -out "$dir/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=nats" \
  -keyout "$dir/tls.key" -out "$tmp/tls.csr" 2>/dev/null
printf 'subjectAltName=DNS:nats,DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n' > "$tmp/ext"
openssl x509 -req -in "$tmp/tls.csr" -CA "$dir/ca.crt" -CAkey "$tmp/ca.key" -CAcreateserial -CAserial "$tmp/ca.srl" \
  -days 825 -extfile "$tmp/ext" -out "$dir/tls.crt" 2>/dev/null
chmod 644 "$dir/ca.crt" "$dir/tls.crt"
echo "wrote $dir/ca.crt $dir/tls.crt $dir/tls.key"
