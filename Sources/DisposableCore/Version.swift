/// The server's version.
public let disposableVersion = "0.1.0"

/// What the `Server` header says.
package let serverName = "Disposable"
