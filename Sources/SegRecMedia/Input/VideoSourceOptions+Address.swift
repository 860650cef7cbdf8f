// VideoSourceOptions' checks of a network URL's address: its protocol, host and port, before anything connects.

extension VideoSourceOptions {
    /// A URL whose scheme segrec does not read: an error naming the schemes it does.
    static func unsupportedProtocol(_ scheme: Substring, path: String) -> MediaInputError {
        .badInput(
            path: path, field: "protocol",
            detail:
                "'\(scheme)://' is not a protocol segrec reads and no file has this name; allowed: \(networkSchemes.map { $0 + "://" }.joined(separator: ", ")), a file path, a V4L2 device (/dev/videoN) or - (standard input)"
        )
    }

    /// The host and port of a network URL, checked before anything connects: a port, when
    /// given, is a number in 1...65535 (UDP and RTP need one: they have no default); a host is
    /// needed to pull (a listener may leave it empty: every address).
    /// - Throws: ``MediaInputError/badInput(path:field:detail:)`` naming `port` or `host`.
    static func checkAddress(of path: String, scheme: String, listen: Bool) throws(MediaInputError) {
        guard let range = path.range(of: "://") else { return }
        let rest = path[range.upperBound...]
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host: Substring
        var port: Substring?
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { port = after.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        if let port {
            guard !port.isEmpty, port.allSatisfy(\.isASCII), let number = Int(port), (1...65535).contains(number) else {
                throw .badInput(path: path, field: "port", detail: "'\(port)' is not a port; allowed: a number in 1...65535, e.g. \(scheme)://127.0.0.1:5000")
            }
        } else if scheme == "udp" || scheme == "rtp" {
            throw .badInput(
                path: path, field: "port", detail: "\(scheme):// needs a port (no default); allowed: a number in 1...65535, e.g. \(scheme)://127.0.0.1:5000")
        }
        if host.isEmpty && !listen && scheme != "udp" && scheme != "rtp" {
            throw .badInput(path: path, field: "host", detail: "no host to connect to; give one, e.g. \(scheme)://127.0.0.1\(port.map { ":\($0)" } ?? "")/…")
        }
    }
}
