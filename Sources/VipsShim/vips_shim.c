#include "vips_shim.h"
#include "reduce.h"
#include <string.h>
#include <vips/vips.h>

static void copy_error(char *error, size_t error_length) {
    if (error && error_length > 0) {
        const char *message = vips_error_buffer();
        strncpy(error, message ? message : "unknown libvips error", error_length - 1);
        error[error_length - 1] = 0;
    }
    vips_error_clear();
}

int vs_init(void) {
    if (VIPS_INIT("disposable")) return -1;
    vips_cache_set_max(0);
    vips_concurrency_set(1);
    vips_block_untrusted_set(TRUE);
    return 0;
}

/// Opens with exactly the loader for the sniffed format: never let libvips pick one from the content. `shrink` (JPEG:
/// 1, 2, 4 or 8) decodes at that fraction of the size, from the DCT coefficients; `embedded` (HEIF) opens the
/// picture's own small copy instead of the picture.
static int load(const char *path, const char *format, int shrink, int embedded, VipsImage **out) {
    if (strcmp(format, "jpeg") == 0)
        return vips_jpegload(path, out, "shrink", shrink, "access", VIPS_ACCESS_SEQUENTIAL,
                             "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
    if (strcmp(format, "png") == 0)
        return vips_pngload(path, out, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
    if (strcmp(format, "gif") == 0)
        return vips_gifload(path, out, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
    if (strcmp(format, "webp") == 0)
        return vips_webpload(path, out, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
    if (strcmp(format, "heif") == 0)
        return vips_heifload(path, out, "thumbnail", embedded, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_TRUNCATED,
                             NULL);
    vips_error("disposable", "unsupported format %s", format);
    return -1;
}

/// EXIF DateTimeOriginal into `taken_at` (32 bytes), "" when absent.
static void read_taken_at(VipsImage *image, char *taken_at) {
    taken_at[0] = 0;
    const char *taken = NULL;
    if (vips_image_get_typeof(image, "exif-ifd2-DateTimeOriginal") &&
        !vips_image_get_string(image, "exif-ifd2-DateTimeOriginal", &taken) && taken && strlen(taken) >= 19) {
        memcpy(taken_at, taken, 19);
        taken_at[19] = 0;
        // The capture's offset from UTC, when the camera wrote it ("+02:00"): without it the time is floating.
        const char *offset = NULL;
        if (vips_image_get_typeof(image, "exif-ifd2-OffsetTimeOriginal") &&
            !vips_image_get_string(image, "exif-ifd2-OffsetTimeOriginal", &offset) && offset && strlen(offset) >= 6 &&
            (offset[0] == '+' || offset[0] == '-') && offset[3] == ':') {
            memcpy(taken_at + 19, offset, 6);
            taken_at[25] = 0;
        }
    }
}

int vs_probe(const char *path, const char *format, vs_header *header, char *error, size_t error_length) {
    VipsImage *image = NULL;
    if (load(path, format, 1, 0, &image)) {
        copy_error(error, error_length);
        return -1;
    }
    header->width = vips_image_get_width(image);
    header->height = vips_image_get_height(image);
    header->pages = vips_image_get_n_pages(image);
    header->orientation = 1;
    if (vips_image_get_typeof(image, VIPS_META_ORIENTATION)) vips_image_get_int(image, VIPS_META_ORIENTATION, &header->orientation);
    read_taken_at(image, header->taken_at);
    g_object_unref(image);
    return 0;
}

static int orientation_swaps_axes(VipsImage *image) {
    int orientation = 1;
    if (vips_image_get_typeof(image, VIPS_META_ORIENTATION)) vips_image_get_int(image, VIPS_META_ORIENTATION, &orientation);
    return orientation >= 5 && orientation <= 8;
}

/// sRGB, 8 bits, no alpha (flattened on white): what a JPEG derivative can hold.
static int normalise(VipsImage *in, VipsImage **out) {
    VipsImage *srgb = NULL;
    if (vips_colourspace(in, &srgb, VIPS_INTERPRETATION_sRGB, NULL)) return -1;
    if (vips_image_hasalpha(srgb)) {
        VipsArrayDouble *white = vips_array_double_newv(3, 255.0, 255.0, 255.0);
        int failed = vips_flatten(srgb, out, "background", white, NULL);
        vips_area_unref(VIPS_AREA(white));
        g_object_unref(srgb);
        return failed;
    }
    *out = srgb;
    return 0;
}

/// The largest decode that is cheaper than the whole picture and still covers `size`: a JPEG's DCT-scaled decode, a
/// HEIF's embedded copy when it is large enough; else the whole picture.
static int load_for(const char *path, const char *format, VipsImage *header, int size, VipsImage **out) {
    int longest = VIPS_MAX(header->Xsize, header->Ysize);
    if (strcmp(format, "jpeg") == 0) {
        int shrink = 1;
        while (shrink < 8 && longest / (shrink * 2) >= size) shrink *= 2;
        if (shrink > 1) return load(path, format, shrink, 0, out);
    } else if (strcmp(format, "heif") == 0) {
        // libheif hands back the main picture when there is no embedded copy: either way it is the picture.
        VipsImage *embedded = NULL;
        if (!load(path, format, 1, 1, &embedded)) {
            if (VIPS_MAX(embedded->Xsize, embedded->Ysize) >= size) {
                *out = embedded;
                return 0;
            }
            g_object_unref(embedded);
        }
        vips_error_clear();  // no usable copy: the whole picture, as for any other format
    }
    *out = header;
    g_object_ref(header);
    return 0;
}

/// `thumbnail` as the JPEG `out->thumbnail`, stripped, and in grey at `analysis_size` as `out->grey`.
static int encode_thumbnail(VipsImage *thumbnail, int quality, int analysis_size, vs_derivatives *out) {
    VipsImage *small = NULL, *grey = NULL;
    int result = -1;
    if (vips_jpegsave_buffer(thumbnail, &out->thumbnail, &out->thumbnail_length, "Q", quality, "strip", TRUE, NULL)) goto done;
    if (reduce_to(thumbnail, analysis_size, &small)) goto done;
    if (vips_colourspace(small, &grey, VIPS_INTERPRETATION_B_W, NULL)) goto done;
    size_t grey_length = 0;
    if (!(out->grey = vips_image_write_to_memory(grey, &grey_length))) goto done;
    out->grey_width = grey->Xsize;
    out->grey_height = grey->Ysize;
    result = 0;
done:
    if (small) g_object_unref(small);
    if (grey) g_object_unref(grey);
    return result;
}

int vs_render(const char *path, const char *format, int preview_size, int thumbnail_size, int analysis_size, int quality,
              vs_derivatives *out, char *error, size_t error_length) {
    memset(out, 0, sizeof(*out));
    VipsImage *header = NULL, *loaded = NULL, *rotated = NULL, *normal = NULL, *memory = NULL, *thumbnail = NULL;
    int result = -1;

    // Full-size dimensions, and the cheapest decode that still covers the preview.
    if (load(path, format, 1, 0, &header)) goto done;
    int swap = orientation_swaps_axes(header);
    out->width = swap ? header->Ysize : header->Xsize;
    out->height = swap ? header->Xsize : header->Ysize;
    read_taken_at(header, out->taken_at);
    if (load_for(path, format, header, preview_size, &loaded)) goto done;

    if (normalise(loaded, &normal)) goto done;
    // Decode once: the preview is held in memory and the thumbnail made from it. Turned upright only then, on
    // the small image (a rotation needs the whole image at hand; the longest side does not change). The thumbnail is
    // held in memory too: the grey image for the photo's signals is made from it.
    if (reduce_to(normal, preview_size, &memory)) goto done;
    if (vips_autorot(memory, &rotated, NULL)) goto done;
    if (vips_jpegsave_buffer(rotated, &out->preview, &out->preview_length, "Q", quality, "strip", TRUE, NULL)) goto done;
    if (thumbnail_size > 0) {
        if (reduce_to(rotated, thumbnail_size, &thumbnail)) goto done;
        if (encode_thumbnail(thumbnail, quality, analysis_size, out)) goto done;
    }
    result = 0;

done:
    if (result) {
        copy_error(error, error_length);
        vs_free(out);
    }
    VipsImage *images[] = {header, loaded, rotated, normal, memory, thumbnail};
    for (size_t i = 0; i < sizeof(images) / sizeof(images[0]); i++)
        if (images[i]) g_object_unref(images[i]);
    return result;
}

void vs_free(vs_derivatives *derivatives) {
    if (derivatives->preview) g_free(derivatives->preview);
    if (derivatives->thumbnail) g_free(derivatives->thumbnail);
    if (derivatives->grey) g_free(derivatives->grey);
    derivatives->preview = derivatives->thumbnail = derivatives->grey = NULL;
    derivatives->preview_length = derivatives->thumbnail_length = 0;
}

/// One line of text (wrapped at `width`), dark on white, centred on a white band `width` wide.
static int text_band(const char *text, const char *font, int width, int pad, VipsImage **out) {
    VipsImage *ink = NULL, *shaded = NULL, *grey = NULL, *srgb = NULL;
    int result = -1;
    // vips_text reads Pango markup: an event called "Ana & Ben <3" must be shown, not parsed.
    char *escaped = g_markup_escape_text(text, -1);
    if (vips_text(&ink, escaped, "font", font, "width", width - 2 * pad, "dpi", 72, "align", VIPS_ALIGN_CENTRE, NULL)) goto done;
    // Ink 0…255 becomes white…dark grey.
    if (vips_linear1(ink, &shaded, -215.0 / 255.0, 255.0, "uchar", TRUE, NULL)) goto done;
    if (vips_copy(shaded, &grey, "interpretation", VIPS_INTERPRETATION_B_W, NULL)) goto done;
    if (vips_colourspace(grey, &srgb, VIPS_INTERPRETATION_sRGB, NULL)) goto done;
    VipsArrayDouble *white = vips_array_double_newv(3, 255.0, 255.0, 255.0);
    result = vips_embed(srgb, out, (width - srgb->Xsize) / 2, pad / 2, width, srgb->Ysize + pad, "extend", VIPS_EXTEND_BACKGROUND,
                        "background", white, NULL);
    vips_area_unref(VIPS_AREA(white));
done:
    g_free(escaped);
    VipsImage *images[] = {ink, shaded, grey, srgb};
    for (size_t i = 0; i < sizeof(images) / sizeof(images[0]); i++)
        if (images[i]) g_object_unref(images[i]);
    return result;
}

int vs_collage(const char *const *paths, int count, int columns, int width, const char *title, const char *subtitle, int quality,
               void **out, size_t *out_length, char *error, size_t error_length) {
    *out = NULL;
    *out_length = 0;
    if (count < 1 || columns < 1 || width < 100) {
        vips_error("disposable", "a collage needs photos and a width");
        copy_error(error, error_length);
        return -1;
    }
    int gap = width / 90;
    int cell = (width - gap * (columns + 1)) / columns;
    VipsImage **cells = g_new0(VipsImage *, count);
    VipsImage *grid = NULL, *framed = NULL, *heading = NULL, *subheading = NULL, *top = NULL, *page = NULL;
    VipsArrayDouble *white = vips_array_double_newv(3, 255.0, 255.0, 255.0);
    int result = -1;

    for (int i = 0; i < count; i++) {
        VipsImage *square = NULL;
        // A square of each photo, cut around what draws the eye (libvips's attention measure), not its centre.
        if (vips_thumbnail(paths[i], &square, cell, "height", cell, "crop", VIPS_INTERESTING_ATTENTION, NULL)) goto done;
        int failed = normalise(square, &cells[i]);
        g_object_unref(square);
        if (failed) goto done;
    }
    if (vips_arrayjoin(cells, &grid, count, "across", columns, "shim", gap, "background", white, NULL)) goto done;
    if (vips_embed(grid, &framed, gap, 0, width, grid->Ysize + gap, "extend", VIPS_EXTEND_BACKGROUND, "background", white, NULL))
        goto done;
    if (text_band(title, "DejaVu Sans Bold 46", width, 4 * gap, &heading)) goto done;
    if (text_band(subtitle, "DejaVu Sans 30", width, 2 * gap, &subheading)) goto done;
    if (vips_join(heading, subheading, &top, VIPS_DIRECTION_VERTICAL, "background", white, NULL)) goto done;
    if (vips_join(top, framed, &page, VIPS_DIRECTION_VERTICAL, "background", white, NULL)) goto done;
    if (vips_jpegsave_buffer(page, out, out_length, "Q", quality, "strip", TRUE, NULL)) goto done;
    result = 0;

done:
    if (result) copy_error(error, error_length);
    vips_area_unref(VIPS_AREA(white));
    for (int i = 0; i < count; i++)
        if (cells[i]) g_object_unref(cells[i]);
    g_free(cells);
    VipsImage *images[] = {grid, framed, heading, subheading, top, page};
    for (size_t i = 0; i < sizeof(images) / sizeof(images[0]); i++)
        if (images[i]) g_object_unref(images[i]);
    return result;
}

void vs_free_buffer(void *buffer) { g_free(buffer); }
