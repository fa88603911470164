#!/usr/bin/env bash
# Installs the C libraries gcdcat links (zlib, ISA-L, libdeflate, OpenSSL, and libcurl for the
# S3 client: Debian -dev packages) and any extra packages named as arguments, when they are
# missing. As root it runs apt-get; otherwise it says what to install and fails. Sourced by
# demo.sh and test.sh, so two commands are enough on a fresh machine.
#
#   scripts/deps.sh [PACKAGE=FILE ...]   (a package is installed when FILE, a command or a path, is missing)
set -euo pipefail
need=()
have() { case $1 in /*) [ -e "$1" ] ;; *) command -v "$1" >/dev/null ;; esac; }
for pair in zlib1g-dev=/usr/include/zlib.h libisal-dev=/usr/include/isa-l.h \
    libdeflate-dev=/usr/include/libdeflate.h libssl-dev=/usr/include/openssl/evp.h \
    libcurl4-openssl-dev=curl-config "$@"; do
    have "${pair#*=}" || need+=("${pair%%=*}")
done
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "deps.sh: installing ${need[*]}" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
else
    echo "deps.sh: missing ${need[*]}; install them (apt-get install ${need[*]}) or run as root" >&2
    exit 1
fi
