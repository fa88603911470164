import Foundation
import Testing

/// The validator that the JSON contract tests rely on must itself reject what each keyword
/// forbids; otherwise a passing contract test would mean nothing.
@Suite struct JSONSchemaValidatorTests {
    static let schemaText = """
        {
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "type": "object",
          "properties": {
            "name": {"type": "string"},
            "count": {"type": "integer", "minimum": 0},
            "ratio": {"type": ["number", "null"]},
            "flag": {"type": "boolean"},
            "kind": {"enum": ["a", "b", null]},
            "version": {"const": 1},
            "tags": {"type": "array", "items": {"type": "string"}},
            "child": {"$ref": "#/$defs/child"},
            "either": {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "number", "minimum": 100}]}
          },
          "required": ["name", "count"],
          "additionalProperties": false,
          "$defs": {
            "child": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"],
                      "additionalProperties": false}
          }
        }
        """

    let validator: JSONSchemaValidator

    init() throws {
        validator = JSONSchemaValidator(schema: try JSONValue.parse(Self.schemaText))
    }

    func violations(_ document: String) throws -> [String] {
        validator.violations(of: try JSONValue.parse(document))
    }

    @Test func aValidDocumentPasses() throws {
        let document = """
            {"name": "x", "count": 3, "ratio": null, "flag": true, "kind": null, "version": 1.0,
             "tags": ["t"], "child": {"id": 7}, "either": 150.5}
            """
        #expect(try violations(document) == [])
        #expect(try violations(#"{"name": "x", "count": 0, "ratio": 1, "either": "s"}"#) == [])
    }

    @Test(arguments: [
        (#"{"name": 5, "count": 1}"#, "/name: 5 is integer, not string"),
        (#"{"name": "x", "count": 1.5}"#, "/count: 1.5 is number, not integer"),
        (#"{"name": "x", "count": 1, "flag": 1}"#, "/flag: 1 is integer, not boolean"),
        (#"{"name": "x", "count": 1, "ratio": "r"}"#, "/ratio: \"r\" is string, not number or null"),
        (#"{"name": "x", "count": -1}"#, "/count: -1 is below the minimum 0.0"),
        (#"{"name": "x", "count": 1, "kind": "c"}"#, "/kind: \"c\" is not one of \"a\", \"b\", null"),
        (#"{"name": "x", "count": 1, "version": 2}"#, "/version: 2 is not 1"),
        (#"{"name": "x"}"#, "/: 'count' is required"),
        (#"{"name": "x", "count": 1, "extra": 0}"#, "/: 'extra' is not allowed (additionalProperties is false)"),
        (#"{"name": "x", "count": 1, "tags": ["a", 2]}"#, "/tags/1: 2 is integer, not string"),
        (#"{"name": "x", "count": 1, "child": {}}"#, "/child: 'id' is required"),
        (#"{"name": "x", "count": 1, "child": {"id": "7"}}"#, "/child/id: \"7\" is string, not integer"),
        (#"{"name": "x", "count": 1, "either": true}"#, "/either: 0 of oneOf's 3 schemas match, not 1"),
        (#"{"name": "x", "count": 1, "either": 500}"#, "/either: 2 of oneOf's 3 schemas match, not 1"),
        (#"[1]"#, "/: [1 items] is array, not object"),
    ])
    func eachKeywordRejectsWhatItForbids(document: String, expected: String) throws {
        #expect(try violations(document) == [expected])
    }

    @Test func aBrokenReferenceAndAnUncheckedKeywordAreReported() throws {
        let broken = JSONSchemaValidator(
            schema: try JSONValue.parse(##"{"properties": {"a": {"$ref": "#/$defs/gone"}}, "pattern": "x"}"##))
        #expect(
            broken.violations(of: try JSONValue.parse(#"{"a": 1}"#)) == [
                "/: the schema uses 'pattern', which this validator does not check",
                "/a: $ref #/$defs/gone leads nowhere",
            ])
    }

    /// Every shipped schema uses only the checked keywords, and is itself well-formed JSON.
    @Test(arguments: ["merge", "split", "checksum", "verify", "verify-par2", "protect", "repair", "bench", "error"])
    func shippedSchemasUseOnlyCheckedKeywords(name: String) throws {
        let text = try String(contentsOfFile: "\(schemaFolder)/\(name).json", encoding: .utf8)
        let document = try JSONValue.parse(text)
        #expect(document["$schema"] == .string("https://json-schema.org/draft/2020-12/schema"))
        var unknown: Set<String> = []
        func walk(_ node: JSONValue, isPropertyMap: Bool) {
            switch node {
            case .object(let members):
                for (key, value) in members {
                    if !isPropertyMap && !JSONSchemaValidator.keywords.contains(key)
                        && !JSONSchemaValidator.annotations.contains(key)
                    {
                        unknown.insert(key)
                    }
                    walk(value, isPropertyMap: !isPropertyMap && (key == "properties" || key == "$defs"))
                }
            case .array(let items): items.forEach { walk($0, isPropertyMap: false) }
            default: break
            }
        }
        walk(document, isPropertyMap: false)
        #expect(unknown.isEmpty, "\(name).json: \(unknown)")
    }
}
