/// Why the MQTT client could not do something: load libmosquitto, derive its client id, connect.
package struct MQTTError: Error, CustomStringConvertible, Sendable {
    /// What failed, in words a person can act on.
    package var message: String
    package var fileID: String
    package var line: Int

    package init(_ message: String, fileID: String = #fileID, line: Int = #line) {
        self.message = message
        self.fileID = fileID
        self.line = line
    }

    package var description: String { message }
}
