/* build_info.c - what this build of the library has: the libraries it was
 * linked with, as they say their own version at run time (tracefold
 * --version). */
#include <stdio.h>
#include <otf2/otf2.h>
#include <protobuf-c/protobuf-c.h>
#include <sqlite3.h>
#include <zlib.h>
#include <zstd.h>
#include "tracefold/io.h"
#include "tracefold/pipeline.h"

void tf_build_libraries(char *buf, size_t n)
{
	snprintf(buf, n, "zlib %s, zstd %s, protobuf-c %s, OTF2 %s, SQLite %s", zlibVersion(),
		 ZSTD_versionString(), protobuf_c_version(), OTF2_VERSION, sqlite3_libversion());
}
