// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "disposable",
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .executable(name: "disposable", targets: ["disposable"]),
        .library(name: "DisposableServer", targets: ["DisposableServer"]),
        // The API's request and response bodies as Codable models, with no server dependency: the server,
        // the tests and the Swift SDK share them.
        .library(name: "DisposableAPI", targets: ["DisposableAPI"]),
        // SDK-1: the Swift SDK for apps and scripts, generated from the contract (openapi.yaml) with a small layer on
        // top; no server dependency, builds on Linux and Apple platforms.
        .library(name: "DisposableClient", targets: ["DisposableClient"]),
        // libvips behind a plain-C face, opened by the server when the first photo needs it (see VipsLoader).
        .library(name: "DisposableVips", type: .dynamic, targets: ["VipsShim"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // OPS-2: /metrics in Prometheus's text format, fed through swift-metrics (Hummingbird's middleware uses it).
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // OPS-1: the configuration file (YAML, or JSON).
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        // The S3 client's HTTP (and, in the tests, a streaming client for Server-Sent Events).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // TLS for the mail server (smtps://).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // The SDK's generated client runs on these (the generator itself is built only by scripts/generate-sdk).
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        // LIB-5: reading a Google Takeout archive (`disposable import`).
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        // The ID token of "Sign in with OpenID Connect", checked against the provider's JWKS.
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
    ],
    targets: [
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CSystemZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .target(name: "VipsLoader"),
        .target(name: "DisposableAPI"),
        // libjpeg directly for a phone's first look (`first_look.c`); libvips depends on it, so it is there.
        .target(name: "VipsShim", dependencies: ["CVips", "VipsLoader"], linkerSettings: [.linkedLibrary("jpeg")]),
        // The layers, lowest first; each sees only those below it, so an arrow that runs up does not compile.
        // Core: the clock, start-up gate, rate limits and other values every layer uses; no SQL, no HTTP.
        .target(
            name: "DisposableCore",
            dependencies: [
                "DisposableAPI",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        // Platform: database engines and migrations, storage, jobs, media (libvips, ffmpeg), outbound HTTP, mail,
        // metrics and the HTTP plumbing. Names no feature: features register what it runs.
        .target(
            name: "DisposablePlatform",
            dependencies: [
                "DisposableCore",
                "DisposableAPI",
                "CQRencode",
                "CSystemZlib",
                "VipsLoader",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Features: each feature's service (its rules, public to the layers above as `package`), its repository
        // (internal: no one above names it) and how it assembles itself (`Assembly/`).
        .target(
            name: "DisposableFeatures",
            dependencies: [
                "DisposableCore",
                "DisposablePlatform",
                "DisposableAPI",
                "CQRencode",
                "CSystemZlib",
                "VipsLoader",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            resources: [.copy("Words/Strings")]
        ),
        // Web: controllers, pages, templates, static files and the API's document; sees services, never repositories.
        .target(
            name: "DisposableWeb",
            dependencies: [
                "DisposableCore",
                "DisposablePlatform",
                "DisposableFeatures",
                "DisposableAPI",
                "CQRencode",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Yams", package: "Yams"),
            ],
            resources: [.copy("Web/Templates"), .copy("Web/Static"), .copy("OpenAPI/openapi.yaml")]
        ),
        // The composition root and `serve`: builds every part and the application.
        .target(
            name: "DisposableServer",
            dependencies: [
                "DisposableCore",
                "DisposablePlatform",
                "DisposableFeatures",
                "DisposableWeb",
                "DisposableAPI",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "DisposableClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["openapi-generator-config.yaml"]
        ),
        .executableTarget(
            name: "disposable",
            dependencies: [
                "DisposableCore",
                "DisposablePlatform",
                "DisposableFeatures",
                "DisposableWeb",
                "DisposableServer",
                // The client commands (login, event, upload…) go through the SDK alone, like any app would.
                "DisposableClient",
                "CQRencode",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // The tests' images, made with libvips in the test process rather than by a `vips` process each.
        .target(name: "TestImageMaker", dependencies: ["CVips"], path: "Tests/TestImageMaker"),
        .testTarget(
            name: "DisposableServerTests",
            dependencies: [
                "TestImageMaker",
                "DisposableCore",
                "DisposablePlatform",
                "DisposableFeatures",
                "DisposableWeb",
                "DisposableServer",
                "DisposableAPI",
                "DisposableClient",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
    ]
)
