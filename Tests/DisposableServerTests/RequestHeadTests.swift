import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// `RequestShortcut` trusts `RequestHead` to find request boundaries exactly where the HTTP decoder does:
/// whatever a lenient reader might cut differently must be refused (the connection then goes to the decoder).
@Suite("Strict reading of request heads (PERF-3)")
struct RequestHeadTests {
    static func parse(_ text: String) -> RequestHead? {
        Array(text.utf8).withUnsafeBytes { bytes in
            RequestHead.end(in: bytes) == bytes.count ? RequestHead.parse(bytes) : nil
        }
    }

    @Test("A plain GET and a request with a body are read field by field")
    func plainHeads() throws {
        let get = try #require(
            Self.parse(
                "GET /api/v1/media/e/p/thumbnail.jpg?until=1&sig=ab HTTP/1.1\r\nHost: x\r\nIf-None-Match:  \"p-thumbnail\" \r\nConnection: Keep-Alive\r\n\r\n"
            ))
        #expect(get.isGet && get.isHTTP11 && !get.unusualConnection && get.contentLength == 0)
        #expect(get.target == "/api/v1/media/e/p/thumbnail.jpg?until=1&sig=ab")
        #expect(get.ifNoneMatch == "\"p-thumbnail\"")

        let post = try #require(Self.parse("POST /api/v1/sessions HTTP/1.0\r\ncontent-LENGTH: 42\r\nConnection: close\r\n\r\n"))
        #expect(!post.isGet && !post.isHTTP11 && post.unusualConnection && post.contentLength == 42)
    }

    @Test("The end of a head is found only when its blank line has arrived, wherever the search resumes")
    func endOfHead() {
        let head = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /next".utf8)
        head.withUnsafeBytes { bytes in
            #expect(RequestHead.end(in: bytes) == 27)
            #expect(RequestHead.end(in: bytes, from: 23) == 27, "the blank line's CRLFCRLF starts at 23")
            #expect(RequestHead.end(in: bytes, from: 24) == nil)
            #expect(RequestHead.end(in: UnsafeRawBufferPointer(rebasing: bytes[..<26])) == nil)
        }
    }

    @Test(
        "Anything a strict reader would not take is refused",
        arguments: [
            "GET / HTTP/1.1\nHost: x\r\n\r\n",  // bare LF
            "GET / HTTP/1.1\r\nHost: x\r\r\n\r\n",  // stray CR
            "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",  // obsolete line folding
            "GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",  // two lengths
            "GET / HTTP/1.1\r\nContent-Length: +1\r\n\r\n", "GET / HTTP/1.1\r\nContent-Length: 1 2\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", "GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n",
            "CONNECT x:443 HTTP/1.1\r\n\r\n", "GET / HTTP/2.0\r\n\r\n", "GET /a b HTTP/1.1\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", "GET / HTTP/1.1\r\n: x\r\n\r\n", "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
            "GET / HTTP/1.1\r\nX: a\u{7F}b\r\n\r\n", "\r\nGET / HTTP/1.1\r\n\r\n",
        ])
    func refused(head: String) {
        #expect(Self.parse(head) == nil, "\(head.debugDescription)")
    }
}
