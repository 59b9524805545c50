// The renders' reduction. libvips 8.14, Debian 12's, reduces vertically with SIMD but horizontally with a
// scalar loop that took ≈ 16 ms of a 12 MP photo's 55. The vertical pass stays libvips'; the horizontal one is the same
// linear kernel as a loop the compiler unrolls, run on strips pulled through the pipeline in the calling thread.
// Linear rather than libvips' default lanczos3: on a zone plate it aliases less, text reads the same, and it is faster.
#include "reduce.h"

#include <math.h>
#include <stdint.h>

static int resize_with_libvips(VipsImage *in, double scale, VipsImage **out) {
    // Gap 0: the whole reduction by the kernel. The default first box-shrinks by all but a factor of two, and
    // libvips 8.14's shrink is slow: the 400 px thumbnail from the 1600 px preview took 55 ms that way.
    VipsImage *resized = NULL;
    if (vips_resize(in, &resized, scale, "kernel", VIPS_KERNEL_LINEAR, "gap", 0.0, NULL)) return -1;
    *out = vips_image_copy_memory(resized);
    g_object_unref(resized);
    return *out ? 0 : -1;
}

/// Where each output column reads and how much of each pixel: a triangle reaching `shrink` input pixels on either
/// side of the column's centre (libvips' linear kernel), the edge pixel standing in for those beyond the edges,
/// weights in 1/16384 summing to exactly 16384 — never negative, so a sum never leaves 0…255.
typedef struct {
    int width, taps;
    int *start;
    int16_t *weights;
} Plan;

static int plan_columns(int from, int to, Plan *plan) {
    const double shrink = (double)from / to;
    plan->width = to;
    // The weight is nonzero only strictly within `shrink` of the centre: at most ceil(2 × shrink) pixels.
    plan->taps = (int)ceil(2 * shrink);
    if (plan->taps > from) return -1;
    plan->start = g_new(int, to);
    plan->weights = g_new0(int16_t, (size_t)to * plan->taps);
    double *share = g_new(double, plan->taps);
    for (int x = 0; x < to; x++) {
        const double centre = (x + 0.5) * shrink - 0.5;
        const int first = (int)floor(centre - shrink) + 1;
        const int start = VIPS_CLIP(0, first, from - plan->taps);
        double total = 0;
        for (int k = 0; k < plan->taps; k++) share[k] = 0;
        for (int k = 0; k < plan->taps; k++) {
            const double distance = fabs(first + k - centre) / shrink;
            const double weight = distance < 1 ? 1 - distance : 0;
            share[VIPS_CLIP(0, first + k, from - 1) - start] += weight;
            total += weight;
        }
        int16_t *weights = plan->weights + (size_t)x * plan->taps;
        int sum = 0, largest = 0;
        for (int k = 0; k < plan->taps; k++) {
            weights[k] = (int16_t)lrint(share[k] / total * 16384);
            sum += weights[k];
            if (weights[k] > weights[largest]) largest = k;
        }
        weights[largest] += 16384 - sum;
        plan->start[x] = start;
    }
    g_free(share);
    return 0;
}

static void free_plan(Plan *plan) {
    g_free(plan->start);
    g_free(plan->weights);
}

/// One row across. Inlined with constant `taps` and `bands` below, the inner loops unroll.
static inline __attribute__((always_inline)) void across(const VipsPel *restrict in, VipsPel *restrict out, const Plan *plan,
                                                         const int taps, const int bands) {
    for (int x = 0; x < plan->width; x++, out += bands) {
        const int16_t *weights = plan->weights + (size_t)x * taps;
        const VipsPel *pixel = in + (size_t)plan->start[x] * bands;
        int sums[4] = {8192, 8192, 8192, 8192};
        for (int k = 0; k < taps; k++, pixel += bands)
            for (int b = 0; b < bands; b++) sums[b] += weights[k] * pixel[b];
        for (int b = 0; b < bands; b++) out[b] = (VipsPel)(sums[b] >> 14);
    }
}

static void across_row(const VipsPel *in, VipsPel *out, const Plan *plan, int bands) {
    // The shrinks of the renders: a preview from a JPEG decoded at 1/2, 1/4 or 1/8 scale (2–4 taps), the thumbnail
    // from the preview (8), the grey image from the thumbnail (4).
    if (bands == 3) switch (plan->taps) {
        case 2: across(in, out, plan, 2, 3); return;
        case 3: across(in, out, plan, 3, 3); return;
        case 4: across(in, out, plan, 4, 3); return;
        case 5: across(in, out, plan, 5, 3); return;
        case 8: across(in, out, plan, 8, 3); return;
        }
    across(in, out, plan, plan->taps, bands);
}

/// libvips 8.15 and later reduce across with SIMD (Highway): faster than the loop here (PERF-1 on the pyvips-binary
/// wheel's 8.18: 0.98x pyvips with this loop, 1.02-1.12x with libvips').
static int libvips_reduces_across_fast(void) {
    return vips_version(0) > 8 || (vips_version(0) == 8 && vips_version(1) >= 15);
}

int reduce_to(VipsImage *in, int size, VipsImage **out) {
    const int longest = VIPS_MAX(in->Xsize, in->Ysize);
    if (longest <= size) return (*out = vips_image_copy_memory(in)) ? 0 : -1;
    const double scale = (double)size / longest;
    const int width = VIPS_MAX(1, (int)lrint(in->Xsize * scale)), height = VIPS_MAX(1, (int)lrint(in->Ysize * scale));
    Plan plan = {0};
    if (libvips_reduces_across_fast() || in->BandFmt != VIPS_FORMAT_UCHAR || in->Coding != VIPS_CODING_NONE || in->Bands > 4 ||
        width == in->Xsize || plan_columns(in->Xsize, width, &plan))
        return resize_with_libvips(in, scale, out);

    VipsImage *tall = NULL, *reduced = NULL;
    VipsRegion *region = NULL;
    int failed = height == in->Ysize ? (g_object_ref(in), tall = in, 0)
                                     : vips_reducev(in, &tall, (double)in->Ysize / height, "kernel", VIPS_KERNEL_LINEAR, NULL);
    if (!failed) {
        // The reduced image keeps the input's metadata (the EXIF orientation, for vips_autorot after).
        reduced = vips_image_new_memory();
        failed = vips_image_pipelinev(reduced, VIPS_DEMAND_STYLE_THINSTRIP, tall, NULL);
        reduced->Xsize = width;
        failed = failed || vips_image_write_prepare(reduced) || !(region = vips_region_new(tall));
    }
    // Strips pulled in order (the JPEG is read sequentially), each reduced across straight into the result.
    for (int top = 0; !failed && top < tall->Ysize; top += 64) {
        VipsRect strip = {0, top, tall->Xsize, VIPS_MIN(64, tall->Ysize - top)};
        failed = vips_region_prepare(region, &strip);
        for (int y = top; !failed && y < top + strip.height; y++)
            across_row(VIPS_REGION_ADDR(region, 0, y), VIPS_IMAGE_ADDR(reduced, 0, y), &plan, tall->Bands);
    }
    free_plan(&plan);
    if (region) g_object_unref(region);
    if (tall) g_object_unref(tall);
    if (failed) {
        if (reduced) g_object_unref(reduced);
        return -1;
    }
    *out = reduced;
    return 0;
}
