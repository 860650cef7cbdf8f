/// Any JSON value, decoded with Foundation's `JSONDecoder`, so the scenario decoder can
/// check keys and types itself and report precise key paths.
///
/// `Decoder` cannot say what kind of value comes next, so each case is tried in turn and
/// every miss costs a thrown error; the order puts objects first and strings before numbers
/// (a scenario is mostly event objects, times and ratio names), which halves the misses of
/// the obvious order. (`JSONSerialization` parses faster but holds about four times the
/// memory: 1 GB for a 25 MB scenario.) An integral number that fits `Int64` (`1280`,
/// `1280.0`) is ``integer(_:)``, as `JSONDecoder` reads it.
enum JSONValue: Decodable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            var fields: [String: JSONValue] = [:]
            fields.reserveCapacity(object.allKeys.count)
            for key in object.allKeys { fields[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
            self = .object(fields)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else {
            self = .array(try container.decode([JSONValue].self))
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The value as a number, if it is one.
    var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// A short rendering for messages (strings cut to ``Excerpt``): `"abc"`, `12`, `true`, `an array`, `an object`.
    var rendered: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .integer(let value): "\(value)"
        case .number(let value): "\(value)"
        case .string(let value): "\"\(Excerpt.of(value))\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
