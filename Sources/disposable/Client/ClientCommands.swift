import ArgumentParser
import AsyncHTTPClient
import DisposableClient
import Foundation

/// Output choices every client command shares.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print machine-readable JSON on standard output (and no progress bars).")
    var json = false
}

/// The HTTP client of the client commands: a server that does not answer is reported at once (the shared client
/// keeps retrying a refused connection for a minute and a half), and after 10 s of silence when connecting.
let commandHTTPClient: HTTPClient = {
    var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(10)))
    configuration.connectionPool.retryConnectionEstablishment = false
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}()

/// `sync --watch`'s passes: an answer silent for a minute (no byte read once the request is sent) is given up and
/// the pass tried again, so a stalled exchange never stops the backup.
let watchHTTPClient: HTTPClient = {
    var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(10), read: .seconds(60)))
    configuration.connectionPool.retryConnectionEstablishment = false
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}()

/// Runs a client command's body with the saved login, printing a refusal as its sentence with a distinct exit code.
func withClient(_ body: (DisposableClient, Credentials) async throws -> Void) async throws {
    var server: String? = nil
    do {
        let credentials = try Credentials.load()
        server = credentials.server
        guard let url = URL(string: credentials.server) else { throw CLIError.notLoggedIn }
        try await body(DisposableClient(serverURL: url, token: credentials.token, httpClient: commandHTTPClient), credentials)
    } catch {
        try fail(error, server: server)
    }
}

/// Prints what went wrong on standard error and exits with its code.
func fail(_ error: any Error, server: String?) throws -> Never {
    if error is ExitCode || error is CleanExit { throw error }
    let reason = CLIError.from(error, server: server)
    FileHandle.standardError.write(Data("error: \(reason)\n".utf8))
    throw ExitCode(reason.exitCode)
}

/// Writes a value as JSON (times in RFC 3339) followed by a new line.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .custom { date, encoder in
        var container = encoder.singleValueContainer()
        try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }
    FileHandle.standardOutput.write(try encoder.encode(value) + Data("\n".utf8))
}

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Log in to a Disposable server; the token is kept in ~/.config/disposable (readable by you alone).")

    @Option(help: "The server's address, e.g. https://photos.example.com.")
    var server: String

    @Option(help: "Your account's e-mail address.")
    var email: String

    @Flag(help: "Read the password from standard input (for scripts) instead of asking for it.")
    var passwordStdin = false

    func run() async throws {
        do {
            guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError("--server must be an address such as https://photos.example.com.")
            }
            let password = try readPassword()
            let (_, session) = try await DisposableClient.logIn(server: url, email: email, password: password, httpClient: commandHTTPClient)
            try Credentials(server: server, email: email, token: session.token).save()
            print("Logged in to \(server) as \(session.user.email).")
        } catch let error as ValidationError {
            throw error
        } catch {
            try fail(error, server: server)
        }
    }

    private func readPassword() throws -> String {
        if passwordStdin {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw CLIError.failed("No password on standard input.") }
            return line
        }
        guard isatty(STDIN_FILENO) == 1, let typed = getpass("Password: ") else {
            throw CLIError.failed("No terminal to ask for the password: use --password-stdin.")
        }
        return String(cString: typed)
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log out: the server forgets the token, and so does this computer.")

    func run() async throws {
        try await withClient { client, credentials in
            // Forget it here even when the server has already let it go.
            do { _ = try await client.call { try await client.api.logOut() } } catch let problem as DisposableProblem where problem.status == 401 {}
            try Credentials.remove()
            print("Logged out of \(credentials.server).")
        }
    }
}
