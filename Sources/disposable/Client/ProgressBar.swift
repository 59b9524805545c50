import Foundation
import NIOConcurrencyHelpers

/// One line on standard error, redrawn at most ten times a second: a bar, bytes, rate and time left. Drawn only on
/// a terminal; scripts (and `--json`) get none.
final class ProgressBar: Sendable {
    private struct State {
        var done: Int64 = 0
        var total: Int64 = 0
        var note = ""
        var lastDraw: ContinuousClock.Instant? = nil
        var drawn = false
    }

    private let enabled: Bool
    private let label: String
    private let started = ContinuousClock.now
    private let state = NIOLockedValueBox(State())

    init(enabled: Bool, label: String) {
        self.enabled = enabled && isatty(STDERR_FILENO) == 1
        self.label = label
    }

    func update(done: Int64, total: Int64, note: String? = nil) {
        guard enabled else { return }
        let line: String? = state.withLockedValue { state in
            state.done = done
            state.total = total
            if let note { state.note = note }
            let now = ContinuousClock.now
            if let last = state.lastDraw, now - last < .milliseconds(100), done < total { return nil }
            state.lastDraw = now
            state.drawn = true
            return render(state, at: now)
        }
        if let line { FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line).utf8)) }
    }

    /// Adds to what is done (several transfers feeding one bar).
    func advance(by bytes: Int64, total: Int64, note: String? = nil) {
        let done = state.withLockedValue { $0.done + bytes }
        update(done: done, total: total, note: note)
    }

    func finish() {
        guard enabled, state.withLockedValue({ $0.drawn }) else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }

    private func render(_ state: State, at now: ContinuousClock.Instant) -> String {
        let elapsed = Double((now - started).components.attoseconds) / 1e18 + Double((now - started).components.seconds)
        let rate = elapsed > 0.2 ? Double(state.done) / elapsed : 0
        let size = { (bytes: Int64) in ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file) }
        guard state.total > 0 else { return "\(label) \(size(state.done))  \(size(Int64(rate)))/s \(state.note)" }
        let fraction = min(1, Double(state.done) / Double(state.total))
        let width = 24
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let left = rate > 0 ? Int(Double(state.total - state.done) / rate) : nil
        let eta = left.map { $0 >= 60 ? "\($0 / 60) min \($0 % 60) s" : "\($0) s" } ?? "…"
        return "\(label) \(bar) \(size(state.done)) / \(size(state.total))  \(size(Int64(rate)))/s  ETA \(eta) \(state.note)"
    }
}
