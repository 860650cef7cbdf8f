// Y4MText: the C string functions FFmpeg's YUV4MPEG2 header parser uses (strtol, sscanf "%d:%d", av_strstart), over a bounded byte buffer.

/// A header line as FFmpeg's parser sees it: a NUL-padded byte buffer that C's string
/// functions read up to the first NUL. Reads past the buffer give NUL, so no index read
/// from the input can go out of bounds.
struct Y4MText {
    private let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    subscript(_ index: Int) -> UInt8 { index >= 0 && index < bytes.count ? bytes[index] : 0 }

    /// `av_strstart` / `strncmp(…, prefix, prefix.count) == 0`: whether the text at `index`
    /// starts with `prefix` (a NUL in the text ends it).
    func startsWith(_ prefix: [UInt8], at index: Int) -> Bool {
        for (offset, byte) in prefix.enumerated() where self[index + offset] != byte { return false }
        return true
    }

    /// The index of the next space at or after `index` (or `end`): FFmpeg's
    /// `while (tokstart < header_end && *tokstart != 0x20) tokstart++`.
    func skipToSpace(from index: Int, end: Int) -> Int {
        var i = index
        while i < end && self[i] != 0x20 { i += 1 }
        return i
    }

    /// C's `strtol(…, 10)` at `index`, stored into an `int` as FFmpeg does (the `long`
    /// truncated to 32 bits), and where parsing stopped (`index` itself when there is no number).
    func strtol(at index: Int) -> (Int32, Int) {
        guard let (value, next) = scanLong(at: index) else { return (0, index) }
        return (Int32(truncatingIfNeeded: value), next)
    }

    /// `sscanf(text, "%d:%d", &a, &b)`: `a` when a number is at `index`, `b` too when `:`
    /// and a number follow; unassigned otherwise (glibc stores the `long` truncated to `int`).
    func scanPair(at index: Int, into first: inout Int32, _ second: inout Int32) {
        guard let (a, next) = scanLong(at: index) else { return }
        first = Int32(truncatingIfNeeded: a)
        guard self[next] == UInt8(ascii: ":"), let (b, _) = scanLong(at: next + 1) else { return }
        second = Int32(truncatingIfNeeded: b)
    }

    /// A C `long` in base 10 at `index`: leading white space, an optional sign, digits;
    /// saturated at the `long` range as `strtol` does. Nil without a digit.
    private func scanLong(at index: Int) -> (Int64, Int)? {
        var i = index
        while [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D].contains(self[i]) { i += 1 }
        var negative = false
        if self[i] == UInt8(ascii: "+") || self[i] == UInt8(ascii: "-") {
            negative = self[i] == UInt8(ascii: "-")
            i += 1
        }
        guard (0x30...0x39).contains(self[i]) else { return nil }
        var magnitude: UInt64 = 0
        var saturated = false
        while (0x30...0x39).contains(self[i]) {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(self[i] - 0x30))
            if o1 || o2 { saturated = true } else { magnitude = sum }
            i += 1
        }
        let limit: UInt64 = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
        if saturated || magnitude > limit { return (negative ? Int64.min : Int64.max, i) }
        return (negative ? (magnitude == limit ? Int64.min : -Int64(magnitude)) : Int64(magnitude), i)
    }

    /// The token at `index` (up to a space, a NUL or `end`), printable, for messages.
    func token(at index: Int, end: Int) -> String {
        var i = index
        var text = ""
        while i < end && self[i] != 0x20 && self[i] != 0x0A && self[i] != 0 && text.count < 16 {
            text += Self.printable(self[i])
            i += 1
        }
        return text
    }

    /// A byte as text in a message: itself when printable ASCII, else `\xNN`.
    static func printable(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16, uppercase: true)
    }
}
