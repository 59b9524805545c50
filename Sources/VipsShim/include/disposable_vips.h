// libDisposableVips.so exports the functions of vips_shim.h (vs_init, vs_probe, vs_render, vs_free);
// the server reaches them through VipsLoader, never by linking.
#include "vips_shim.h"
