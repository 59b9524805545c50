import CQRencode

/// A QR code drawn with Unicode half blocks, two modules per character row, dark on light whatever the terminal's
/// colours (each row is drawn in reverse video where needed, so phones read it from a dark terminal too).
enum TerminalQR {
    static func render(_ text: String) throws -> String {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
            throw CLIError.failed("This link cannot be made into a QR code.")
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let data = code.pointee.data!
        let quiet = 2
        func dark(_ x: Int, _ y: Int) -> Bool {
            let (mx, my) = (x - quiet, y - quiet)
            guard mx >= 0, my >= 0, mx < width, my < width else { return false }
            return data[my * width + mx] & 1 == 1
        }
        let side = width + 2 * quiet
        var lines: [String] = []
        for y in stride(from: 0, to: side, by: 2) {
            // Black text on a white background: "▀" paints the upper module, the background the lower.
            var line = "\u{1B}[30;47m"
            for x in 0..<side {
                switch (dark(x, y), dark(x, y + 1)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line + "\u{1B}[0m")
        }
        return lines.joined(separator: "\n")
    }
}
