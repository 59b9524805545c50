// swift-format-ignore-file
// Written by scripts/generate-sdk: the SHA-256 of the contract and the generator's settings this code was generated
// from. SDKTests compares it with the files as they are now.
extension DisposableClient {
    /// The SHA-256 of the contract (openapi.yaml) and generator settings this SDK was generated from.
    public static let contractDigest = "65685a1f495799661e1a0fb2681a0943f9be4b4c17ccbf339cc217b08b8faa56"
}
