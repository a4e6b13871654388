#ifndef CLIBFUZZER_H
#define CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for programs that have a `main` of their own (llvm.org/docs/LibFuzzer.html).
/// Linked in only by `-sanitize=fuzzer`; netrules-fuzz calls it only when built with NETRULES_FUZZING.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
