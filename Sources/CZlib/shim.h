#ifndef GCDCAT_CZLIB_SHIM_H
#define GCDCAT_CZLIB_SHIM_H
#include <zlib.h>
#endif
