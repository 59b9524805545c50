// A phone's first look, checked and written again with libjpeg alone, in the calling thread: a libvips pipeline would
// hand it to libvips's worker threads — shared with the renders, at their low priority — while the upload that sent it
// waits. Its coefficients are copied into a new file, not decoded to pixels and encoded again: the same picture, with
// nothing else of the sender's, for a fifth of the work.
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

/// The mean grey of each 8 × 8 block of the luma, from its DC coefficient (8 × the block's mean, less 128, over the
/// quantizer): the picture at an eighth of its size, with no pixel decoded.
static void block_means(struct jpeg_decompress_struct *codec, jvirt_barray_ptr *coefficients, vs_derivatives *out) {
    jpeg_component_info *luma = &codec->comp_info[0];
    const int width = (int)luma->width_in_blocks, height = (int)luma->height_in_blocks;
    const int quantizer = luma->quant_table ? luma->quant_table->quantval[0] : 1;
    guchar *grey = g_malloc((size_t)width * height);
    for (int row = 0; row < height; row++) {
        JBLOCKARRAY blocks = (*codec->mem->access_virt_barray)((j_common_ptr)codec, coefficients[0], (JDIMENSION)row, 1, FALSE);
        for (int column = 0; column < width; column++) {
            const long mean = lrint(blocks[0][column][0] * quantizer / 8.0) + 128;
            grey[row * width + column] = (guchar)CLAMP(mean, 0, 255);
        }
    }
    out->grey = grey;
    out->grey_width = width;
    out->grey_height = height;
}

/// Reads the JPEG's coefficients to its end (a truncated or damaged file fails) and writes them again, losslessly,
/// into a new file: a JFIF header, the tables the coefficients need and the scan, nothing else of the sender's file.
/// Refused past `max_side`, with metadata, or in a colour space browsers do not show as sent (CMYK).
static int transcode(const void *data, size_t length, int max_side, vs_derivatives *out, char *error, size_t error_length) {
    struct jpeg_decompress_struct source;
    struct jpeg_compress_struct copy;
    refusal errors;
    unsigned char *volatile buffer = NULL;
    unsigned long written = 0;
    volatile int copying = 0;
    volatile int result = -1;
    source.err = jpeg_std_error(&errors.manager);
    copy.err = source.err;
    errors.manager.error_exit = refuse;
    errors.manager.emit_message = refuse_warnings;
    if (setjmp(errors.escape)) {
        g_strlcpy(error, errors.message, error_length);
        if (copying) jpeg_destroy_compress(&copy);
        jpeg_destroy_decompress(&source);
        free(buffer);
        vs_free(out);
        return -1;
    }
    jpeg_create_decompress(&source);
    jpeg_mem_src(&source, (const unsigned char *)data, length);
    jpeg_save_markers(&source, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&source, JPEG_APP0 + 13, 0xFFFF);
    jpeg_read_header(&source, TRUE);
    out->width = (int)source.image_width;
    out->height = (int)source.image_height;
    if (out->width > max_side || out->height > max_side) {
        result = VS_FIRST_LOOK_TOO_LARGE;
    } else if (has_metadata(&source)) {
        result = VS_FIRST_LOOK_HAS_METADATA;
    } else if (source.jpeg_color_space != JCS_YCbCr && source.jpeg_color_space != JCS_GRAYSCALE) {
        result = VS_FIRST_LOOK_NOT_YCBCR;
    } else {
        jvirt_barray_ptr *coefficients = jpeg_read_coefficients(&source);
        jpeg_create_compress(&copy);
        copying = 1;
        jpeg_mem_dest(&copy, (unsigned char **)&buffer, &written);
        jpeg_copy_critical_parameters(&source, &copy);
        jpeg_write_coefficients(&copy, coefficients);
        jpeg_finish_compress(&copy);
        block_means(&source, coefficients, out);
        jpeg_finish_decompress(&source);
        jpeg_destroy_compress(&copy);
        copying = 0;
        // Handed back to be freed with vs_free (g_free), as libvips's buffers are.
        out->thumbnail = g_memdup2(buffer, written);
        out->thumbnail_length = written;
        result = 0;
    }
    jpeg_destroy_decompress(&source);
    free(buffer);
    return result;
}

int vs_first_look(const void *data, size_t length, int max_side, vs_derivatives *out, char *error, size_t error_length) {
    memset(out, 0, sizeof(*out));
    return transcode(data, length, max_side, out, error, error_length);
}
