/* version.h - tracefold's version, for outputs that record it. */
#ifndef TRACEFOLD_VERSION_H
#define TRACEFOLD_VERSION_H

#define TRACEFOLD_VERSION "0.1.0"

#endif
