/*
 * use_order.h: the clone's side of the use-list order (use_order.cpp), for
 * clone_defining.cpp; C++ only.
 */
#ifndef OFFLOAD_BACKEND_USE_ORDER_H
#define OFFLOAD_BACKEND_USE_ORDER_H

#include <llvm/Transforms/Utils/ValueMapper.h>

struct ol_be_use_places;

/* Each value of a clone (map: the merged module's values to the clone's)
 * with two uses or more gets them in the order of its original's. */
void ol_be_follow_use_order(llvm::ValueToValueMapTy &map, ol_be_use_places *places);

#endif
