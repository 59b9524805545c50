// swift-format-ignore-file
// Written by scripts/generate-sdk: the SHA-256 of the contract and the generator's settings this code was generated
// from. SDKTests compares it with the files as they are now.
extension DisposableClient {
    /// The SHA-256 of the contract (openapi.yaml) and generator settings this SDK was generated from.
    public static let contractDigest = "1662aaa400d8217261ea1b490c1f7cbd280f2a3ed9473855fcba9b0ee818f9a3"
}
