/// The server's version.
public let disposableVersion = "0.1.0"
