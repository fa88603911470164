#ifndef GCDCAT_CISAL_SHIM_H
#define GCDCAT_CISAL_SHIM_H
// Intel ISA-L from Debian's libisal-dev: crc32_gzip_refl and isal_adler32.
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#endif
