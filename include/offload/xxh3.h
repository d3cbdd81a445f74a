/*
 * xxh3: XXH3's 64-bit hash with seed 0 and the default secret, the hash
 * llvm::StringMap has used since LLVM 17 (xxh3_64bits).  offload-link needs
 * it to lay out what LLVM's tools lay out in StringMap order, byte for byte.
 */
#ifndef OFFLOAD_XXH3_H
#define OFFLOAD_XXH3_H

#include <stddef.h>
#include <stdint.h>

uint64_t ol_xxh3_64(const void *data, size_t len);

#endif
