// Test images made inside the test process with libvips, as `vips gaussnoise OUT W H --mean 128 --sigma S` would make
// them: a suite that makes thousands would otherwise start thousands of `vips` processes.
#pragma once
#include <stddef.h>

/// Gaussian noise of `width`×`height` saved with `suffix` (".jpg[Q=85]", ".png", ".webp", ".heic", ".avif", ".gif")
/// into `*out` (freed with tim_free); 0 on success, else -1 with libvips' error in `error`.
int tim_noise(int width, int height, double sigma, const char *suffix, void **out, size_t *length, char *error,
              size_t error_length);
void tim_free(void *buffer);
