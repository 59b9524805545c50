#define _GNU_SOURCE
#include "vips_loader.h"
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static int (*shim_probe)(const char *, const char *, vs_header *, char *, size_t);
static int (*shim_render)(const char *, const char *, int, int, int, int, vs_derivatives *, char *, size_t);
static void (*shim_free)(vs_derivatives *);
static int (*shim_first_look)(const void *, size_t, int, vs_derivatives *, char *, size_t);
static int (*shim_collage)(const char *const *, int, int, int, const char *, const char *, int, void **, size_t *, char *, size_t);
static void (*shim_free_buffer)(void *);

int vsl_load(const char *path, char *error, size_t error_length) {
    if (shim_free) return 0;
    // RTLD_NODELETE: libvips registers glib types, which must never be unloaded.
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!library) {
        snprintf(error, error_length, "%s", dlerror());
        return -1;
    }
    int (*shim_init)(void) = (int (*)(void))dlsym(library, "vs_init");
    shim_probe = dlsym(library, "vs_probe");
    shim_render = dlsym(library, "vs_render");
    shim_first_look = dlsym(library, "vs_first_look");
    shim_collage = dlsym(library, "vs_collage");
    shim_free_buffer = dlsym(library, "vs_free_buffer");
    void (*free_function)(vs_derivatives *) = dlsym(library, "vs_free");
    if (!shim_init || !shim_probe || !shim_render || !shim_first_look || !shim_collage || !shim_free_buffer || !free_function) {
        snprintf(error, error_length, "%s is not Disposable's libvips shim", path);
        return -1;
    }
    if (shim_init() != 0) {
        snprintf(error, error_length, "libvips could not start");
        return -1;
    }
    shim_free = free_function;  // set last: it marks the shim as ready
    return 0;
}

int vsl_probe(const char *path, const char *format, vs_header *header, char *error, size_t error_length) {
    return shim_probe(path, format, header, error, error_length);
}

int vsl_render(const char *path, const char *format, int preview_size, int thumbnail_size, int analysis_size, int quality,
               vs_derivatives *out, char *error, size_t error_length) {
    return shim_render(path, format, preview_size, thumbnail_size, analysis_size, quality, out, error, error_length);
}

void vsl_free(vs_derivatives *derivatives) { shim_free(derivatives); }

int vsl_first_look(const void *data, size_t length, int max_side, vs_derivatives *out, char *error, size_t error_length) {
    return shim_first_look(data, length, max_side, out, error, error_length);
}

int vsl_collage(const char *const *paths, int count, int columns, int width, const char *title, const char *subtitle, int quality,
                void **out, size_t *out_length, char *error, size_t error_length) {
    return shim_collage(paths, count, columns, width, title, subtitle, quality, out, out_length, error, error_length);
}

void vsl_free_buffer(void *buffer) { shim_free_buffer(buffer); }

int vsl_release_freed_memory(void) { return malloc_trim(0); }

void vsl_lower_thread_priority(void) { setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10); }
