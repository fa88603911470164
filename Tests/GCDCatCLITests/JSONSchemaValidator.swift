import Foundation

/// A JSON value as the validator sees it: integers kept apart from other numbers, and `true`
/// kept apart from `1` (JSONSerialization's NSNumber blurs both).
indirect enum JSONValue: Decodable, Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses `data` (one JSON document).
    static func parse(_ data: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data)
    }

    static func parse(_ text: String) throws -> JSONValue { try parse(Data(text.utf8)) }

    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// The first element of an array whose `list` member is `list`, or null.
    func firstElementWithList(_ list: String) -> JSONValue {
        guard case .array(let items) = self else { return .null }
        return items.first { $0["list"] == .string(list) } ?? .null
    }

    var numeric: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// Equality as JSON Schema's `enum` and `const` mean it: 1 and 1.0 are the same number.
    func sameValue(_ other: JSONValue) -> Bool {
        if let a = numeric, let b = other.numeric { return a == b }
        return self == other
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .integer(let value): "\(value)"
        case .number(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .array(let values): "[\(values.count) items]"
        case .object(let members): "{\(members.keys.sorted().joined(separator: ", "))}"
        }
    }
}

/// The subset of JSON Schema (draft 2020-12) that docs/json-schema uses: `type`, `enum`,
/// `const`, `minimum`, `properties`, `required`, `additionalProperties`, `items`, `oneOf` and
/// `$ref` to `#/$defs/…`. A keyword outside that subset is itself reported, so a schema cannot
/// rely on a rule that this validator would silently skip.
struct JSONSchemaValidator {
    static let annotations: Set = ["$schema", "$id", "$defs", "title", "description"]
    static let keywords: Set = [
        "type", "enum", "const", "minimum", "properties", "required", "additionalProperties", "items", "oneOf", "$ref",
    ]

    let root: JSONValue

    init(schema: JSONValue) { root = schema }

    init(schemaFile path: String) throws {
        root = try JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Every violation, as `pointer: reason`; empty when `instance` is valid.
    func violations(of instance: JSONValue) -> [String] {
        var found: [String] = []
        check(instance, against: root, at: "", into: &found)
        return found
    }

    private func check(_ instance: JSONValue, against schema: JSONValue, at pointer: String, into found: inout [String])
    {
        let place = pointer.isEmpty ? "/" : pointer
        guard case .object(let rules) = schema else {
            if schema == .bool(false) { found.append("\(place): no value is allowed here") }
            return
        }
        for key in rules.keys.sorted() where !Self.keywords.contains(key) && !Self.annotations.contains(key) {
            found.append("\(place): the schema uses '\(key)', which this validator does not check")
        }
        if case .string(let reference)? = rules["$ref"] {
            if let target = resolve(reference) {
                check(instance, against: target, at: pointer, into: &found)
            } else {
                found.append("\(place): $ref \(reference) leads nowhere")
            }
        }
        if let type = rules["type"] {
            let allowed: [String] =
                switch type {
                case .string(let name): [name]
                case .array(let names): names.compactMap { if case .string(let name) = $0 { name } else { nil } }
                default: []
                }
            let actual = instance.typeName
            if !allowed.contains(actual) && !(actual == "integer" && allowed.contains("number")) {
                found.append("\(place): \(instance) is \(actual), not \(allowed.joined(separator: " or "))")
            }
        }
        if case .array(let values)? = rules["enum"], !values.contains(where: { $0.sameValue(instance) }) {
            found.append("\(place): \(instance) is not one of \(values.map(\.description).joined(separator: ", "))")
        }
        if let value = rules["const"], !value.sameValue(instance) {
            found.append("\(place): \(instance) is not \(value)")
        }
        if let minimum = rules["minimum"]?.numeric, let value = instance.numeric, value < minimum {
            found.append("\(place): \(instance) is below the minimum \(minimum)")
        }
        if case .object(let members) = instance {
            checkObject(members, rules: rules, at: pointer, into: &found)
        }
        if case .array(let items) = instance, let itemSchema = rules["items"] {
            for (index, item) in items.enumerated() {
                check(item, against: itemSchema, at: "\(pointer)/\(index)", into: &found)
            }
        }
        if case .array(let choices)? = rules["oneOf"] {
            let matching = choices.filter { choice in
                var ignored: [String] = []
                check(instance, against: choice, at: pointer, into: &ignored)
                return ignored.isEmpty
            }.count
            if matching != 1 { found.append("\(place): \(matching) of oneOf's \(choices.count) schemas match, not 1") }
        }
    }

    private func checkObject(
        _ members: [String: JSONValue], rules: [String: JSONValue], at pointer: String, into found: inout [String]
    ) {
        let place = pointer.isEmpty ? "/" : pointer
        var properties: [String: JSONValue] = [:]
        if case .object(let declared)? = rules["properties"] { properties = declared }
        if case .array(let required)? = rules["required"] {
            for case .string(let key) in required where members[key] == nil {
                found.append("\(place): '\(key)' is required")
            }
        }
        for key in members.keys.sorted() {
            let child = "\(pointer)/\(key)"
            if let propertySchema = properties[key] {
                check(members[key]!, against: propertySchema, at: child, into: &found)
            } else if let additional = rules["additionalProperties"] {
                if additional == .bool(false) {
                    found.append("\(place): '\(key)' is not allowed (additionalProperties is false)")
                } else {
                    check(members[key]!, against: additional, at: child, into: &found)
                }
            }
        }
    }

    /// `#/$defs/name` (any JSON pointer within the schema document).
    private func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#") else { return nil }
        var node: JSONValue? = root
        for token in reference.dropFirst().split(separator: "/") {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            node = node?[key]
        }
        return node
    }
}

/// The repository's docs/json-schema folder.
let schemaFolder: String = URL(fileURLWithPath: fixturesPath).deletingLastPathComponent()
    .appendingPathComponent("docs/json-schema").path

/// The schema named `name` (merge, split, checksum, verify, bench, error).
func schema(_ name: String) throws -> JSONSchemaValidator {
    try JSONSchemaValidator(schemaFile: "\(schemaFolder)/\(name).json")
}
