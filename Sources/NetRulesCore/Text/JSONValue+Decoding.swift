/// Typed access to a parsed document for the files netrules writes and reads back (`state.json`,
/// the state journal): every mismatch names the key path, so a damaged file is reported as
/// `inflight[2].rule: expected a string`, not as a decoder's debug dump.
extension JSONValue {
    /// Why a parsed document does not have the shape its reader expects.
    public struct ShapeError: Error, CustomStringConvertible, Sendable, Hashable {
        /// Where: `rules.office.hold.deadline`; empty for the document itself.
        public var path: String
        /// What was wrong: `expected a number`.
        public var reason: String

        /// Creates the error for `path`.
        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        /// `path: reason`, or the reason alone for the document.
        public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
    }

    /// The members of an object, read by key; each accessor throws a `ShapeError` naming the key.
    public struct Members: Sendable {
        /// This object's own path (empty for the document).
        public let path: String
        private let members: [(String, JSONValue)]

        /// Reads `value` as an object at `path`.
        public init(_ value: JSONValue, path: String = "") throws(ShapeError) {
            guard case .object(let members) = value else { throw ShapeError(path: path, reason: "expected an object") }
            self.path = path
            self.members = members
        }

        /// The path of the member `key`.
        public func path(of key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

        /// The member `key`; nil when it is missing or `null`.
        public subscript(key: String) -> JSONValue? {
            guard let value = members.first(where: { $0.0 == key })?.1 else { return nil }
            if case .null = value { return nil }
            return value
        }

        /// Every member, in document order.
        public var all: [(String, JSONValue)] { members }

        /// The string `key`, or nil when missing or `null`.
        public func string(_ key: String) throws(ShapeError) -> String? {
            guard let value = self[key] else { return nil }
            guard let text = value.stringValue else {
                throw ShapeError(path: path(of: key), reason: "expected a string")
            }
            return text
        }

        /// The string `key`, which must be there.
        public func requiredString(_ key: String) throws(ShapeError) -> String {
            guard let text = try string(key) else { throw ShapeError(path: path(of: key), reason: "missing") }
            return text
        }

        /// The number `key`, or nil when missing or `null`.
        public func number(_ key: String) throws(ShapeError) -> Double? {
            guard let value = self[key] else { return nil }
            guard let number = value.numberValue else {
                throw ShapeError(path: path(of: key), reason: "expected a number")
            }
            return number
        }

        /// The integer `key`, or nil when missing or `null`.
        public func integer(_ key: String) throws(ShapeError) -> Int? {
            // As written, when it is: a Double holds integers exactly only up to 2^53, and
            // nanosecond timestamps are past that.
            if case .literal(let text) = self[key], let exact = Int(text) { return exact }
            guard let number = try number(key) else { return nil }
            guard let integer = Int(exactly: number) else {
                throw ShapeError(path: path(of: key), reason: "expected an integer")
            }
            return integer
        }

        /// The boolean `key`, or nil when missing or `null`.
        public func bool(_ key: String) throws(ShapeError) -> Bool? {
            guard let value = self[key] else { return nil }
            guard case .bool(let flag) = value else {
                throw ShapeError(path: path(of: key), reason: "expected a boolean")
            }
            return flag
        }

        /// The object `key`, or nil when missing or `null`.
        public func object(_ key: String) throws(ShapeError) -> Members? {
            guard let value = self[key] else { return nil }
            return try Members(value, path: path(of: key))
        }

        /// The array `key` (empty when missing or `null`), each element with its path.
        public func array(_ key: String) throws(ShapeError) -> [(path: String, value: JSONValue)] {
            guard let value = self[key] else { return [] }
            guard case .array(let items) = value else {
                throw ShapeError(path: path(of: key), reason: "expected an array")
            }
            return items.enumerated().map { ("\(path(of: key))[\($0.offset)]", $0.element) }
        }

        /// The array of strings `key` (empty when missing or `null`).
        public func strings(_ key: String) throws(ShapeError) -> [String] {
            var out: [String] = []
            for item in try array(key) {
                guard let text = item.value.stringValue else {
                    throw ShapeError(path: item.path, reason: "expected a string")
                }
                out.append(text)
            }
            return out
        }
    }
}
