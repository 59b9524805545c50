// swift-format-ignore-file
// Written by scripts/generate-sdk: the SHA-256 of the contract and the generator's settings this code was generated
// from. SDKTests compares it with the files as they are now.
extension DisposableClient {
    /// The SHA-256 of the contract (openapi.yaml) and generator settings this SDK was generated from.
    public static let contractDigest = "05557cd9b431287d9f55bea7dcfc3db7f4ca5ccaf639ee83d879e0384ce9dfba"
}
