public import NetRulesCore

/// The kinds of conditions and actions a rule file may use, built-in or added.
///
/// Built-ins register exactly as an addition would: adding a condition kind is one new type
/// conforming to `ConditionKind` and one `register` call, and it brings its own option
/// validation and its part of the JSON Schema.
public struct Registry: Sendable {
    /// The condition kinds, in registration order; each key appears once.
    public private(set) var conditionKinds: [any ConditionKind] = []
    /// The action kinds, in registration order; each name appears once.
    public private(set) var actionKinds: [any ActionKind] = []

    /// An empty registry.
    public init() {}

    /// The built-in kinds.
    public static let standard: Registry = {
        var registry = Registry()
        for kind: any ConditionKind in [
            SSIDConditionKind(), BSSIDConditionKind(), PortalConditionKind(), ConnectivityConditionKind(),
            HostConditionKind(reachable: true), HostConditionKind(reachable: false), InterfaceConditionKind(),
            GatewayConditionKind(), AddressConditionKind(), NetworkConditionKind(), SignalConditionKind(),
            FactConditionKind(), TimeConditionKind(), PlaceConditionKind(), LogicConditionKind(.all),
            LogicConditionKind(.any), NotConditionKind(),
        ] {
            registry.register(kind)
        }
        for kind: any ActionKind in [RunActionKind(), WebhookActionKind(), WriteActionKind(), MQTTActionKind()] {
            registry.register(kind)
        }
        return registry
    }()

    /// Adds a condition kind; a later registration under the same key replaces the earlier one.
    public mutating func register(_ kind: any ConditionKind) {
        conditionKinds.removeAll { $0.key == kind.key }
        conditionKinds.append(kind)
    }

    /// Adds an action kind; a later registration under the same name replaces the earlier one.
    public mutating func register(_ kind: any ActionKind) {
        actionKinds.removeAll { $0.name == kind.name }
        actionKinds.append(kind)
    }

    /// The condition kind written as `key`.
    public func conditionKind(_ key: String) -> (any ConditionKind)? {
        conditionKinds.first { $0.key == key }
    }

    /// The action kind written as `name`.
    public func actionKind(_ name: String) -> (any ActionKind)? {
        actionKinds.first { $0.name == name }
    }
}

/// One kind of condition: its YAML key, how it reads its value, and its schema.
public protocol ConditionKind: Sendable {
    /// The key that introduces it in a `when:` mapping.
    var key: String { get }
    /// One sentence for the schema and the docs.
    var summary: String { get }
    /// The JSON Schema of its value.
    var schema: JSONValue { get }
    /// Reads the value under `key`; reports problems and returns nil when it cannot.
    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ConditionParser) -> (any Condition)?
}

/// One kind of action: its name under `do:`, how it reads its options, and its schema.
public protocol ActionKind: Sendable {
    var name: String { get }
    var summary: String { get }
    var schema: JSONValue { get }
    func parse(_ node: YAMLNode, at path: KeyPath, in parser: inout ActionParser) -> Action?
}
