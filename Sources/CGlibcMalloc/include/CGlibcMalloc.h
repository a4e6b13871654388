#ifndef CGLIBCMALLOC_H
#define CGLIBCMALLOC_H

// glibc's <malloc.h>, which Swift's Glibc module leaves out: tests read mallinfo2() (glibc 2.33 and
// later) to count the heap bytes a piece of work keeps. Nothing in the product links this.
#include <malloc.h>

#endif
