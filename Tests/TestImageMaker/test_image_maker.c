#include "test_image_maker.h"

#include <pthread.h>
#include <stdio.h>
#include <vips/vips.h>

static int started = -1;
static void start(void) { started = VIPS_INIT("disposable-tests"); }

int tim_noise(int width, int height, double sigma, const char *suffix, void **out, size_t *length, char *error,
              size_t error_length) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, start);
    VipsImage *noise = NULL;
    int status = started;
    if (status == 0) status = vips_gaussnoise(&noise, width, height, "mean", 128.0, "sigma", sigma, NULL);
    if (status == 0) status = vips_image_write_to_buffer(noise, suffix, out, length, NULL);
    if (noise) g_object_unref(noise);
    if (status != 0) {
        snprintf(error, error_length, "%s", vips_error_buffer());
        vips_error_clear();
        return -1;
    }
    return 0;
}

void tim_free(void *buffer) { g_free(buffer); }
