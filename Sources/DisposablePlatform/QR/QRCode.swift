import CQRencode
import DisposableCore
import Foundation

/// A QR code (QR-1): libqrencode's module matrix, drawn with whole pixels per module and a quiet zone.
package struct QRCode {
    /// Error correction Q (~25 % recoverable) — above the M that SPEC asks for: printed cards get smudged.
    package static let errorCorrection = QR_ECLEVEL_Q
    /// The blank border readers need, in modules (the standard asks for 4).
    package static let quietZone = 4
    package static let defaultSize = 512
    package static let sizes = 64...4096

    /// `modules[y][x]` is true for a dark module.
    package let modules: [[Bool]]

    package init(_ text: String) throws {
        guard let code = QRcode_encodeString(text, 0, Self.errorCorrection, QR_MODE_8, 1) else {
            throw ConfigurationError("This text cannot be made into a QR code.")
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let data = code.pointee.data!
        // Bit 0 of each byte is the module's colour (libqrencode's documented layout).
        modules = (0..<width).map { y in (0..<width).map { x in data[y * width + x] & 1 == 1 } }
    }

    /// Modules per side including the quiet zone.
    package var sideModules: Int { modules.count + 2 * Self.quietZone }

    /// Pixels per module so that the image fits in `size` — an integer, so edges stay crisp — and at
    /// least 2: with one pixel per module even zbar misses some codes, so tiny sizes come out a bit larger.
    package func scale(for size: Int) -> Int { max(2, size / sideModules) }

    package func isDark(x: Int, y: Int) -> Bool {
        let (mx, my) = (x - Self.quietZone, y - Self.quietZone)
        guard mx >= 0, my >= 0, mx < modules.count, my < modules.count else { return false }
        return modules[my][mx]
    }

    /// A 1-bit greyscale PNG of at most `size` × `size` pixels (see `scale(for:)` for tiny sizes).
    package func png(size: Int) -> Data {
        let scale = scale(for: size)
        let side = sideModules * scale
        let rowBytes = (side + 7) / 8
        var raw = [UInt8](repeating: 0, count: (rowBytes + 1) * side)
        for y in 0..<side {
            let row = y * (rowBytes + 1)  // first byte of a row: filter type 0 (none)
            for x in 0..<side where !isDark(x: x / scale, y: y / scale) {
                raw[row + 1 + x / 8] |= 0x80 >> UInt8(x % 8)  // 1 = white in greyscale
            }
        }
        return PNGEncoder.encode(width: side, height: side, bitDepth: 1, colorType: 0, scanlines: raw)
    }

    /// An SVG of `size` × `size`; modules are drawn on a grid with crisp edges.
    package func svg(size: Int) -> String {
        var path = ""
        for (y, row) in modules.enumerated() {
            for (x, dark) in row.enumerated() where dark {
                path += "M\(x + Self.quietZone) \(y + Self.quietZone)h1v1h-1z"
            }
        }
        let side = sideModules
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(size)" height="\(size)" viewBox="0 0 \(side) \(side)" \
            shape-rendering="crispEdges"><rect width="\(side)" height="\(side)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>

            """
    }
}
