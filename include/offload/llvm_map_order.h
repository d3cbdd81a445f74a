/*
 * llvm_map_order: the order in which LLVM's hash maps of strings iterate,
 * for laying out what LLVM's tools lay out in that order, byte for byte.
 * clang-offload-packager keeps an image's key=value arguments in a
 * DenseMap<StringRef> and copies them, in its order, to the image's string
 * map: a StringMap in 16 (djbHash), a MapVector from 17 on.  The string
 * entries of the binary it writes follow that last order.
 *
 * Both maps are open-addressing tables with power-of-two bucket counts,
 * quadratic probing (bucket += 1, 2, 3 ...) and rehashing into a table twice
 * the size when three quarters are used; iteration is bucket order.  They
 * differ in the hash, the first table's size and when the load is checked.
 */
#ifndef OFFLOAD_LLVM_MAP_ORDER_H
#define OFFLOAD_LLVM_MAP_ORDER_H

#include <stddef.h>

enum ol_llvm_map {
	OL_LLVM_STRINGMAP_16,     /* llvm::StringMap of LLVM 16 (djbHash, seed 0) */
	OL_LLVM_DENSEMAP_STRREF,  /* llvm::DenseMap<StringRef, ...> (hash_value, fixed seed) */
};

/* Given n distinct keys in insertion order, writes to order[] the indices
 * of the keys in the map's iteration order. */
void ol_llvm_map_order(enum ol_llvm_map map, const char *const *keys, size_t n, size_t *order);

#endif
