import DisposableCore
import DisposablePlatform
import Foundation

/// The phone's own small picture of the photo it sends (UP-1): made from the canvas it already holds, it lets
/// everyone see the photo as soon as it is acknowledged, without the server decoding the original first. The server's
/// thumbnail and preview follow when the machine has time, replace it, and are compared with it (`PhotoRenderer`).
///
/// It is hostile input like any other: a JPEG only, within `maxBytes` and `maxSide`, with no metadata, of the
/// photo's shape as displayed, read to its end; what is kept is a new file the server writes from its coefficients.
package struct FirstLook: Sendable {
    package let image: FirstLookImage

    package init(image: FirstLookImage) {
        self.image = image
    }

    package static let maxBytes = 100 * 1024
    package static let maxSide = 640
    /// Enough to compare it with the server's thumbnail (the comparison reads a 9 × 8 miniature).
    package static let minSide = 16
    /// How far its width-to-height ratio may stray from the photo's as displayed (rounding a 640 px side moves it
    /// by well under one percent).
    package static let aspectTolerance = 0.03

    /// `jpeg` checked against the photo it stands for (`photo`: its header, as the original's was read).
    package static func check(_ jpeg: Data, for photo: ImageHeader, images: any ImageProcessor) async throws -> FirstLook {
        let image = try await checkAlone(jpeg, images: images)
        let shown = photo.displayed
        let photoRatio = Double(shown.width) / Double(shown.height)
        let ratio = Double(image.width) / Double(image.height)
        guard abs(ratio - photoRatio) <= aspectTolerance * photoRatio else {
            throw FirstLookRefusal(
                "it is \(image.width)×\(image.height) pixels, not the shape of the photo as shown (\(shown.width)×\(shown.height))")
        }
        return FirstLook(image: image)
    }

    /// Everything but its shape, which needs the photo: a resumable upload's first look arrives before its last byte.
    package static func checkAlone(_ jpeg: Data, images: any ImageProcessor) async throws -> FirstLookImage {
        guard jpeg.count <= maxBytes else { throw FirstLookRefusal("it is larger than \(maxBytes / 1024) KB") }
        guard jpeg.starts(with: [0xFF, 0xD8, 0xFF]) else { throw FirstLookRefusal("it is not a JPEG") }
        let image: FirstLookImage
        do {
            image = try await images.firstLook(jpeg, maxSide: maxSide)
        } catch {
            switch error {
            case .tooLarge(let width, let height):
                throw FirstLookRefusal("it is \(width)×\(height) pixels, more than \(maxSide) on a side")
            case .metadata: throw FirstLookRefusal("it carries metadata (EXIF, XMP or IPTC)")
            case .colours: throw FirstLookRefusal("its colours are not in YCbCr or grey, as a browser writes them")
            case .undecodable: throw FirstLookRefusal("it cannot be read as a whole JPEG")
            case .unavailable: throw Problem.imagesUnavailable
            }
        }
        guard min(image.width, image.height) >= minSide else {
            throw FirstLookRefusal("it is \(image.width)×\(image.height) pixels, less than \(minSide) on a side")
        }
        return image
    }

    /// Whether the server's own thumbnail shows the picture whose grey miniature (`PhotoSignals.miniature`) was
    /// `miniature`: their cells correlate (Pearson) at `sameScene` or more. Two copies of one picture — re-encoded,
    /// resized, another colour profile — correlate at 0.99 and above; two different scenes, even of similar texture,
    /// far less. Where either is flat (a white wall, the night) there is nothing to compare: taken as the same.
    package static func matches(miniature: [UInt8], _ server: PhotoSignals?) -> Bool {
        guard let server, server.miniature.count == miniature.count, !miniature.isEmpty else { return true }
        let (a, b) = (miniature.map(Double.init), server.miniature.map(Double.init))
        let count = Double(a.count)
        let (meanA, meanB) = (a.reduce(0, +) / count, b.reduce(0, +) / count)
        var (covariance, varianceA, varianceB) = (0.0, 0.0, 0.0)
        for (x, y) in zip(a, b) {
            covariance += (x - meanA) * (y - meanB)
            varianceA += (x - meanA) * (x - meanA)
            varianceB += (y - meanB) * (y - meanB)
        }
        let flat = flatDeviation * flatDeviation * count
        guard varianceA >= flat, varianceB >= flat else { return true }
        return covariance / (varianceA * varianceB).squareRoot() >= sameScene
    }

    package static let sameScene = 0.9
    /// A miniature whose cells deviate less than this (grey levels) is flat.
    package static let flatDeviation = 2.0
}

/// Why a first look was refused, in a few words ("it is not a JPEG"): each entry point says what follows from it.
package struct FirstLookRefusal: Error {
    package let reason: String

    package init(_ reason: String) { self.reason = reason }
}

extension Problem {
    /// The shutter's form: the photo goes with its first look or not at all.
    package static func firstLookRefused(_ reason: String) -> Problem {
        Problem(
            .unprocessableContent, "first-look-refused", title: "First look refused",
            detail: "The small picture sent with this photo was refused: \(reason). Nothing was kept; send the photo again "
                + "with a JPEG of at most \(FirstLook.maxSide) pixels on a side, without metadata, or without one.")
    }

    /// A resumable upload's first look: the upload goes on without it.
    package static func firstLookRefusedBeside(_ reason: String) -> Problem {
        Problem(
            .unprocessableContent, "first-look-refused", title: "First look refused",
            detail: "The small picture sent for this upload was refused: \(reason). The upload goes on: send its bytes, "
                + "with a JPEG of at most \(FirstLook.maxSide) pixels on a side without metadata first, or without one.")
    }

    package static let firstLookOnlyForPhotos = Problem(
        .unprocessableContent, "first-look-refused", title: "First look refused",
        detail: "A first look goes with a photo, not with a video: send the video without one.")

    package static let imagesUnavailable = Problem(
        .serviceUnavailable, "images-unavailable", title: "Photos cannot be checked right now",
        detail: "The server cannot read photos at the moment. Your photo was not kept; please try again later.")
}
