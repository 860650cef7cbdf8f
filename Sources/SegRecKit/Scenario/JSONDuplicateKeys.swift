import Foundation

/// Finds a key that appears twice in one JSON object. Foundation's `JSONDecoder` and
/// `JSONSerialization` both keep one of the two silently; a scenario must say each thing
/// once, so ``Scenario/decode(_:file:)`` runs this check after `JSONDecoder` has accepted
/// the document.
///
/// Not a JSON parser: one linear pass over the bytes of a document already known to be
/// valid JSON, tracking only nesting (`{`, `[`), the position in each array and the keys of
/// each open object; scalars are skipped. Keys are compared as Swift strings, as the
/// decoded dictionary compares them; a key with escapes is unescaped by `JSONDecoder`.
enum JSONDuplicateKeys {
    /// The first duplicate: its key path (`events[3].atSeconds`) and 1-based line.
    struct Duplicate: Equatable {
        var path: String
        var line: Int
    }

    private struct Level {
        var isObject: Bool
        var keys: Set<String> = []
        var key: String?
        var index = 0
        var expectingKey = false
    }

    /// The first key that repeats within one object of `data`, or nil.
    static func first(in data: Data) -> Duplicate? { data.withUnsafeBytes { raw in first(in: raw.bindMemory(to: UInt8.self)) } }

    private static func first(in bytes: UnsafeBufferPointer<UInt8>) -> Duplicate? {
        var stack: [Level] = []
        var line = 1
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "\n"):
                line += 1
                i += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): i += 1
            case UInt8(ascii: "{"):
                stack.append(Level(isObject: true, expectingKey: true))
                i += 1
            case UInt8(ascii: "["):
                stack.append(Level(isObject: false))
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = stack.popLast()
                i += 1
            case UInt8(ascii: ","):
                if let top = stack.indices.last { if stack[top].isObject { stack[top].expectingKey = true } else { stack[top].index += 1 } }
                i += 1
            case UInt8(ascii: ":"):
                if let top = stack.indices.last { stack[top].expectingKey = false }
                i += 1
            case UInt8(ascii: "\""):
                let start = i + 1
                var end = start
                var escaped = false
                while end < n, bytes[end] != UInt8(ascii: "\"") {
                    if bytes[end] == UInt8(ascii: "\\") {
                        escaped = true
                        end += 1
                    }
                    end += 1
                }
                if let top = stack.indices.last, stack[top].isObject, stack[top].expectingKey {
                    let key = decodeKey(UnsafeBufferPointer(rebasing: bytes[start..<min(end, n)]), escaped: escaped)
                    if !stack[top].keys.insert(key).inserted {
                        stack[top].key = key
                        return Duplicate(path: path(stack), line: line)
                    }
                    stack[top].key = key
                }
                i = end + 1
            default:
                // A scalar (number, true, false, null): skip to its end.
                while i < n, !isDelimiter(bytes[i]) { i += 1 }
            }
        }
        return nil
    }

    private static func isDelimiter(_ c: UInt8) -> Bool {
        c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]") || c == UInt8(ascii: " ") || c == UInt8(ascii: "\n")
            || c == UInt8(ascii: "\t") || c == UInt8(ascii: "\r")
    }

    private static func decodeKey(_ bytes: UnsafeBufferPointer<UInt8>, escaped: Bool) -> String {
        guard escaped else { return String(decoding: bytes, as: UTF8.self) }
        var quoted = Data([UInt8(ascii: "\"")])
        quoted.append(contentsOf: bytes)
        quoted.append(UInt8(ascii: "\""))
        return (try? JSONDecoder().decode(String.self, from: quoted)) ?? String(decoding: bytes, as: UTF8.self)
    }

    /// `events[3].atSeconds` for the stack's open containers and the current key.
    private static func path(_ stack: [Level]) -> String {
        var text = ""
        for (depth, level) in stack.enumerated() {
            if level.isObject {
                guard let key = level.key else { continue }
                text += (text.isEmpty ? "" : ".") + Excerpt.of(key)
            } else if depth < stack.count - 1 {
                text += "[\(level.index)]"
            }
        }
        return text
    }
}
