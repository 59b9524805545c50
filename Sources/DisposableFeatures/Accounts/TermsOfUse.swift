import Foundation

/// The version of the terms guests accept when joining (SUP-3); bump it when `terms` changes.
public enum TermsOfUse {
    public static let version = "2026-11"
}
