// libvips, loaded when the first photo needs it (PERF-5): libvips and the ~80 libraries it links
// (librsvg, poppler, GnuTLS, x265, …) are ≈ 25 MB of resident memory in a server that has not
// handled a photo yet. The shim (VipsShim, built as libDisposableVips.so) is opened with dlopen and
// called through these wrappers, which have the shim's signatures.
#ifndef VIPS_LOADER_H
#define VIPS_LOADER_H

#include "vips_shim.h"

/// Opens the shim at `path` and starts libvips (vs_init); 0 on success, else a message in `error`.
/// Safe to call again after a success (it does nothing).
int vsl_load(const char *path, char *error, size_t error_length);

int vsl_probe(const char *path, const char *format, vs_header *header, char *error, size_t error_length);
int vsl_render(const char *path, const char *format, int preview_size, int thumbnail_size, int analysis_size, int quality,
               vs_derivatives *out, char *error, size_t error_length);
void vsl_free(vs_derivatives *derivatives);
int vsl_first_look(const void *data, size_t length, int max_side, vs_derivatives *out, char *error, size_t error_length);
int vsl_collage(const char *const *paths, int count, int columns, int width, const char *title, const char *subtitle, int quality,
                void **out, size_t *out_length, char *error, size_t error_length);
void vsl_free_buffer(void *buffer);

/// Puts the calling thread at a low CPU priority (nice 10), for good. libvips's worker threads take the nice of the
/// thread that starts them, so a thread that asks libvips for pixels must be one kept for images: then every decode
/// and encode yields to the threads that answer requests (about a tenth of a core against one busy request thread)
/// and takes whatever CPU they leave. Not 19: on a machine shared with other busy work (a database, a test suite's
/// browsers) a render at 1.5 % of a core waited for minutes.
void vsl_lower_thread_priority(void);

/// Hands memory freed by decoders back to the system (glibc's malloc_trim); 1 if some was released.
int vsl_release_freed_memory(void);

#endif
