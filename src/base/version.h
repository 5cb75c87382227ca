#ifndef SBIO_VERSION_H
#define SBIO_VERSION_H
#define SBIO_VERSION "0.1.0"
#endif
