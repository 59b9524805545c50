// A small, plain-C face for libvips: its API is variadic (which Swift cannot call) and glib-typed.
#ifndef VIPS_SHIM_H
#define VIPS_SHIM_H

#include <stddef.h>

/// What a photo's header says, read without decoding pixels.
typedef struct {
    int width;
    int height;
    int pages;
} vs_header;

/// The derivatives of one photo, JPEG-encoded, plus facts read from the original.
typedef struct {
    int width;              // of the original, after EXIF orientation
    int height;
    char taken_at[20];      // EXIF DateTimeOriginal "YYYY:MM:DD HH:MM:SS", or "" when absent
    void *preview;
    size_t preview_length;
    void *thumbnail;
    size_t thumbnail_length;
} vs_derivatives;

/// Starts libvips once: no operation cache, one thread per image (our pool runs images in parallel),
/// and loaders marked untrusted (PDF, SVG, …) blocked.
int vs_init(void);

/// Reads the header of `path` with the loader for `format` ("jpeg", "png", "gif", "webp", "heif").
int vs_probe(const char *path, const char *format, vs_header *header, char *error, size_t error_length);

/// Decodes `path` once (JPEGs shrunk on load as far as the preview allows), applies the EXIF
/// orientation, and encodes a preview and a thumbnail from the same in-memory image, stripped of metadata.
int vs_render(const char *path, const char *format, int preview_size, int thumbnail_size, int quality,
              vs_derivatives *out, char *error, size_t error_length);

void vs_free(vs_derivatives *derivatives);

#endif
