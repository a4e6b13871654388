#ifndef NETRULES_CCURL_SHIM_H
#define NETRULES_CCURL_SHIM_H
#include <curl/curl.h>
#endif
