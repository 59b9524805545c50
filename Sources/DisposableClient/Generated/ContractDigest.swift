// swift-format-ignore-file
// Written by scripts/generate-sdk: the SHA-256 of the contract and the generator's settings this code was generated
// from. SDKTests compares it with the files as they are now.
extension DisposableClient {
    /// The SHA-256 of the contract (openapi.yaml) and generator settings this SDK was generated from.
    public static let contractDigest = "f8d3ea649c6e9c56df3f1fc62b6d164a01bba865645e8c38854d65567e478b07"
}
