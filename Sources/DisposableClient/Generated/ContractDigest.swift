// swift-format-ignore-file
// Written by scripts/generate-sdk: the SHA-256 of the contract and the generator's settings this code was generated
// from. SDKTests compares it with the files as they are now.
extension DisposableClient {
    /// The SHA-256 of the contract (openapi.yaml) and generator settings this SDK was generated from.
    public static let contractDigest = "aa8215f43e730caf34ae1775410bce1e2adc9981983c1efce9fcf3ed3d06e1c5"
}
