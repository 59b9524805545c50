import Foundation

/// Runs a command-line tool and returns its exit status and standard output.
func runTool(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The `disposable` binary built next to the tests (`swift build` puts it in the same folder).
func disposableBinary() throws -> String {
    let bundle = Bundle.main.bundleURL
    for candidate in [bundle, bundle.deletingLastPathComponent()] {
        let path = candidate.appendingPathComponent("disposable").path
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    let fallback = FileManager.default.currentDirectoryPath + "/.build/debug/disposable"
    guard FileManager.default.isExecutableFile(atPath: fallback) else {
        throw TestSetupError("The disposable binary is not built: run scripts/test (it runs swift build first).")
    }
    return fallback
}

func writeTemporaryFile(_ data: Data, suffix: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-\(UUID().uuidString)\(suffix)")
    try data.write(to: url)
    return url
}
