# Disposable in a container (OPS-3): built with the official Swift image, run on Debian 13 (trixie) with libvips 8.16.
#   docker build -t disposable .
# scripts/test-container builds and runs this file for real with podman: it substitutes a base image made
# with debootstrap for the public one (RUNTIME_IMAGE) and takes the binaries from the host's release build
# (BINARIES=host), since no image registry is reachable there.
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:trixie-slim
ARG BINARIES=build

FROM ${SWIFT_IMAGE} AS build
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends pkg-config libvips-dev libqrencode-dev zlib1g-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY scripts/build-release ./scripts/
# The Swift runtime linked in: the runtime image needs no toolchain. A bookworm build runs on trixie (newer glibc).
RUN scripts/build-release \
 && mkdir /out \
 && cp .build/release/disposable .build/release/libDisposableVips.so /out/ \
 && cp -R .build/release/disposable_DisposableFeatures.resources .build/release/disposable_DisposableWeb.resources /out/ \
 && strip /out/disposable && strip --strip-unneeded /out/libDisposableVips.so

# The same files from a release build made on the host, stripped the same way: scripts/build-image puts them in
# .build/image (.dockerignore lets only that folder in).
FROM scratch AS host
COPY .build/image/ /out/

FROM ${BINARIES} AS binaries

# What the server needs at run time, in a stage of its own so that it can be built (and cached) before the binaries
# exist: scripts/test prepares it while the Swift build runs.
FROM ${RUNTIME_IMAGE} AS runtime
# libheif's decoders are plugins since Debian 13 and only recommended: named here, or iPhones' HEIC (HEVC) and AVIF
# photos would not decode.
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libvips42t64 libheif1 libheif-plugin-libde265 libheif-plugin-dav1d \
      libqrencode4 libxml2 zlib1g ca-certificates curl tzdata ffmpeg fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --create-home --home-dir /var/lib/disposable --shell /usr/sbin/nologin disposable \
 && mkdir -p /var/lib/disposable/data \
 && chown 10001 /var/lib/disposable/data

FROM runtime
COPY --from=binaries /out/ /opt/disposable/
USER 10001
WORKDIR /var/lib/disposable
ENV DISPOSABLE_HOST=0.0.0.0 \
    DISPOSABLE_PORT=8080 \
    DISPOSABLE_DATA_DIR=/var/lib/disposable/data
EXPOSE 8080
VOLUME ["/var/lib/disposable/data"]
# On the port the server listens on, which -e DISPOSABLE_PORT may change.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s CMD ["sh", "-c", "curl -fsS http://127.0.0.1:${DISPOSABLE_PORT}/healthz >/dev/null"]
# SIGTERM (docker stop) drains requests and render jobs before the process ends.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/opt/disposable/disposable"]
CMD ["serve"]
