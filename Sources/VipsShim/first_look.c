// A phone's first look, checked and encoded again with libjpeg alone, in the calling thread: a 640 px picture is a
// millisecond of decoding, and a libvips pipeline would hand it to libvips's worker threads — shared with the renders,
// at their low priority — while the upload that sent it waits.
#include "vips_shim.h"
#include <glib.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>  // before jpeglib.h, which uses FILE
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

/// libjpeg's errors jump back here; so do its warnings (corrupt data, a premature end): a phone's canvas writes clean
/// files, so one that is not was not made by a phone.
typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf escape;
    char message[JMSG_LENGTH_MAX];
} refusal;

static void refuse(j_common_ptr codec) {
    refusal *errors = (refusal *)codec->err;
    (*codec->err->format_message)(codec, errors->message);
    longjmp(errors->escape, 1);
}

static void refuse_warnings(j_common_ptr codec, int level) {
    if (level < 0) refuse(codec);
}

static int starts_with(jpeg_saved_marker_ptr marker, const char *prefix, size_t length) {
    return marker->data_length >= length && memcmp(marker->data, prefix, length) == 0;
}

/// EXIF, XMP or IPTC: where a location or a name would hide (what libvips reads as such; an ICC profile is allowed).
static int has_metadata(struct jpeg_decompress_struct *codec) {
    for (jpeg_saved_marker_ptr marker = codec->marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 &&
            (starts_with(marker, "Exif\0", 5) || starts_with(marker, "http://ns.adobe.com/xap/1.0/", 28)))
            return 1;
        if (marker->marker == JPEG_APP0 + 13 && starts_with(marker, "Photoshop 3.0", 13)) return 1;
    }
    return 0;
}

/// Decodes the whole picture as RGB into `*pixels` (g_malloc), unless it is larger than `max_side` or carries metadata.
static int decode(const void *data, size_t length, int max_side, vs_derivatives *out, guchar **pixels, char *error, size_t error_length) {
    struct jpeg_decompress_struct codec;
    refusal errors;
    guchar *volatile rgb = NULL;
    volatile int result = -1;
    codec.err = jpeg_std_error(&errors.manager);
    errors.manager.error_exit = refuse;
    errors.manager.emit_message = refuse_warnings;
    if (setjmp(errors.escape)) {
        g_strlcpy(error, errors.message, error_length);
        g_free(rgb);
        jpeg_destroy_decompress(&codec);
        return -1;
    }
    jpeg_create_decompress(&codec);
    jpeg_mem_src(&codec, (const unsigned char *)data, length);
    jpeg_save_markers(&codec, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&codec, JPEG_APP0 + 13, 0xFFFF);
    jpeg_read_header(&codec, TRUE);
    out->width = (int)codec.image_width;
    out->height = (int)codec.image_height;
    if (out->width > max_side || out->height > max_side) {
        result = VS_FIRST_LOOK_TOO_LARGE;
    } else if (has_metadata(&codec)) {
        result = VS_FIRST_LOOK_HAS_METADATA;
    } else {
        // Grey and YCbCr pictures come out as RGB; CMYK cannot, and is refused.
        codec.out_color_space = JCS_RGB;
        jpeg_start_decompress(&codec);
        const size_t stride = (size_t)codec.output_width * 3;
        rgb = g_malloc(stride * codec.output_height);
        while (codec.output_scanline < codec.output_height) {
            JSAMPROW row = rgb + stride * codec.output_scanline;
            jpeg_read_scanlines(&codec, &row, 1);
        }
        jpeg_finish_decompress(&codec);
        *pixels = rgb;
        result = 0;
    }
    jpeg_destroy_decompress(&codec);
    return result;
}

/// The RGB picture encoded again: a JFIF header and the pixels, nothing of the sender's file.
static int encode(const guchar *rgb, int width, int height, int quality, vs_derivatives *out, char *error, size_t error_length) {
    struct jpeg_compress_struct codec;
    refusal errors;
    unsigned char *volatile buffer = NULL;
    unsigned long length = 0;
    codec.err = jpeg_std_error(&errors.manager);
    errors.manager.error_exit = refuse;
    if (setjmp(errors.escape)) {
        g_strlcpy(error, errors.message, error_length);
        jpeg_destroy_compress(&codec);
        free(buffer);
        return -1;
    }
    jpeg_create_compress(&codec);
    jpeg_mem_dest(&codec, (unsigned char **)&buffer, &length);
    codec.image_width = (JDIMENSION)width;
    codec.image_height = (JDIMENSION)height;
    codec.input_components = 3;
    codec.in_color_space = JCS_RGB;
    jpeg_set_defaults(&codec);
    jpeg_set_quality(&codec, quality, TRUE);
    jpeg_start_compress(&codec, TRUE);
    const size_t stride = (size_t)width * 3;
    while (codec.next_scanline < codec.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + stride * codec.next_scanline);
        jpeg_write_scanlines(&codec, &row, 1);
    }
    jpeg_finish_compress(&codec);
    jpeg_destroy_compress(&codec);
    // Handed back to be freed with vs_free (g_free), as libvips's buffers are.
    out->thumbnail = g_memdup2(buffer, length);
    out->thumbnail_length = length;
    free(buffer);
    return 0;
}

/// The picture in grey (BT.601 luma), its longest side at most `size`, each pixel the mean of the area it covers.
static void grey_image(const guchar *rgb, int width, int height, int size, vs_derivatives *out) {
    const int longest = width > height ? width : height;
    const double scale = longest > size ? (double)size / longest : 1.0;
    const int grey_width = MAX(1, (int)lrint(width * scale)), grey_height = MAX(1, (int)lrint(height * scale));
    guchar *grey = g_malloc((size_t)grey_width * grey_height);
    for (int gy = 0; gy < grey_height; gy++) {
        const int top = gy * height / grey_height, bottom = MAX(top + 1, (gy + 1) * height / grey_height);
        for (int gx = 0; gx < grey_width; gx++) {
            const int left = gx * width / grey_width, right = MAX(left + 1, (gx + 1) * width / grey_width);
            unsigned long sum = 0;
            for (int y = top; y < bottom; y++) {
                const guchar *pixel = rgb + ((size_t)y * width + left) * 3;
                for (int x = left; x < right; x++, pixel += 3) sum += 299u * pixel[0] + 587u * pixel[1] + 114u * pixel[2];
            }
            const unsigned long count = (unsigned long)(bottom - top) * (right - left) * 1000u;
            grey[gy * grey_width + gx] = (guchar)((sum + count / 2) / count);
        }
    }
    out->grey = grey;
    out->grey_width = grey_width;
    out->grey_height = grey_height;
}

int vs_first_look(const void *data, size_t length, int max_side, int analysis_size, int quality, vs_derivatives *out, char *error,
                  size_t error_length) {
    memset(out, 0, sizeof(*out));
    guchar *rgb = NULL;
    int result = decode(data, length, max_side, out, &rgb, error, error_length);
    if (result) return result;
    result = encode(rgb, out->width, out->height, quality, out, error, error_length);
    if (!result) grey_image(rgb, out->width, out->height, analysis_size, out);
    g_free(rgb);
    if (result) vs_free(out);
    return result;
}
