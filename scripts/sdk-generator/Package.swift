// swift-tools-version:6.1
// Builds only swift-openapi-generator, for scripts/generate-sdk. The SDK's generated code is committed, so neither CI
// nor a user building Disposable ever builds this.
import PackageDescription

let package = Package(
    name: "sdk-generator",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator.git", exact: "1.14.3")],
    targets: []
)
