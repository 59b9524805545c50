# Disposable in a container (OPS-3): built with the Swift toolchain, run on slim Debian with libvips.
# Not built on the machine this was written on (no Docker engine there): hadolint and `docker-compose config`
# check it and compose.yaml in the test suite.

FROM swift:6.3-bookworm AS build
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends pkg-config libvips-dev libqrencode-dev zlib1g-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
# The Swift runtime linked in: the runtime image needs no toolchain.
RUN swift build -c release --static-swift-stdlib --product disposable \
 && swift build -c release --static-swift-stdlib --product DisposableVips \
 && mkdir /out \
 && cp .build/release/disposable .build/release/libDisposableVips.so /out/ \
 && cp -R .build/release/disposable_DisposableServer.resources /out/

FROM debian:bookworm-slim
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends libvips42 libqrencode4 libxml2 zlib1g ca-certificates curl tzdata ffmpeg fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --create-home --home-dir /var/lib/disposable disposable
COPY --from=build /out/ /opt/disposable/
USER 10001
WORKDIR /var/lib/disposable
ENV DISPOSABLE_HOST=0.0.0.0 \
    DISPOSABLE_PORT=8080 \
    DISPOSABLE_DATA_DIR=/var/lib/disposable/data
EXPOSE 8080
VOLUME ["/var/lib/disposable/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s CMD ["curl", "-fsS", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["/opt/disposable/disposable", "serve"]
