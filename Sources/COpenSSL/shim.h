#ifndef GCDCAT_COPENSSL_SHIM_H
#define GCDCAT_COPENSSL_SHIM_H
// OpenSSL's libcrypto from Debian's libssl-dev: the EVP digest API (md5, sha1, sha256, sha512)
// and the one-shot HMAC() that SigV4 signing uses.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#endif
