import Foundation

/// A key given twice in one JSON object (Foundation's decoder keeps one of them without a
/// word, so two readers of the same file could disagree on what it says): refused.
extension ManifestReader {
    /// The path (`segments[0].frameCount`) of the first key that appears twice in one object
    /// of the well-formed JSON `data`, or nil.
    static func duplicateKey(in data: Data) -> String? {
        enum Frame {
            case object(keys: Set<String>, key: String?)
            case array(index: Int)
        }
        var stack: [Frame] = []
        func path(_ last: String) -> String {
            var text = ""
            for frame in stack {
                switch frame {
                case .object(_, let key?): text += text.isEmpty ? key : "." + key
                case .array(let index): text += "[\(index)]"
                case .object: break
                }
            }
            return text.isEmpty ? last : text + "." + last
        }
        let bytes = [UInt8](data)
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "{"): stack.append(.object(keys: [], key: nil))
            case UInt8(ascii: "["): stack.append(.array(index: 0))
            case UInt8(ascii: "}"), UInt8(ascii: "]"): if !stack.isEmpty { stack.removeLast() }
            case UInt8(ascii: ","):
                switch stack.last {
                case .array(let index): stack[stack.count - 1] = .array(index: index + 1)
                case .object(let keys, _): stack[stack.count - 1] = .object(keys: keys, key: nil)
                case nil: break
                }
            case UInt8(ascii: "\""):
                var j = i + 1
                var escaped = false
                while j < bytes.count, bytes[j] != UInt8(ascii: "\"") || escaped {
                    escaped = !escaped && bytes[j] == UInt8(ascii: "\\")
                    j += 1
                }
                if case .object(var keys, nil) = stack.last {
                    // A string where a key is expected: the key (escapes decoded, so "a" and "\u0061" are one key).
                    let literal = Data(bytes[i...min(j, bytes.count - 1)])
                    let key =
                        (try? JSONSerialization.jsonObject(with: literal, options: [.fragmentsAllowed])) as? String ?? String(decoding: literal, as: UTF8.self)
                    guard keys.insert(key).inserted else { return path(key) }
                    stack[stack.count - 1] = .object(keys: keys, key: key)
                }
                i = j
            default: break
            }
            i += 1
        }
        return nil
    }
}
