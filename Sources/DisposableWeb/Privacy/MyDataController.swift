import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird
import NIOCore

/// SUP-4: `GET /api/v1/me/export` (a streamed ZIP: `data.json`, my own photos and my library as I sent them) and
/// `DELETE /api/v1/me` (an account with everything in it, its e-mail typed again; a guest's photos).
package struct MyDataController {
    package let myData: MyDataService
    package let blobs: any BlobStore

    package init(myData: MyDataService, blobs: any BlobStore) {
        self.myData = myData
        self.blobs = blobs
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/me/export", use: export)
        router.delete("/api/v1/me", use: erase)
    }

    @Sendable package func export(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (data, files) = try await myData.collect(for: context.identity)
        let json = ByteBuffer(data: try JSONEncoder.sorted.encode(data))
        let now = data.exportedAt
        let entries =
            [ZipEncoder.Entry(name: "data.json", size: Int64(json.readableBytes), modified: now)]
            + files.map { ZipEncoder.Entry(name: $0.name, size: $0.size, modified: $0.modified) }
        let (blobs, eventLoop) = (blobs, context.eventLoop)
        return Response(
            status: .ok,
            headers: [.contentType: "application/zip", .contentDisposition: contentDisposition("my-data.zip"), .cacheControl: "no-store"],
            body: ResponseBody(contentLength: Int(ZipEncoder.length(of: entries))) { writer in
                var paced = PacedWriter(writer: writer, eventLoop: eventLoop)
                var archive = ZipEncoder()
                try await paced.write(archive.begin(entries[0]))
                try await paced.write(json)
                try await paced.write(archive.end(crc: ZipEncoder.crc(0, json)))
                // My own photos and library, as I sent them: nothing is taken out of them for me.
                for (entry, file) in zip(entries.dropFirst(), files) {
                    try await paced.write(archive.begin(entry))
                    var crc: UInt32 = 0
                    guard file.size > 0 else {
                        try await paced.write(archive.end(crc: crc))
                        continue
                    }
                    try await blobs.read(key: file.key, range: 0...(file.size - 1)) { chunk in
                        crc = ZipEncoder.crc(crc, chunk)
                        try await paced.write(chunk)
                    }
                    try await paced.write(archive.end(crc: crc))
                }
                try await paced.write(archive.finish())
                try await paced.writer.finish(nil)
            })
    }

    @Sendable package func erase(_ request: Request, context: AppRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        var confirm: String? = nil
        if case .user = identity { confirm = try await request.decodeJSON(DeleteMeRequest.self).confirmEmail }
        try await myData.erase(for: identity, confirmEmail: confirm)
        return Response(status: .noContent)
    }
}

extension DeleteMeRequest: JSONBody {
    package static let fields: Set<String> = ["confirmEmail"]
}
