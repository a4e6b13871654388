// The declaration in include/CLibFuzzer.h is all there is; SwiftPM wants a source file per C target.
#include "CLibFuzzer.h"
