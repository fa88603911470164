#ifndef GCDCAT_CDEFLATE_SHIM_H
#define GCDCAT_CDEFLATE_SHIM_H
// libdeflate from Debian's libdeflate-dev: libdeflate_crc32 and libdeflate_adler32.
#include <libdeflate.h>
#endif
