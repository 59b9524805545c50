import DisposableCore
import Foundation

/// What the selection needs to know of a photo's pixels (CAP-1, CAP-2), measured once at ingest from the
/// decoded preview: a perceptual hash to find near-duplicates, and how sharp and how well exposed it is.
public struct PhotoSignals: Sendable, Equatable, Codable {
    /// Difference hash: 64 bits, one per neighbouring pair of a 9×8 grey miniature (left darker than right).
    /// Re-encoding, resizing, a small crop or a brightness change move few bits; another scene moves ~32.
    public let dHash: UInt64
    /// Variance of the Laplacian of the grey image at `analysisSize`: high when edges are crisp, low when blurred.
    public let sharpness: Double
    /// Mean brightness, 0 (black) … 1 (white).
    public let brightness: Double
    /// Share of pixels crushed to black and burnt to white (0 … 1 each).
    public let shadows: Double
    public let highlights: Double

    /// The longest side of the grey image the signals are measured on: sharpness is only comparable at one size.
    public static let analysisSize = 256

    public init(dHash: UInt64, sharpness: Double, brightness: Double, shadows: Double, highlights: Double) {
        self.dHash = dHash
        self.sharpness = sharpness
        self.brightness = brightness
        self.shadows = shadows
        self.highlights = highlights
    }

    /// Measures a grey image (one byte per pixel, rows top to bottom).
    public init?(grey pixels: [UInt8], width: Int, height: Int) {
        guard width >= 9, height >= 8, pixels.count >= width * height else { return nil }
        (dHash, miniature) = Self.differenceHash(pixels, width: width, height: height)
        sharpness = Self.laplacianVariance(pixels, width: width, height: height)
        var sum = 0
        var dark = 0
        var bright = 0
        for value in pixels.prefix(width * height) {
            sum += Int(value)
            if value <= 8 { dark += 1 }
            if value >= 247 { bright += 1 }
        }
        let count = Double(width * height)
        brightness = Double(sum) / count / 255
        shadows = Double(dark) / count
        highlights = Double(bright) / count
    }

    /// The 9 × 8 grey miniature the hash is read from, row by row: compared cell by cell, two copies of one picture
    /// correlate almost perfectly where their hashes may still differ in flat areas. Measured with the hash, not stored.
    public var miniature: [UInt8] = []

    private enum CodingKeys: String, CodingKey { case dHash, sharpness, brightness, shadows, highlights }

    public static func == (a: PhotoSignals, b: PhotoSignals) -> Bool {
        (a.dHash, a.sharpness, a.brightness, a.shadows, a.highlights) == (b.dHash, b.sharpness, b.brightness, b.shadows, b.highlights)
    }

    /// As kept in a `signals` column.
    package var stored: String { String(decoding: try! JSONEncoder().encode(self), as: UTF8.self) }

    package init?(stored: String?) {
        guard let stored, let signals = try? JSONDecoder().decode(PhotoSignals.self, from: Data(stored.utf8)) else { return nil }
        self = signals
    }

    /// Bits that differ between two hashes: near-duplicates are within `Selection.duplicateDistance`.
    public func distance(to other: PhotoSignals) -> Int { (dHash ^ other.dHash).nonzeroBitCount }

    /// How far the exposure is from a usable photo: 0 for a well-exposed one, up to ~1 for one that is mostly
    /// black or white.
    public var exposurePenalty: Double {
        let clipped = max(0, shadows + highlights - 0.05)
        let offCentre = max(0, abs(brightness - 0.5) - 0.2)
        return min(1, clipped * 2 + offCentre * 2)
    }

    /// Area-averaged 9×8 miniature, then one bit per row neighbour pair; and the miniature.
    package static func differenceHash(_ pixels: [UInt8], width: Int, height: Int) -> (hash: UInt64, miniature: [UInt8]) {
        let columns = 9
        let rows = 8
        var cells = [Double](repeating: 0, count: columns * rows)
        for row in 0..<rows {
            let y0 = row * height / rows
            let y1 = max(y0 + 1, (row + 1) * height / rows)
            for column in 0..<columns {
                let x0 = column * width / columns
                let x1 = max(x0 + 1, (column + 1) * width / columns)
                var sum = 0
                for y in y0..<y1 {
                    let line = y * width
                    for x in x0..<x1 { sum += Int(pixels[line + x]) }
                }
                cells[row * columns + column] = Double(sum) / Double((y1 - y0) * (x1 - x0))
            }
        }
        var hash: UInt64 = 0
        for row in 0..<rows {
            for column in 0..<(columns - 1) {
                hash <<= 1
                if cells[row * columns + column] < cells[row * columns + column + 1] { hash |= 1 }
            }
        }
        return (hash, cells.map { UInt8($0.rounded()) })
    }

    /// Variance of the 4-neighbour Laplacian over the inner pixels.
    package static func laplacianVariance(_ pixels: [UInt8], width: Int, height: Int) -> Double {
        guard width >= 3, height >= 3 else { return 0 }
        var sum = 0.0
        var squares = 0.0
        for y in 1..<(height - 1) {
            let line = y * width
            for x in 1..<(width - 1) {
                let centre = Int(pixels[line + x])
                let value = Double(
                    Int(pixels[line + x - 1]) + Int(pixels[line + x + 1]) + Int(pixels[line - width + x]) + Int(pixels[line + width + x])
                        - 4 * centre)
                sum += value
                squares += value * value
            }
        }
        let count = Double((width - 2) * (height - 2))
        let mean = sum / count
        return squares / count - mean * mean
    }
}
