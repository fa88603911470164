#ifndef GCDCAT_COPENSSL_SHIM_H
#define GCDCAT_COPENSSL_SHIM_H
// OpenSSL's libcrypto from Debian's libssl-dev: the EVP digest API (md5, sha1, sha256, sha512).
#include <openssl/evp.h>
#endif
