#pragma once
#include <vips/vips.h>

/// `in` reduced so that its longest side is `size` (or as it is, when it is not longer), in memory. Linear kernel.
int reduce_to(VipsImage *in, int size, VipsImage **out);
