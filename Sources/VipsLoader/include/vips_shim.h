// A small, plain-C face for libvips: its API is variadic (which Swift cannot call) and glib-typed.
#ifndef VIPS_SHIM_H
#define VIPS_SHIM_H

#include <stddef.h>

/// What a photo's header says, read without decoding pixels.
typedef struct {
    int width;              // as stored, before EXIF orientation
    int height;
    int pages;
    int orientation;        // EXIF orientation 1…8 (1 when absent): 5…8 show the picture on its side
    char taken_at[32];      // as in vs_derivatives
} vs_header;

/// The derivatives of one photo, JPEG-encoded, plus facts read from the original.
typedef struct {
    int width;              // of the original, after EXIF orientation
    int height;
    char taken_at[32];      // EXIF DateTimeOriginal "YYYY:MM:DD HH:MM:SS", with OffsetTimeOriginal's "+02:00" after it
                            // when the file has one, or "" when absent
    void *preview;
    size_t preview_length;
    void *thumbnail;
    size_t thumbnail_length;
    void *grey;             // the upright image in grey, one byte per pixel, longest side `analysis_size`
    int grey_width;
    int grey_height;
} vs_derivatives;

/// Starts libvips once: no operation cache, one thread per image (our pool runs images in parallel),
/// and loaders marked untrusted (PDF, SVG, …) blocked.
int vs_init(void);

/// Reads the header of `path` with the loader for `format` ("jpeg", "png", "gif", "webp", "heif").
int vs_probe(const char *path, const char *format, vs_header *header, char *error, size_t error_length);

/// Decodes `path` once (JPEGs shrunk on load as far as the largest picture allows), applies the EXIF
/// orientation, and encodes a preview and a thumbnail from the same in-memory image, stripped of metadata;
/// also hands back the thumbnail in grey at `analysis_size` for the selection's measures.
/// `thumbnail_size` 0 makes the preview alone — the same bytes as when both are made together (for a photo an earlier
/// version showed with its thumbnail first).
int vs_render(const char *path, const char *format, int preview_size, int thumbnail_size, int analysis_size, int quality,
              vs_derivatives *out, char *error, size_t error_length);

void vs_free(vs_derivatives *derivatives);

/// Why a first look was refused (vs_first_look's return values besides 0 and -1, a picture libvips cannot decode).
enum { VS_FIRST_LOOK_TOO_LARGE = -2, VS_FIRST_LOOK_HAS_METADATA = -3, VS_FIRST_LOOK_NOT_YCBCR = -4 };

/// A phone's first look at its photo (`length` bytes of JPEG at `data`, hostile): refused, before any coefficient is
/// read, past `max_side` on either side, when it carries EXIF, XMP or IPTC, or in CMYK; else read whole (a truncated or
/// damaged file fails) and its coefficients written again into a new file without any metadata, in `out->thumbnail`,
/// its size in `out->width` and `out->height`, with the mean grey of each 8 × 8 block in `out->grey` (freed with
/// vs_free). With libjpeg alone, in the calling thread: no libvips thread is started.
int vs_first_look(const void *data, size_t length, int max_side, vs_derivatives *out, char *error, size_t error_length);

/// A collage (CAP-1): the images at `paths`, each cut to a square, in a grid of `columns` under a title and a
/// subtitle (plain text), `width` pixels wide, as a JPEG in `out` (freed with vs_free_buffer).
int vs_collage(const char *const *paths, int count, int columns, int width, const char *title, const char *subtitle, int quality,
               void **out, size_t *out_length, char *error, size_t error_length);
void vs_free_buffer(void *buffer);

#endif
